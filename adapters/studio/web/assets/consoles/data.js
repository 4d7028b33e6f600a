// SPDX-License-Identifier: Apache-2.0
// Data (10 §6.7): the datasets the key reaches, and one selected dataset
// in four tabs: rows (paged, sorted, filtered, edited through tend
// drafts), structure, free SQL, and notes. Every row comes from query;
// every write is a tend, a graft or a plant, never DDL.

import { h } from '../dom.js';
import { call } from '../api.js';
import { t } from '../i18n.js';
import { link, go, adjust } from '../router.js';
import { into, heading, allowed, needsCap } from './common.js';
import { staged, ident } from './data_draft.js';
import { rowsTab } from './data_rows.js';
import { sqlTab, grid } from './data_sql.js';
import { notesTab } from './data_notes.js';
import { createForm, importForm } from './data_create.js';

const TABS = ['rows', 'structure', 'sql', 'notes'];

export function render(ctx) {
  if (!allowed(ctx, 'query')) return needsCap('query');
  const id = ctx.place.params.dataset;
  const body = h('div');
  into(body, () => (id ? dataset(ctx, id) : list(ctx, body, null)));
  return h('section', null, heading(t('shell.console.data')), body);
}

// datasets walks each root of the grant for dataset nodes.
export async function datasets(ctx) {
  const found = [];
  await Promise.all(ctx.grant.roots.map(async (root) => {
    const r = await call(ctx.forest, 'scan', { parent_id: root, recursive: true, limit: 200, filter: { type: 'dataset' } });
    found.push(...(r.data.nodes || []));
  }));
  return found.sort((a, b) => (a.id < b.id ? -1 : 1));
}

// list is the picker; notice is what a settled import said.
async function list(ctx, region, notice) {
  const found = await datasets(ctx);
  const refresh = (said) => into(region, () => list(ctx, region, said));
  const open = (id) => go({ forest: ctx.forest, console: 'data', params: { dataset: id } });
  return h('div', null, notice,
    found.length ? h('div', { class: 'card' }, h('ul', { class: 'plain results' }, found.map((n) => {
      const held = staged(ctx.forest, n.id);
      return h('li', null, link({ forest: ctx.forest, console: 'data', params: { dataset: n.id } }, null, n.title || n.id),
        held ? h('span', { class: 'badge draft' }, ' ', t('data.draft.held', { n: held })) : null,
        n.title ? h('div', { class: 'meta' }, n.id) : null, n.summary ? h('div', null, n.summary) : null);
    }))) : h('p', { class: 'card hint' }, t('data.none')),
    allowed(ctx, 'write') ? h('details', { class: 'card' }, h('summary', null, t('data.create')), createForm(ctx, open)) : null,
    allowed(ctx, 'ingest') ? h('details', { class: 'card' }, h('summary', null, t('data.import')), importForm(ctx, refresh)) : null);
}

// dataset is the selected dataset: the picker collapsed to it, then the
// table choice and the tab.
async function dataset(ctx, id) {
  const look = (await call(ctx.forest, 'look', { id })).data;
  const tables = await structure(ctx, id, look);
  const p = ctx.place.params;
  const tab = TABS.includes(p.tab) ? p.tab : 'rows';
  const table = tables.find((x) => x.name === p.table) || tables[0];
  const here = (params) => ({ forest: ctx.forest, console: 'data', params: { ...p, ...params } });
  const held = staged(ctx.forest, id);
  const head = h('div', { class: 'card' },
    h('div', { class: 'row' }, h('strong', { class: 'grow' }, look.title || id),
      h('button', { type: 'button', class: 'leave', onclick: () => go({ forest: ctx.forest, console: 'data', params: {} }) }, t('data.leave'))),
    h('div', { class: 'meta' }, id), h('p', null, look.summary || ''),
    held ? h('p', { class: 'hint', role: 'status' }, t('data.draft.kept', { n: held })) : null,
    tables.length ? h('div', { class: 'row', role: 'group', 'aria-label': t('data.tables') }, tables.map((x) =>
      h('button', { type: 'button', 'aria-pressed': String(x === table), 'data-table': x.name, onclick: () => go(here({ table: x.name })) },
        x.name, ' ', h('span', { class: 'badge' }, x.count == null ? '?' : String(x.count))))) : h('p', { class: 'hint' }, t('data.noTables')));
  const labels = { rows: t('data.tab.rows'), structure: t('data.tab.structure'), sql: t('data.tab.sql'), notes: t('data.tab.notes') };
  const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': t('data.tab') }, TABS.map((k) =>
    h('button', { type: 'button', 'aria-pressed': String(k === tab), 'data-tab': k, onclick: () => adjust(here({ tab: k })) }, labels[k])));
  let view;
  if (tab === 'notes') view = notesTab(ctx, id);
  else if (tab === 'sql') view = sqlTab(ctx, id, look, table);
  else if (tab === 'structure') view = structureTab(tables);
  else view = table ? rowsTab(ctx, id, table) : h('p', { class: 'hint' }, t('data.noTables'));
  return h('div', null, head, tabs, view);
}

