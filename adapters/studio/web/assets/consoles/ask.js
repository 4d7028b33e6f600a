// SPDX-License-Identifier: Apache-2.0
// Ask (10 §6.2): a question → the answer with its evidence and the path
// it read, the date window, stored answers marked. ?q=, ?since= and
// ?until= prefill; a load never asks (a reload is not consent).

import { h, mount, field, download } from '../dom.js';
import { call } from '../api.js';
import { t } from '../i18n.js';
import { render as markdown } from '../markdown.js';
import { into, heading, allowed, needsCap, timing } from './common.js';
import * as runs from '../runs.js';

export function render(ctx) {
  if (!allowed(ctx, 'answer')) return needsCap('answer');
  const p = ctx.place.params;
  const q = h('textarea', { name: 'question', rows: 3, class: 'grow', value: p.q || '' });
  const k = h('select', { name: 'k' }, [2, 3, 6].map((n) => h('option', { value: n, selected: n === 3 }, String(n))));
  const stored = h('input', { type: 'checkbox', name: 'cache', checked: true });
  const since = h('input', { name: 'since', placeholder: 'YYYY-MM-DD', value: p.since || '', size: 10 });
  const until = h('input', { name: 'until', placeholder: 'YYYY-MM-DD', value: p.until || '', size: 10 });
  const out = h('div', { 'aria-live': 'polite' });
  const ask = () => {
    const question = q.value.trim();
    if (!question) return;
    const args = { question, k: Number(k.value) };
    if (!stored.checked) args.cache = false;
    if (since.value.trim()) args.since = since.value.trim();
    if (until.value.trim()) args.until = until.value.trim();
    into(out, async () => {
      const r = await call(ctx.forest, 'answer', args);
      const run = { question, params: args, response: r.data, ms: r.ms, timing: r.timing, time: new Date().toISOString(), model: r.data.model || '' };
      runs.save(ctx.me.principal, ctx.forest, run).then(refresh, () => mount(kept, h('p', { class: 'hint' }, t('ask.runs.unavailable'))));
      return result(ctx, r);
    });
  };
  const restore = (run) => {
    q.value = run.question;
    k.value = String(run.params.k || 3);
    stored.checked = run.params.cache !== false;
    since.value = run.params.since || '';
    until.value = run.params.until || '';
    mount(out, result(ctx, { data: run.response, ms: run.ms, timing: run.timing || {} }, run));
  };
  const kept = h('div', { class: 'card runs' });
  const refresh = () => runs.list(ctx.me.principal, ctx.forest)
    .then((list) => mount(kept, runsPanel(ctx, list, restore, refresh)), () => mount(kept, h('p', { class: 'hint' }, t('ask.runs.unavailable'))));
  refresh();
  q.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); ask(); } });
  const form = h('form', { class: 'card', onsubmit: (e) => { e.preventDefault(); ask(); } },
    field(t('ask.question'), q, t('ask.sendHint')),
    h('div', { class: 'row' }, field(t('ask.k'), k), field(t('ask.since'), since), field(t('ask.until'), until),
      h('label', { class: 'inline' }, stored, t('ask.stored'))),
    h('button', { class: 'primary', type: 'submit' }, t('ask.submit')));
  return h('section', null, heading(t('shell.console.ask')), form, out, kept);
}

// runsPanel lists the kept runs by day, with restore, clear and export.
function runsPanel(ctx, list, restore, refresh) {
  const days = new Map();
  for (const run of list) {
    const day = new Date(run.time).toLocaleDateString();
    if (!days.has(day)) days.set(day, []);
    days.get(day).push(run);
  }
  return [h('h2', null, t('ask.runs')), h('p', { class: 'hint' }, t('ask.runs.bound', { n: list.length, max: runs.bounds.runs, mib: runs.bounds.mib })),
    h('div', { class: 'row' },
      h('button', { type: 'button', disabled: !list.length, onclick: () => runs.clear(ctx.me.principal, ctx.forest).then(refresh) }, t('ask.runs.clear')),
      h('button', { type: 'button', disabled: !list.length, onclick: () => download(`ask-runs-${ctx.forest}.json`, JSON.stringify(list, null, 2), 'application/json') }, t('ask.runs.export'))),
    [...days].map(([day, items]) => h('section', null, h('h3', null, day), h('ul', { class: 'plain' }, items.map((run) => h('li', { class: 'row' },
      h('span', { class: 'meta' }, new Date(run.time).toLocaleTimeString()), h('span', { class: 'grow' }, run.question),
      h('button', { type: 'button', 'data-restore': String(run.id), onclick: () => restore(run) }, t('ask.runs.restore')))))))];
}

function result(ctx, r, restored) {
  const a = r.data;
  const ev = new Set(a.evidence || []);
  const sources = a.sources || [];
  return h('div', { class: 'cols', 'data-answer': 'true' },
    h('article', { class: 'card' },
      h('div', { class: 'row' }, restored ? h('span', { class: 'badge', 'data-restored': 'true' }, t('ask.runs.restored', { time: new Date(restored.time).toLocaleString() })) : null,
        a.model ? h('span', { class: 'badge' }, a.model) : null,
        a.cached ? h('span', { class: 'badge stored', title: a.cached_at || '' }, t('ask.storedBadge')) : null,
        a.window ? h('span', { class: 'badge' }, t('ask.window', { since: a.window.since || '…', until: a.window.until || '…' })) : null),
      a.reason ? h('p', { class: 'error' }, a.reason) : null,
      markdown(a.answer || '', { forest: ctx.forest, nodeLink: ctx.nodeLink }), timing(r)),
    h('aside', null,
      h('div', { class: 'card' }, h('h2', null, t('ask.evidence')), sources.length ? h('ol', { class: 'plain results' }, sources.map((s) => h('li', null,
        ctx.nodeLink(s.id, s.title || s.id), ' ', h('span', { class: 'badge' }, s.type || ''),
        h('div', { class: 'meta' }, s.summary || ''),
        s.trail && s.trail.length ? h('div', { class: 'meta' }, t('ask.trail'), ' ', s.trail.join(' › ')) : null)))
        : h('ul', null, [...ev].map((id) => h('li', null, ctx.nodeLink(id, id))))),
      a.read && a.read.length ? h('div', { class: 'card' }, h('h2', null, t('ask.path')),
        h('ol', null, a.read.map((n) => h('li', null, ctx.nodeLink(n.id, n.title || n.id))))) : null,
      a.hops && a.hops.length ? h('div', { class: 'card' }, h('h2', null, t('ask.hops')),
        h('ol', null, a.hops.map((hp) => h('li', null, `${hp.tool || ''} ${hp.error ? '— ' + hp.error : ''}`)))) : null));
}
