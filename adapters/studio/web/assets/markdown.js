// SPDX-License-Identifier: Apache-2.0
// Untrusted text (10 §8): a small markdown renderer that builds DOM
// nodes and sets only textContent and vetted attributes, so no forest
// body or model output can become markup or script. External http(s)
// links open in a new tab without referrer; an image is shown only when
// it is a media: node the console fetches itself, with the viewer's key,
// into a blob: URL; [[wikilinks]] become console node links.

import { h } from './dom.js';
import { getKey, nodePath } from './api.js';

// render turns markdown into a fragment. ctx: {forest, nodeLink(id, text)}.
export function render(src, ctx = {}) {
  const root = h('div', { class: 'md' });
  const lines = String(src || '').replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) i = block(root, lines, i, ctx);
  return root;
}

// stripFrontmatter drops a leading YAML block.
export function stripFrontmatter(text) {
  const m = String(text).match(/^---\n[\s\S]*?\n---\n?/);
  return m ? text.slice(m[0].length) : text;
}

function block(root, lines, i, ctx) {
  const line = lines[i];
  let m;
  if (!line.trim()) return i + 1;
  if ((m = line.match(/^(```|~~~)\s*([\w-]*)/))) {
    const body = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith(m[1])) body.push(lines[j++]);
    root.append(h('pre', null, h('code', m[2] ? { 'data-lang': m[2] } : null, body.join('\n'))));
    return j + 1;
  }
  if ((m = line.match(/^(#{1,6})\s+(.*)$/))) {
    const el = h(`h${Math.min(6, m[1].length + 1)}`, { id: slug(m[2]) });
    inline(el, m[2], ctx);
    root.append(el);
    return i + 1;
  }
  if (/^(\s*[-*_]){3,}\s*$/.test(line)) { root.append(h('hr')); return i + 1; }
  if (line.startsWith('>')) return quote(root, lines, i, ctx);
  if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) return list(root, lines, i, ctx);
  if (line.trim().startsWith('|') && i + 1 < lines.length && /^\s*\|?\s*:?-+/.test(lines[i + 1])) return table(root, lines, i, ctx);
  const para = [];
  while (i < lines.length && lines[i].trim() && !/^(#{1,6}\s|```|~~~|>|\s*([-*+]|\d+[.)])\s+)/.test(lines[i])) para.push(lines[i++]);
  if (!para.length) para.push(lines[i++]);
  root.append(inline(h('p'), para.join(' '), ctx));
  return i;
}

function quote(root, lines, i, ctx) {
  const body = [];
  while (i < lines.length && lines[i].startsWith('>')) body.push(lines[i++].replace(/^>\s?/, ''));
  const q = h('blockquote');
  let j = 0;
  while (j < body.length) j = block(q, body, j, ctx);
  root.append(q);
  return i;
}

function list(root, lines, i, ctx) {
  const ordered = /^\s*\d+[.)]/.test(lines[i]);
  const el = h(ordered ? 'ol' : 'ul');
  while (i < lines.length) {
    const m = lines[i].match(/^\s*(?:[-*+]|\d+[.)])\s+(.*)$/);
    if (!m) break;
    const li = h('li');
    const task = m[1].match(/^\[([ xX])\]\s+(.*)$/);
    if (task) li.append(h('input', { type: 'checkbox', disabled: true, checked: task[1] !== ' ', 'aria-label': 'task' }), ' ');
    inline(li, task ? task[2] : m[1], ctx);
    el.append(li);
    i++;
  }
  root.append(el);
  return i;
}

function table(root, lines, i, ctx) {
  const cells = (l) => l.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
  const t = h('table');
  t.append(h('thead', null, h('tr', null, cells(lines[i]).map((c) => inline(h('th', { scope: 'col' }), c, ctx)))));
  const body = h('tbody');
  i += 2;
  while (i < lines.length && lines[i].trim().startsWith('|')) body.append(h('tr', null, cells(lines[i++]).map((c) => inline(h('td'), c, ctx))));
  t.append(body);
  root.append(t);
  return i;
}

// One token at a time: code, image, link, wikilink, bold, italic.
const INLINE = /(`+)([\s\S]*?)\1|!\[([^\]]*)\]\(([^)\s]+)[^)]*\)|\[\[([^\]|]+)(?:\|([^\]]+))?\]\]|\[([^\]]+)\]\(([^)\s]+)[^)]*\)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|_([^_\s][^_]*?)_/;

function inline(el, text, ctx) {
  let rest = text;
  while (rest) {
    const m = rest.match(INLINE);
    if (!m) { el.append(rest); break; }
    if (m.index) el.append(rest.slice(0, m.index));
    el.append(token(m, ctx));
    rest = rest.slice(m.index + m[0].length);
  }
  return el;
}

function token(m, ctx) {
  if (m[1]) return h('code', null, m[2]);
  if (m[4] !== undefined) return image(m[3], m[4], ctx);
  if (m[5]) return ctx.nodeLink ? ctx.nodeLink(m[5].trim(), m[6] || m[5]) : document.createTextNode(m[6] || m[5]);
  if (m[8]) return anchor(m[7], m[8], ctx);
  if (m[9] || m[10]) return inline(h('strong'), m[9] || m[10], ctx);
  return inline(h('em'), m[11] || m[12], ctx);
}

function anchor(text, url, ctx) {
  if (/^https?:\/\//i.test(url)) return inline(h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }), text, ctx);
  if (url.startsWith('#')) return inline(h('a', { href: url }), text, ctx);
  return inline(h('span', { class: 'link-dropped', title: url }), text, ctx);
}

// image resolves only media:<id> through the payload route; any other
// source is dropped and its caption kept.
function image(caption, src, ctx) {
  const fig = h('figure', { class: 'media' }, h('figcaption', null, caption));
  const id = src.startsWith('media:') ? src.slice(6) : '';
  if (id && ctx.forest) resolveMedia(fig, ctx.forest, id, caption);
  return fig;
}

// live are the blob: URLs of the console on screen, revoked when it goes.
const live = new Set();

// releaseMedia revokes every media URL made so far (on unmount).
export function releaseMedia() {
  for (const url of live) URL.revokeObjectURL(url);
  live.clear();
}

async function resolveMedia(fig, forest, id, caption) {
  try {
    const res = await fetch(`/v1/forests/${encodeURIComponent(forest)}/payload/${nodePath(id)}`, { headers: { Authorization: `Bearer ${getKey()}` } });
    if (!res.ok || !(res.headers.get('Content-Type') || '').startsWith('image/')) return;
    const url = URL.createObjectURL(await res.blob());
    live.add(url);
    fig.prepend(h('img', { src: url, alt: caption }));
  } catch { /* caption only, never an error */ }
}

export function slug(s) {
  return 'h-' + String(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '');
}
