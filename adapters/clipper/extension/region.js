// SPDX-License-Identifier: Apache-2.0

// The region picker, injected on a gesture into the extension's isolated
// world of the tab and removed when done: draw a rectangle, move it by
// dragging inside, type an optional note, then Enter or Capture confirms
// and Esc backs out one layer (the rectangle, then the picker). Only the
// rectangle leaves the tab; the worker crops the capture.
(() => {
  const WAIT_MS = 180000;

  function css(el, props) {
    for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v, 'important');
    return el;
  }

  function pick(labels) {
    return new Promise((resolve) => {
      const host = css(document.createElement('div'), { position: 'fixed', inset: '0', 'z-index': '2147483647' });
      const root = host.attachShadow({ mode: 'closed' });
      const veil = css(document.createElement('div'), { position: 'absolute', inset: '0', cursor: 'crosshair', background: 'rgba(0,0,0,0.15)' });
      const box = css(document.createElement('div'), { position: 'absolute', display: 'none', border: '2px solid #d93025', background: 'rgba(255,255,255,0.08)', cursor: 'move' });
      const bar = css(document.createElement('div'), { position: 'absolute', display: 'none', gap: '6px', padding: '6px', background: '#fff', color: '#111', font: '13px system-ui, sans-serif', 'border-radius': '6px', 'box-shadow': '0 2px 8px rgba(0,0,0,.3)' });
      const note = document.createElement('input');
      note.placeholder = labels.note;
      note.setAttribute('aria-label', labels.note);
      const ok = document.createElement('button');
      ok.textContent = labels.capture;
      const no = document.createElement('button');
      no.textContent = labels.cancel;
      bar.append(note, ok, no);
      const hint = css(document.createElement('div'), { position: 'absolute', top: '12px', left: '50%', transform: 'translateX(-50%)', padding: '6px 10px', background: '#111', color: '#fff', font: '13px system-ui, sans-serif', 'border-radius': '6px' });
      hint.textContent = labels.hint;
      root.append(veil, box, bar, hint);
      document.documentElement.appendChild(host);

      let rect = null;
      let drag = null;
      const timer = setTimeout(() => done(null), WAIT_MS);

      function draw() {
        if (!rect) { css(box, { display: 'none' }); css(bar, { display: 'none' }); return; }
        css(box, { display: 'block', left: rect.x + 'px', top: rect.y + 'px', width: rect.w + 'px', height: rect.h + 'px' });
        const below = rect.y + rect.h + 48 < window.innerHeight;
        css(bar, { display: 'flex', left: rect.x + 'px', top: (below ? rect.y + rect.h + 8 : Math.max(8, rect.y - 44)) + 'px' });
      }

      function done(value) {
        clearTimeout(timer);
        document.removeEventListener('keydown', onKey, true);
        host.remove();
        // Two frames so the overlay is gone from the pixels captured next.
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(value)));
      }

      function confirm() {
        if (!rect || rect.w < 2 || rect.h < 2) return;
        done({ x: rect.x, y: rect.y, w: rect.w, h: rect.h, vw: window.innerWidth, vh: window.innerHeight, note: note.value.trim() });
      }

      function onKey(e) {
        if (e.key === 'Escape') {
          e.preventDefault(); e.stopPropagation();
          if (rect) { rect = null; draw(); } else done(null);
        } else if (e.key === 'Enter') {
          e.preventDefault(); e.stopPropagation();
          confirm();
        }
      }

      veil.addEventListener('mousedown', (e) => {
        drag = { mode: 'draw', x0: e.clientX, y0: e.clientY };
        rect = { x: e.clientX, y: e.clientY, w: 0, h: 0 };
        draw();
      });
      box.addEventListener('mousedown', (e) => {
        drag = { mode: 'move', x0: e.clientX, y0: e.clientY, rx: rect.x, ry: rect.y };
        e.stopPropagation();
      });
      root.addEventListener('mousemove', (e) => {
        if (!drag) return;
        if (drag.mode === 'draw') {
          rect = { x: Math.min(drag.x0, e.clientX), y: Math.min(drag.y0, e.clientY), w: Math.abs(e.clientX - drag.x0), h: Math.abs(e.clientY - drag.y0) };
        } else {
          rect.x = Math.max(0, drag.rx + e.clientX - drag.x0);
          rect.y = Math.max(0, drag.ry + e.clientY - drag.y0);
        }
        draw();
      });
      root.addEventListener('mouseup', () => { drag = null; if (rect && (rect.w < 2 || rect.h < 2)) { rect = null; draw(); } });
      ok.addEventListener('click', confirm);
      no.addEventListener('click', () => done(null));
      document.addEventListener('keydown', onKey, true);
    });
  }

  globalThis.__monkeyRegion = { pick };
})();
