// SPDX-License-Identifier: Apache-2.0
// The graph view's drawing (10 §6.3): a force layout seeded
// deterministically per branch, run to rest before the first paint (so
// reduced motion needs nothing more), then drawn once on a canvas.
// Colour = home branch, radius = degree as the response gives it, glow =
// heat as received; proposals (confidence < 1) hidden by default.

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#ff7f0e', '#7f7f7f'];

// hash is a small stable string hash for seeding.
function hash(s) {
  let x = 2166136261;
  for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), 16777619);
  return (x >>> 0) / 4294967296;
}

const home = (id) => (id.includes('/') ? id.slice(0, id.indexOf('/')) : id);

// layout places nodes: branches start on a circle by home, members
// near their home; then springs, repulsion and centring settle them.
export function layout(nodes, edges, steps = 220) {
  const homes = [...new Set(nodes.map((n) => home(n.id)))].sort();
  const pos = new Map();
  nodes.forEach((n) => {
    const a = (homes.indexOf(home(n.id)) / Math.max(1, homes.length)) * 2 * Math.PI;
    const j = hash(n.id);
    pos.set(n.id, { x: Math.cos(a) * 200 + (j - 0.5) * 60, y: Math.sin(a) * 200 + (hash(n.id + '~') - 0.5) * 60, vx: 0, vy: 0 });
  });
  const links = edges.filter((e) => pos.has(e.src) && pos.has(e.dst));
  const degree = new Map();
  for (const e of links) for (const k of [e.src, e.dst]) degree.set(k, (degree.get(k) || 0) + 1);
  const ps = [...pos.values()];
  for (let s = 0; s < steps; s++) {
    const cool = 1 - s / steps;
    for (let i = 0; i < ps.length; i++) for (let j = i + 1; j < ps.length; j++) {
      const a = ps[i], b = ps[j];
      let dx = a.x - b.x, dy = a.y - b.y;
      const d2 = dx * dx + dy * dy + 0.01;
      if (d2 > 90000) continue;
      const f = 600 / d2;
      a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
    }
    for (const e of links) {
      const a = pos.get(e.src), b = pos.get(e.dst);
      const dx = b.x - a.x, dy = b.y - a.y;
      const k = 0.02 / Math.sqrt(Math.max(1, Math.min(degree.get(e.src), degree.get(e.dst))));
      a.vx += dx * k; a.vy += dy * k; b.vx -= dx * k; b.vy -= dy * k;
    }
    for (const p of ps) {
      p.vx -= p.x * 0.005; p.vy -= p.y * 0.005;
      p.x += Math.max(-20, Math.min(20, p.vx)) * cool; p.y += Math.max(-20, Math.min(20, p.vy)) * cool;
      p.vx *= 0.6; p.vy *= 0.6;
    }
  }
  return pos;
}

// drawGraph lays out and paints the projection; clicks select a node.
export function drawGraph(canvas, g, opt) {
  const nodes = g.nodes;
  const edges = (g.edges || []).filter((e) => e.confidence == null || e.confidence >= 1);
  const pos = layout(nodes, edges);
  const homes = [...new Set(nodes.map((n) => home(n.id)))].sort();
  const colour = (id) => PALETTE[homes.indexOf(home(id)) % PALETTE.length];
  const css = getComputedStyle(document.documentElement);
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, hgt = canvas.clientHeight;
  canvas.width = w * dpr; canvas.height = hgt * dpr;
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (const p of pos.values()) { minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x); minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y); }
  const scale = Math.min((w - 40) / Math.max(1, maxX - minX), (hgt - 40) / Math.max(1, maxY - minY));
  const ox = (w - (maxX - minX) * scale) / 2, oy = (hgt - (maxY - minY) * scale) / 2;
  const at = (p) => ({ x: ox + (p.x - minX) * scale, y: oy + (p.y - minY) * scale });
  const radius = (n) => 3 + Math.sqrt(n.degree || 0) * 2;
  const paint = (selected) => {
    ctx.clearRect(0, 0, w, hgt);
    ctx.strokeStyle = css.getPropertyValue('--line');
    ctx.lineWidth = 1;
    for (const e of edges) {
      const a = pos.get(e.src), b = pos.get(e.dst);
      if (!a || !b) continue;
      const p = at(a), q = at(b);
      ctx.setLineDash(e.rel === 'discovered-shortcut' ? [4, 3] : []);
      ctx.beginPath(); ctx.moveTo(p.x, p.y); ctx.lineTo(q.x, q.y); ctx.stroke();
    }
    ctx.setLineDash([]);
    for (const n of nodes) {
      const p = at(pos.get(n.id));
      if (n.heat > 0) {
        ctx.shadowColor = `rgba(${css.getPropertyValue('--glow')}, ${Math.min(1, 0.3 + n.heat / 10)})`;
        ctx.shadowBlur = 6 + Math.min(18, n.heat * 2);
      }
      ctx.fillStyle = colour(n.id);
      ctx.beginPath(); ctx.arc(p.x, p.y, radius(n), 0, 2 * Math.PI); ctx.fill();
      ctx.shadowBlur = 0;
      if (n.id === selected) { ctx.strokeStyle = css.getPropertyValue('--focus'); ctx.lineWidth = 3; ctx.stroke(); ctx.lineWidth = 1; }
    }
  };
  const initial = nodes.find((n) => n.id === opt.selected);
  paint(opt.selected);
  if (initial) (opt.onInitial || opt.onSelect)(initial);
  canvas.dataset.nodes = String(nodes.length);
  canvas.dataset.drawn = 'true';
  canvas.addEventListener('click', (ev) => {
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    let best = null, bd = 144;
    for (const n of nodes) { const p = at(pos.get(n.id)); const d = (p.x - x) ** 2 + (p.y - y) ** 2; if (d < bd) { bd = d; best = n; } }
    paint(best && best.id);
    cursor = best ? order.indexOf(best) : -1;
    opt.onSelect(best);
  });
  // Keyboard: arrows walk the nodes in id order, Enter opens the one selected.
  const order = [...nodes].sort((a, b) => a.id.localeCompare(b.id));
  let cursor = initial ? order.indexOf(initial) : -1;
  canvas.tabIndex = 0;
  canvas.addEventListener('keydown', (ev) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
    if (step) {
      ev.preventDefault();
      cursor = (cursor + step + order.length) % order.length;
      paint(order[cursor].id);
      opt.onSelect(order[cursor]);
    } else if (ev.key === 'Enter' && cursor >= 0 && opt.onOpen) {
      opt.onOpen(order[cursor]);
    }
  });
  opt.legend.replaceChildren(...homes.map((k) => {
    const s = document.createElement('span');
    const dot = document.createElement('i');
    dot.style.background = colour(k);
    s.append(dot, k);
    return s;
  }));
}
