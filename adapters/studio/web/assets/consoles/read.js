// SPDX-License-Identifier: Apache-2.0
// Read (10 §6.4): without ?node= a finder (locate k 8); with a node, look
// and the export in parallel, the body rendered safely (never through
// pick), the passport, outline, edges and history.

import { h, download } from '../dom.js';
import { call, forestGet, forestBlob, nodePath } from '../api.js';
import { t } from '../i18n.js';
import { link, go } from '../router.js';
import { render as markdown, stripFrontmatter, slug } from '../markdown.js';
import { into, heading, allowed, needsCap, resultList, refusal } from './common.js';
import { sharePanel } from './share.js';

export function render(ctx) {
  if (!allowed(ctx, 'read')) return needsCap('read');
  const id = ctx.place.params.node;
  return id ? node(ctx, id) : finder(ctx);
}

function finder(ctx) {
  const q = h('input', { type: 'search', class: 'grow', name: 'q', 'aria-label': t('read.find') });
  const out = h('div');
  const form = h('form', { class: 'row', role: 'search', onsubmit: (e) => {
    e.preventDefault();
    into(out, async () => resultList(ctx, (await call(ctx.forest, 'locate', { query: q.value, k: 8 })).data.results));
  } }, q, h('button', { class: 'primary', type: 'submit' }, t('read.findButton')));
  return h('section', null, heading(t('shell.console.read')), h('div', { class: 'card' }, form), out);
}

function node(ctx, id) {
  const body = h('div');
  into(body, async () => {
    const [look, exp, hist] = await Promise.all([
      call(ctx.forest, 'look', { id }),
      forestGet(ctx.forest, `export/${nodePath(id)}`),
      call(ctx.forest, 'history', { id }).catch(() => null),
    ]);
    return page(ctx, look.data, String(exp.data), hist && hist.data);
  });
  return h('section', null, body);
}

function page(ctx, p, raw, hist) {
  const leaf = p.id.split('/').pop() || 'node';
  const text = stripFrontmatter(raw);
  const actions = h('div', { class: 'row' },
    h('button', { type: 'button', onclick: () => navigator.clipboard && navigator.clipboard.writeText(raw) }, t('read.copy')),
    h('button', { type: 'button', onclick: () => download(`${leaf}.md`, raw) }, t('read.download')),
    link({ forest: ctx.forest, console: 'explore', params: { node: p.id } }, { class: 'button' }, t('read.openExplore')),
    files(ctx, p, leaf),
    h('button', { type: 'button', onclick: () => go({ forest: ctx.forest, console: 'read', params: {} }) }, t('read.close')));
  const edges = [...(p.edges_out || []).map((e) => ({ rel: e.rel, id: e.target, dir: '→' })), ...(p.edges_in || []).map((e) => ({ rel: e.rel, id: e.source, dir: '←' }))];
  const side = h('aside', null,
    h('div', { class: 'card' }, h('h2', null, t('read.passport')), h('dl', { class: 'facts' },
      fact(t('read.id'), p.id), fact(t('read.type'), p.type), fact(t('read.created'), p.created), fact(t('read.updated'), p.updated),
      fact(t('read.source'), p.source), fact(t('read.tags'), (p.tags || []).join(', ')), fact(t('read.tokens'), p.stats && p.stats.body_tokens),
      fact(t('read.heat'), p.stats && p.stats.heat))),
    p.outline && p.outline.length ? h('nav', { class: 'card', 'aria-label': t('read.outline') }, h('h2', null, t('read.outline')),
      h('ul', null, p.outline.map((s) => h('li', null, h('a', { href: `#${slug(s)}`, onclick: toHeading }, s))))) : null,
    h('div', { class: 'card' }, h('h2', null, t('read.edges')), edges.length
      ? h('ul', null, edges.map((e) => h('li', null, `${e.dir} ${e.rel} `, ctx.nodeLink(e.id, e.id))))
      : h('p', { class: 'hint' }, t('read.noEdges'))),
    sharePanel(ctx, p.id),
    hist ? h('div', { class: 'card' }, h('h2', null, t('read.history')), h('ul', null, (hist.entries || []).map((e) =>
      h('li', null, h('code', null, String(e.commit).slice(0, 7)), ` ${e.at} ${e.message}`)))) : null);
  return h('div', null, heading(p.title || p.id), h('p', { class: 'meta' }, p.summary), actions,
    h('div', { class: 'cols' }, h('article', { class: 'card' }, markdown(text, { forest: ctx.forest, nodeLink: ctx.nodeLink })), side));
}

// toHeading scrolls without touching the address (the router owns it).
function toHeading(e) {
  const el = document.getElementById(e.currentTarget.getAttribute('href').slice(1));
  if (!el) return;
  e.preventDefault();
  el.scrollIntoView();
}

const fact = (k, v) => (v == null || v === '' ? null : [h('dt', null, k), h('dd', null, String(v))]);

// files are the downloads beyond the node's markdown: a branch zipped
// with everything under it (export ?recursive=true), and the payload of
// a dataset or media node, each fetched with the viewer's key.
function files(ctx, p, leaf) {
  const msg = h('span', { 'aria-live': 'polite' });
  const fetchAs = (rest, name) => async (e) => {
    const b = e.currentTarget;
    b.disabled = true;
    try {
      const got = await forestBlob(ctx.forest, rest, name);
      download(got.name, got.blob);
      msg.replaceChildren();
    } catch (err) {
      msg.replaceChildren(refusal(err));
    } finally {
      b.disabled = false;
    }
  };
  const branch = p.id === '_index' || p.id.endsWith('/_index');
  const payload = (p.type === 'dataset' || p.type === 'media') && !p.payload_missing;
  const base = branch ? (p.id.split('/').slice(-2, -1)[0] || ctx.forest) : leaf;
  return [
    branch ? h('button', { type: 'button', class: 'export-branch', onclick: fetchAs(`export/${nodePath(p.id)}?recursive=true`, `${base}.zip`) }, t('read.exportBranch')) : null,
    payload ? h('button', { type: 'button', class: 'payload-download', onclick: fetchAs(`payload/${nodePath(p.id)}`, p.type === 'dataset' ? `${leaf}.db` : leaf) }, t('read.payload')) : null,
    msg];
}