// structure reads the tables: names and columns from look's manual, the
// DDL and declared types from sqlite_master where the grant lets the key
// read it (a table allow-list withholds sqlite_* tables), and every row
// count in one SELECT of scalar subqueries.
async function structure(ctx, id, look) {
  const manual = (look.query_manual && look.query_manual.tables) || {};
  const names = Object.keys(manual).sort();
  const ddl = {};
  try {
    const r = (await call(ctx.forest, 'query', { id, sql: `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name` })).data;
    for (const [name, sql] of r.rows) ddl[name] = sql || '';
  } catch { /* withheld: names and columns from look only */ }
  const counts = {};
  if (names.length) {
    try {
      const sql = `SELECT ${names.map((n) => `(SELECT COUNT(*) FROM ${ident(n)}) AS ${ident(n)}`).join(', ')}`;
      const r = (await call(ctx.forest, 'query', { id, sql })).data;
      r.columns.forEach((c, i) => { counts[c] = r.rows[0] && r.rows[0][i]; });
    } catch { /* counts unknown */ }
  }
  return names.map((name) => {
    const types = columnTypes(ddl[name] || '');
    const columns = manual[name].map((c) => {
      const [col, ...rest] = String(c).split(' ');
      return { name: col, type: types[col] || rest.join(' ') };
    });
    return { name, ddl: ddl[name] || '', columns, count: counts[name] };
  });
}

// columnTypes reads declared types from a CREATE TABLE statement: the
// text inside its outer parentheses, split at top-level commas, each
// definition's first word the column and its second the type.
export function columnTypes(ddl) {
  const open = ddl.indexOf('(');
  const out = {};
  if (open < 0) return out;
  let depth = 0;
  let part = '';
  const parts = [];
  for (const ch of ddl.slice(open + 1)) {
    if (ch === '(') depth++;
    if (ch === ')' && depth-- === 0) break;
    if (ch === ',' && depth === 0) { parts.push(part); part = ''; } else part += ch;
  }
  parts.push(part);
  for (const p of parts) {
    const m = p.trim().match(/^("(?:[^"]|"")+"|`[^`]+`|\[[^\]]+\]|\S+)\s*(\S*)/);
    if (!m || /^(PRIMARY|UNIQUE|CHECK|FOREIGN|CONSTRAINT)$/i.test(m[1])) continue;
    out[m[1].replace(/^["`[]|["`\]]$/g, '').replace(/""/g, '"')] = m[2].replace(/,$/, '').toUpperCase();
  }
  return out;
}

// structureTab is read-only: there is no ALTER (04 §2.4 rule 6).
function structureTab(tables) {
  if (!tables.length) return h('p', { class: 'hint' }, t('data.noTables'));
  return h('div', null, h('p', { class: 'hint' }, t('data.structure.readonly')), tables.map((x) => h('div', { class: 'card' },
    h('h2', null, x.name), grid({ columns: [t('data.column'), t('data.type')], rows: x.columns.map((c) => [c.name, c.type || '']) }, t('data.structure')),
    x.ddl ? h('pre', { class: 'json', tabindex: '0' }, x.ddl) : h('p', { class: 'hint' }, t('data.ddlWithheld')))));
}
