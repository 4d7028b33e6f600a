// SPDX-License-Identifier: Apache-2.0
// Explore (10 §6.3): search (locate and sniff together) and the forest's
// map from GET …/graph, drawn as a graph (colour = home branch, radius =
// degree, glow = heat as received) or listed as files. ?mode= and ?node=
// live in the address; view settings never do.

import { h, mount } from '../dom.js';
import { call, forestGet } from '../api.js';
import { t } from '../i18n.js';
import { link, adjust, go, mark, place } from '../router.js';
import { into, heading, allowed, needsCap, resultList } from './common.js';
import { drawGraph } from '../graph.js';

const MODES = ['graph', 'files'];

export function render(ctx) {
  if (!allowed(ctx, 'read')) return needsCap('read');
  const mode = MODES.includes(ctx.place.params.mode) ? ctx.place.params.mode : 'graph';
  const switchTo = (m) => {
    // The selection survives a mode change, and the projection is reused.
    const now = place();
    reuse = true;
    adjust({ ...now, params: { ...now.params, mode: m === 'graph' ? '' : m } });
  };
  const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': t('explore.mode') }, MODES.map((m) =>
    h('button', { type: 'button', 'aria-pressed': String(m === mode), onclick: () => switchTo(m) }, t(`explore.mode.${m}`))));
  const view = h('div');
  into(view, async () => {
    const g = await projection(ctx.forest);
    return mode === 'files' ? files(ctx, g) : graph(ctx, g);
  });
  return h('section', null, heading(t('shell.console.explore')), search(ctx), tabs, view);
}

// Graph and files share one GET …/graph (10 §6.3): a mode change reuses
// the projection just read; any other render reads it afresh.
let shared = null;
let reuse = false;

function projection(forest) {
  if (!(reuse && shared && shared.forest === forest)) shared = { forest, data: forestGet(forest, 'graph?limit=500').then((r) => r.data) };
  reuse = false;
  shared.data.catch(() => { shared = null; });
  return shared.data;
}

// search runs locate {k: 8}, sniff {k: 6} and harvest {k: 5} together:
// entry points by scent, literal hits in bodies, and the sweep's bundle.
function search(ctx) {
  const q = h('input', { type: 'search', class: 'grow', name: 'q', 'aria-label': t('explore.search') });
  const out = h('div');
  const form = h('form', { class: 'row', role: 'search', onsubmit: (e) => {
    e.preventDefault();
    const query = q.value.trim();
    if (!query) return;
    into(out, async () => {
      const terms = query.split(/\s+/).filter(Boolean).slice(0, 8);
      const [loc, sn, hv] = await Promise.all([call(ctx.forest, 'locate', { query, k: 8 }), call(ctx.forest, 'sniff', { terms, k: 6 }),
        call(ctx.forest, 'harvest', { query, k: 5 })]);
      return h('div', { class: 'cols three' },
        h('div', { class: 'card' }, h('h2', null, t('explore.locate')), resultList(ctx, loc.data.results)),
        h('div', { class: 'card' }, h('h2', null, t('explore.sniff')), resultList(ctx, sn.data.results)),
        h('div', { class: 'card' }, h('h2', null, t('explore.harvest')), resultList(ctx, hv.data.results)));
    });
  } }, q, h('button', { class: 'primary', type: 'submit' }, t('explore.searchButton')));
  return h('div', { class: 'card' }, form, out);
}

function graph(ctx, g) {
  const card = h('div', { class: 'card', 'data-selected': '' });
  const canvas = h('canvas', { class: 'graph', role: 'img', 'aria-label': t('explore.graphLabel', { nodes: g.nodes.length, edges: g.edges.length }), 'aria-describedby': 'graph-keys' });
  const legend = h('div', { class: 'legend', 'aria-label': t('explore.legend') });
  const show = (n) => mount(card, n ? [h('strong', null, n.title || n.id), h('div', { class: 'meta' }, n.id), h('p', null, n.summary || ''),
    link({ forest: ctx.forest, console: 'read', params: { node: n.id } }, null, t('explore.open'))] : h('p', { class: 'hint' }, t('explore.pick')));
  // Selecting moves (10 §3): the address gains ?node=, pushed.
  const select = (n) => {
    show(n);
    const now = place();
    if (n && now.params.node !== n.id) mark({ ...now, params: { ...now.params, node: n.id } });
  };
  show(null);
  const wrap = h('div', { class: 'graph-wrap' }, canvas, legend, h('p', { class: 'meta', id: 'graph-keys' }, t('explore.colourBy'), ' ', t('explore.keys')), card,
    g.truncated ? h('p', { class: 'hint' }, t('explore.truncated')) : null);
  requestAnimationFrame(() => drawGraph(canvas, g, { legend, selected: ctx.place.params.node, onSelect: select, onInitial: show,
    onOpen: (n) => go({ forest: ctx.forest, console: 'read', params: { node: n.id } }) }));
  return wrap;
}

// files lists the projection's nodes by branch, payloads beside them.
function files(ctx, g) {
  const byParent = new Map();
  for (const n of g.nodes) {
    const dir = n.id.includes('/') ? n.id.slice(0, n.id.lastIndexOf('/')) : '';
    if (!byParent.has(dir)) byParent.set(dir, []);
    byParent.get(dir).push(n);
  }
  const dirs = [...byParent.keys()].sort();
  return h('div', { class: 'card' }, dirs.map((d) => h('section', null, h('h2', null, `${d || '/'}/`),
    h('ul', null, byParent.get(d).sort((a, b) => a.id.localeCompare(b.id)).map((n) => h('li', null,
      ctx.nodeLink(n.id, `${n.id.slice(d.length ? d.length + 1 : 0)}.md`), n.payload ? h('span', { class: 'meta' }, ` + ${n.payload}`) : null,
      h('span', { class: 'meta' }, ` — ${n.title || ''}`)))))));
}
