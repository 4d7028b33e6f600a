// SPDX-License-Identifier: Apache-2.0
// Audit (10 §6.11): GET /v1/admin/audit with every filter in the
// address; the filter choices are the response's own `filters` and the
// four cards its `totals`, computed by the host over the whole filtered
// set, never summed from the page.

import { h, field } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { adjust } from '../router.js';
import { into, heading, allowed, needsCap } from './common.js';

const FILTERS = ['principal', 'forest', 'primitive', 'via', 'result', 'errors', 'since', 'until', 'limit'];
const FACETS = { principal: 'principals', forest: 'forests', primitive: 'primitives', via: 'vias', result: 'results' };
const LIMITS = ['50', '100', '200', '500'];

export function render(ctx) {
  if (!allowed(ctx, 'admin')) return needsCap('admin');
  const f = {};
  for (const k of FILTERS) if (ctx.place.params[k]) f[k] = ctx.place.params[k];
  const body = h('div');
  into(body, async () => page(ctx, f, (await api('GET', `/v1/admin/audit?${new URLSearchParams(f)}`)).data));
  return h('section', null, heading(t('shell.console.audit')), h('p', { class: 'hint' }, t('audit.note')), body);
}

// apply puts the filters in the address; the address renders them.
function apply(ctx, f) {
  const params = { ...ctx.place.params };
  for (const k of FILTERS) params[k] = f[k] || '';
  adjust({ ...ctx.place, params });
}

function page(ctx, f, data) {
  return h('div', null, filters(ctx, f, data.filters || {}), totals(data.totals || {}), table(data.entries || []));
}

function filters(ctx, f, facets) {
  const sel = (k) => {
    const values = facets[FACETS[k]] || [];
    const s = h('select', { name: k, onchange: () => apply(ctx, { ...f, [k]: s.value }) },
      h('option', { value: '' }, t('audit.any')),
      [...new Set([...values, ...(f[k] ? [f[k]] : [])])].map((v) => h('option', { value: v, selected: v === f[k] }, v)));
    return field(t(`audit.f.${k}`), s);
  };
  const since = h('input', { name: 'since', value: f.since || '', placeholder: 'YYYY-MM-DD', size: 10 });
  const until = h('input', { name: 'until', value: f.until || '', placeholder: 'YYYY-MM-DD', size: 10 });
  const errors = h('input', { type: 'checkbox', name: 'errors', checked: f.errors === 'true',
    onchange: () => apply(ctx, { ...f, errors: errors.checked ? 'true' : '' }) });
  const limit = h('select', { name: 'limit', onchange: () => apply(ctx, { ...f, limit: limit.value === '100' ? '' : limit.value }) },
    LIMITS.map((v) => h('option', { value: v, selected: v === (f.limit || '100') }, v)));
  return h('form', { class: 'card audit-filters', onsubmit: (e) => { e.preventDefault(); apply(ctx, { ...f, since: since.value.trim(), until: until.value.trim() }); } },
    h('div', { class: 'row' }, sel('principal'), sel('forest'), sel('primitive'), sel('via'), sel('result'),
      field(t('audit.f.since'), since), field(t('audit.f.until'), until), field(t('audit.f.limit'), limit)),
    h('div', { class: 'row' }, h('label', { class: 'inline' }, errors, t('audit.f.errors')),
      h('button', { type: 'submit' }, t('audit.apply')),
      h('button', { type: 'button', onclick: () => apply(ctx, {}) }, t('audit.clear'))));
}

const money = (v) => (v == null ? '—' : `$${v.toFixed(4)}`);

function totals(x) {
  const card = (k, v) => h('div', { class: 'card total', 'data-total': k }, h('div', { class: 'meta' }, t(`audit.total.${k}`)), h('strong', null, v));
  return h('div', { class: 'totals' }, card('calls', String(x.calls ?? 0)), card('errors', String(x.errors ?? 0)),
    card('spent', money(x.spent_usd)), card('saved', money(x.avoided_usd)));
}

function table(entries) {
  if (!entries.length) return h('p', { class: 'card hint' }, t('audit.none'));
  const cols = ['when', 'who', 'call', 'via', 'forest', 'result', 'size', 'ms', 'cost', 'commit', 'args'];
  return h('div', { class: 'card' }, h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('shell.console.audit') },
    h('table', { class: 'grid wide audit' },
      h('thead', null, h('tr', null, cols.map((c) => h('th', { scope: 'col' }, t(`audit.col.${c}`))))),
      h('tbody', null, entries.map((e) => h('tr', { 'data-row': e.principal },
        h('td', { class: 'ts' }, when(e.ts)), h('td', null, e.principal), h('td', null, e.primitive),
        // via is the extension that acted; a row without one (or older
        // than the column) shows nothing, never "no extension".
        h('td', { 'data-via': e.via || '' }, e.via || ''), h('td', null, e.forest),
        h('td', null, h('span', { class: `badge result-${e.result}` }, e.error_code || e.result)),
        h('td', null, e.size == null ? '' : String(e.size)), h('td', null, e.ms == null ? '' : e.ms.toFixed(1)),
        h('td', null, e.cost_usd == null ? '' : money(e.cost_usd)), h('td', null, e.commit_sha ? h('code', null, e.commit_sha.slice(0, 7)) : ''),
        h('td', { class: 'args' }, digest(e.args))))))));
}

// digest shows the stored argument digest as key=value pairs.
function digest(args) {
  if (args == null) return '';
  if (typeof args !== 'object') return String(args);
  return Object.entries(args).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join('  ');
}

// when is the row's UTC time without the ISO punctuation.
const when = (ts) => String(ts || '').replace('T', ' ').replace(/(\.\d+)?Z$/, '');
