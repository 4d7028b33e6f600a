// SPDX-License-Identifier: Apache-2.0
// Data (10 §6.7): the datasets the key reaches (scan, type dataset), a
// selected dataset's tables from look, and a query editor with a results
// table. Reads only: every row comes from query.

import { h, field } from '../dom.js';
import { call } from '../api.js';
import { t } from '../i18n.js';
import { link, go } from '../router.js';
import { into, heading, allowed, needsCap } from './common.js';

export function render(ctx) {
  if (!allowed(ctx, 'query')) return needsCap('query');
  const id = ctx.place.params.dataset;
  const body = h('div');
  into(body, () => (id ? dataset(ctx, id) : list(ctx)));
  return h('section', null, heading(t('shell.console.data')), body);
}

async function list(ctx) {
  const found = [];
  await Promise.all(ctx.grant.roots.map(async (root) => {
    const r = await call(ctx.forest, 'scan', { parent_id: root, recursive: true, limit: 50, filter: { type: 'dataset' } });
    found.push(...(r.data.nodes || []));
  }));
  if (!found.length) return h('p', { class: 'card hint' }, t('data.none'));
  return h('div', { class: 'card' }, h('ul', { class: 'plain results' }, found.map((n) => h('li', null,
    link({ forest: ctx.forest, console: 'data', params: { dataset: n.id } }, null, n.title || n.id), h('div', { class: 'meta' }, n.id), n.summary ? h('div', null, n.summary) : null))));
}

async function dataset(ctx, id) {
  const look = (await call(ctx.forest, 'look', { id })).data;
  const manual = look.query_manual || { tables: {}, example_queries: [] };
  const names = Object.keys(manual.tables || {}).sort();
  const examples = manual.example_queries || [];
  const first = examples[0] || (names.length ? `SELECT * FROM "${names[0]}" LIMIT 50` : 'SELECT name FROM sqlite_master');
  const sql = h('textarea', { class: 'sql', name: 'sql', spellcheck: 'false', value: first });
  const out = h('div', { 'aria-live': 'polite' });
  const run = (e) => {
    e.preventDefault();
    into(out, async () => grid((await call(ctx.forest, 'query', { id, sql: sql.value })).data));
  };
  return h('div', null,
    h('div', { class: 'card' }, h('strong', null, look.title || id), h('div', { class: 'meta' }, id), h('p', null, look.summary || ''),
      names.length ? h('h2', null, t('data.tables')) : null,
      names.length ? h('dl', { class: 'facts' }, names.map((n) => [h('dt', null, n), h('dd', null, manual.tables[n].join(', '))])) : null,
      examples.length ? h('div', { class: 'row' }, examples.map((q) => h('button', { type: 'button', title: q, onclick: () => { sql.value = q; } }, q.length > 48 ? q.slice(0, 47) + '…' : q))) : null,
      h('button', { type: 'button', onclick: () => go({ forest: ctx.forest, console: 'data', params: {} }) }, t('data.leave'))),
    h('form', { class: 'card', onsubmit: run }, field(t('data.sql'), sql), h('button', { class: 'primary', type: 'submit' }, t('data.run'))), out);
}

// grid renders a query result: columns and rows, truncation said.
function grid(r) {
  const cols = r.columns || (r.rows && r.rows[0] ? Object.keys(r.rows[0]) : []);
  const rows = r.rows || [];
  const cell = (row, c, i) => (Array.isArray(row) ? row[i] : row[c]);
  return h('div', { class: 'card' }, h('p', { class: 'meta' }, t('data.rows', { n: rows.length }), r.truncated || r.limited ? ` · ${t('data.truncated')}` : ''),
    r.hint ? h('p', { class: 'hint' }, r.hint) : null,
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('data.results') }, h('table', { class: 'grid' },
      h('thead', null, h('tr', null, cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, rows.map((row) => h('tr', null, cols.map((c, i) => h('td', null, cell(row, c, i) == null ? '' : String(cell(row, c, i))))))))));
}
