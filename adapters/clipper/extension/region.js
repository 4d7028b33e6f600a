// SPDX-License-Identifier: Apache-2.0

// The region picker, injected (after lib/paint.js) on a gesture into the
// extension's isolated world of the tab and removed when done (10 §11). Draw a rectangle, then
// adjust it (drag inside to move, eight handles to resize) until it is
// confirmed; annotate it with a box, an arrow, the pen or a text label
// (undo takes the last one back). Annotations are vectors relative to the
// rectangle, composited by the worker onto the crop, red by default.
// Enter or Capture confirms; Esc backs out one layer (a label being
// typed, the tool, the rectangle, then the picker). Keys pick the tools
// as well. Only the rectangle and its vectors leave the tab.
(() => {
  const WAIT_MS = 180000;
  const RED = globalThis.__monkeyPaint.RED;
  const paint = globalThis.__monkeyPaint.paint;
  const HANDLES = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];
  const TOOLS = ['adjust', 'box', 'arrow', 'pen', 'text'];

  function css(el, props) {
    for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v, 'important');
    return el;
  }

  function el(tag, props, text) {
    const e = css(document.createElement(tag), props || {});
    if (text) e.textContent = text;
    return e;
  }

  function pick(labels) {
    return new Promise((resolve) => {
      const host = el('div', { position: 'fixed', inset: '0', 'z-index': '2147483647' });
      const root = host.attachShadow({ mode: 'closed' });
      const veil = el('div', { position: 'absolute', inset: '0', cursor: 'crosshair', background: 'rgba(0,0,0,0.15)' });
      const box = el('div', { position: 'absolute', display: 'none', outline: '2px dashed ' + RED, cursor: 'move' });
      const ink = el('canvas', { position: 'absolute', inset: '0', width: '100%', height: '100%' });
      box.append(ink);
      const handles = HANDLES.map((h) => {
        const d = el('div', { position: 'absolute', width: '10px', height: '10px', background: '#fff', border: '2px solid ' + RED,
          'box-sizing': 'border-box', cursor: h + '-resize' });
        d.dataset.handle = h;
        box.append(d);
        return d;
      });
      const bar = el('div', { position: 'absolute', display: 'none', gap: '4px', padding: '6px', background: '#fff', color: '#111',
        font: '13px system-ui, sans-serif', 'border-radius': '6px', 'box-shadow': '0 2px 8px rgba(0,0,0,.3)', 'align-items': 'center' });
      const toolButtons = TOOLS.map((tool) => {
        const b = el('button', {}, labels['tool_' + tool]);
        b.dataset.tool = tool;
        b.addEventListener('click', () => setTool(tool));
        return b;
      });
      const undo = el('button', {}, labels.undo);
      const note = el('input', { width: '14em' });
      note.placeholder = labels.note;
      note.setAttribute('aria-label', labels.note);
      const ok = el('button', { background: RED, color: '#fff', border: '0', padding: '2px 8px' }, labels.capture);
      const no = el('button', {}, labels.cancel);
      bar.append(...toolButtons, undo, note, ok, no);
      const hint = el('div', { position: 'absolute', top: '12px', left: '50%', transform: 'translateX(-50%)', padding: '6px 10px',
        background: '#111', color: '#fff', font: '13px system-ui, sans-serif', 'border-radius': '6px' }, labels.hint);
      root.append(veil, box, bar, hint);
      document.documentElement.appendChild(host);

      let rect = null;
      let drag = null;
      let tool = 'adjust';
      let shapes = [];
      let typing = null;
      const timer = setTimeout(() => done(null), WAIT_MS);

      function setTool(next) {
        tool = next;
        for (const b of toolButtons) css(b, { 'font-weight': b.dataset.tool === tool ? 'bold' : 'normal' });
        css(box, { cursor: tool === 'adjust' ? 'move' : 'crosshair' });
      }

      function draw() {
        if (!rect) {
          css(box, { display: 'none' });
          css(bar, { display: 'none' });
          return;
        }
        css(box, { display: 'block', left: rect.x + 'px', top: rect.y + 'px', width: rect.w + 'px', height: rect.h + 'px' });
        const pos = { nw: [0, 0], n: [0.5, 0], ne: [1, 0], e: [1, 0.5], se: [1, 1], s: [0.5, 1], sw: [0, 1], w: [0, 0.5] };
        for (const d of handles) {
          const [fx, fy] = pos[d.dataset.handle];
          css(d, { left: (fx * rect.w - 5) + 'px', top: (fy * rect.h - 5) + 'px' });
        }
        const dpr = window.devicePixelRatio || 1;
        ink.width = Math.max(1, Math.round(rect.w * dpr));
        ink.height = Math.max(1, Math.round(rect.h * dpr));
        paint(ink.getContext('2d'), shapes.concat(drag && drag.shape ? [drag.shape] : []), dpr);
        const below = rect.y + rect.h + 48 < window.innerHeight;
        css(bar, { display: 'flex', left: Math.min(rect.x, Math.max(0, window.innerWidth - 640)) + 'px',
          top: (below ? rect.y + rect.h + 8 : Math.max(8, rect.y - 44)) + 'px' });
      }

      function done(value) {
        clearTimeout(timer);
        document.removeEventListener('keydown', onKey, true);
        host.remove();
        // Two frames so the picker is gone from the pixels captured next.
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(value)));
      }

      function confirm() {
        if (!rect || rect.w < 2 || rect.h < 2) return;
        done({ x: rect.x, y: rect.y, w: rect.w, h: rect.h, vw: window.innerWidth, vh: window.innerHeight,
          note: note.value.trim(), shapes });
      }

      function back() {
        if (typing) { typing.remove(); typing = null; return; }
        if (tool !== 'adjust') { setTool('adjust'); return; }
        if (rect) { rect = null; shapes = []; draw(); return; }
        done(null);
      }

      // Keys pick the tools too (v adjust, b box, a arrow, p pen, t text,
      // z undo), except while typing in the note or a label.
      const KEYS = { v: 'adjust', b: 'box', a: 'arrow', p: 'pen', t: 'text' };

      function onKey(e) {
        const inField = e.composedPath()[0] instanceof HTMLInputElement;
        if (rect && !inField && !e.ctrlKey && !e.metaKey && !e.altKey && (KEYS[e.key] || e.key === 'z')) {
          e.preventDefault(); e.stopPropagation();
          if (e.key === 'z') { shapes.pop(); draw(); } else setTool(KEYS[e.key]);
          return;
        }
        if (e.key === 'Escape') {
          e.preventDefault(); e.stopPropagation();
          back();
        } else if (e.key === 'Enter' && !typing) {
          e.preventDefault(); e.stopPropagation();
          confirm();
        }
      }

      // label types a text annotation where the person clicked.
      function label(x, y) {
        typing = el('input', { position: 'absolute', left: (rect.x + x) + 'px', top: (rect.y + y) + 'px', width: '12em',
          color: RED, font: 'bold 16px system-ui, sans-serif' });
        root.append(typing);
        typing.focus();
        typing.addEventListener('keydown', (e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault(); e.stopPropagation();
          if (typing.value.trim()) shapes.push({ type: 'text', x, y, text: typing.value.trim() });
          typing.remove();
          typing = null;
          draw();
        });
      }

      veil.addEventListener('mousedown', (e) => {
        drag = { mode: 'draw', x0: e.clientX, y0: e.clientY };
        rect = { x: e.clientX, y: e.clientY, w: 0, h: 0 };
        shapes = [];
        draw();
      });
      box.addEventListener('mousedown', (e) => {
        e.stopPropagation();
        const hd = e.target.dataset && e.target.dataset.handle;
        const lx = e.clientX - rect.x;
        const ly = e.clientY - rect.y;
        if (hd) drag = { mode: 'resize', handle: hd, start: { ...rect }, x0: e.clientX, y0: e.clientY };
        else if (tool === 'adjust') drag = { mode: 'move', x0: e.clientX, y0: e.clientY, rx: rect.x, ry: rect.y };
        else if (tool === 'text') label(lx, ly);
        else if (tool === 'pen') drag = { mode: 'ink', shape: { type: 'pen', points: [[lx, ly]] } };
        else if (tool === 'box') drag = { mode: 'ink', x0: lx, y0: ly, shape: { type: 'box', x: lx, y: ly, w: 0, h: 0 } };
        else if (tool === 'arrow') drag = { mode: 'ink', shape: { type: 'arrow', x1: lx, y1: ly, x2: lx, y2: ly } };
      });
      root.addEventListener('mousemove', (e) => {
        if (!drag) return;
        const dx = e.clientX - (drag.x0 || 0);
        const dy = e.clientY - (drag.y0 || 0);
        if (drag.mode === 'draw') {
          rect = { x: Math.min(drag.x0, e.clientX), y: Math.min(drag.y0, e.clientY), w: Math.abs(dx), h: Math.abs(dy) };
        } else if (drag.mode === 'move') {
          rect.x = Math.max(0, drag.rx + dx);
          rect.y = Math.max(0, drag.ry + dy);
        } else if (drag.mode === 'resize') {
          const s = drag.start;
          let { x, y, w, h } = s;
          if (drag.handle.includes('w')) { x = Math.min(s.x + s.w - 4, s.x + dx); w = s.w + (s.x - x); }
          if (drag.handle.includes('e')) w = Math.max(4, s.w + dx);
          if (drag.handle.includes('n')) { y = Math.min(s.y + s.h - 4, s.y + dy); h = s.h + (s.y - y); }
          if (drag.handle.includes('s')) h = Math.max(4, s.h + dy);
          rect = { x, y, w, h };
        } else {
          const lx = e.clientX - rect.x;
          const ly = e.clientY - rect.y;
          const sh = drag.shape;
          if (sh.type === 'pen') sh.points.push([lx, ly]);
          if (sh.type === 'arrow') { sh.x2 = lx; sh.y2 = ly; }
          if (sh.type === 'box') Object.assign(sh, { x: Math.min(drag.x0, lx), y: Math.min(drag.y0, ly), w: Math.abs(lx - drag.x0), h: Math.abs(ly - drag.y0) });
        }
        draw();
      });
      root.addEventListener('mouseup', () => {
        if (drag && drag.shape) shapes.push(drag.shape);
        drag = null;
        if (rect && (rect.w < 2 || rect.h < 2)) rect = null;
        draw();
      });
      undo.addEventListener('click', () => { shapes.pop(); draw(); });
      ok.addEventListener('click', confirm);
      no.addEventListener('click', () => done(null));
      document.addEventListener('keydown', onKey, true);
      setTool('adjust');
    });
  }

  globalThis.__monkeyRegion = { pick };
})();
