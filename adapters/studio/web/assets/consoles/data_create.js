// SPDX-License-Identifier: Apache-2.0
// Making datasets from the Data console (10 §6.7). Create (write) is a
// declarative schema sent as exactly one plant: no DDL, no free SQL box.
// Import (ingest) sends one file as one upload ingest and follows its job.

import { h, field, mount } from '../dom.js';
import { call } from '../api.js';
import { board } from '../board.js';
import { t } from '../i18n.js';
import { into, refusal } from './common.js';

const TYPES = ['TEXT', 'INTEGER', 'REAL', 'BLOB'];
const NAME = /^[a-z_][a-z0-9_]{0,63}$/;
const MAX_TABLES = 10;
const MAX_COLUMNS = 50;
// IMPORTS are the dataset formats Data and Ingest share (F.43–F.46).
export const IMPORTS = ['.db', '.sqlite', '.sqlite3', '.csv', '.json', '.xls', '.xlsx'];
const TEXT_FORMATS = ['.csv', '.json'];
const MAX_BYTES = 25 << 20;

// slugify makes a leaf slug the way a person expects from a title:
// accents dropped, lower case, runs of anything else one hyphen.
export function slugify(s) {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
}

// leafID places a slug under a branch: `a/b/_index` + s = `a/b/s`.
export const leafID = (parent, slug) => (parent === '_index' ? slug : parent.replace(/\/_index$/, '') + '/' + slug);

// branches lists the branches the key reaches: its roots and every
// branch under them, for a parent picked, never typed.
export async function branches(ctx) {
  const found = new Set(ctx.grant.roots);
  await Promise.all(ctx.grant.roots.map(async (root) => {
    const r = await call(ctx.forest, 'scan', { parent_id: root, recursive: true, limit: 200, filter: { type: 'branch' } });
    for (const n of r.data.nodes || []) found.add(n.id);
  }));
  return [...found].sort();
}

function branchSelect(ctx, name) {
  const sel = h('select', { name }, h('option', { value: '' }, t('shell.loading')));
  branches(ctx).then((list) => mount(sel, list.map((b) => h('option', { value: b }, b)))).catch(() => mount(sel));
  return sel;
}

// schemaProblems pre-checks a schema as the engine will (04 §2.4 rule
// 1), so a person hears what to fix before anything is sent.
export function schemaProblems(tables) {
  const out = [];
  if (!tables.length) out.push(t('data.create.noTable'));
  if (tables.length > MAX_TABLES) out.push(t('data.create.tooManyTables', { n: MAX_TABLES }));
  const seen = new Set();
  for (const tb of tables) {
    if (!NAME.test(tb.name)) out.push(t('data.create.badName', { name: tb.name }));
    if (seen.has(tb.name)) out.push(t('data.create.duplicate', { name: tb.name }));
    seen.add(tb.name);
    if (!tb.columns.length) out.push(t('data.create.noColumn', { table: tb.name }));
    if (tb.columns.length > MAX_COLUMNS) out.push(t('data.create.tooManyColumns', { table: tb.name, n: MAX_COLUMNS }));
    const cols = new Set();
    for (const c of tb.columns) {
      if (!NAME.test(c.name)) out.push(t('data.create.badName', { name: c.name }));
      if (cols.has(c.name)) out.push(t('data.create.duplicate', { name: c.name }));
      cols.add(c.name);
    }
  }
  return out;
}

// schemaOf renders the form's tables as plant's declarative schema.
export function schemaOf(tables) {
  const out = {};
  for (const tb of tables) {
    const pk = tb.columns.filter((c) => c.pk).map((c) => c.name);
    out[tb.name] = { columns: Object.fromEntries(tb.columns.map((c) => [c.name, c.type])), ...(pk.length ? { primary_key: pk } : {}) };
  }
  return out;
}

export function createForm(ctx, open) {
  const tables = [{ name: 'items', columns: [{ name: 'name', type: 'TEXT', pk: true }, { name: 'value', type: 'REAL', pk: false }] }];
  const title = h('input', { name: 'title', required: true });
  const summary = h('textarea', { name: 'summary', rows: '2', required: true });
  const parent = branchSelect(ctx, 'parent');
  const idShown = h('code', { class: 'leaf-id' });
  const showID = () => mount(idShown, parent.value && slugify(title.value) ? leafID(parent.value, slugify(title.value)) : '…');
  title.addEventListener('input', showID);
  parent.addEventListener('change', showID);
  const editor = h('div', { class: 'tables-editor' });
  const msg = h('div', { 'aria-live': 'polite' });

  const paint = () => mount(editor, tables.map((tb, ti) => h('fieldset', { class: 'card' },
    h('legend', null, t('data.create.table', { n: ti + 1 })),
    field(t('data.create.tableName'), h('input', { name: `table-${ti}`, value: tb.name, oninput: (e) => { tb.name = e.currentTarget.value; } })),
    h('table', { class: 'grid columns' }, h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('data.column')), h('th', { scope: 'col' }, t('data.type')),
      h('th', { scope: 'col' }, t('data.create.pk')), h('th', { scope: 'col' }, h('span', { class: 'sr' }, t('data.create.remove'))))),
    h('tbody', null, tb.columns.map((c, ci) => h('tr', null,
      h('td', null, h('input', { name: `col-${ti}-${ci}`, value: c.name, 'aria-label': t('data.column'), oninput: (e) => { c.name = e.currentTarget.value; } })),
      h('td', null, h('select', { 'aria-label': t('data.type'), onchange: (e) => { c.type = e.currentTarget.value; } }, TYPES.map((x) => h('option', { value: x, selected: x === c.type ? true : null }, x)))),
      h('td', null, h('input', { type: 'checkbox', checked: c.pk, 'aria-label': t('data.create.pk'), onchange: (e) => { c.pk = e.currentTarget.checked; } })),
      h('td', null, h('button', { type: 'button', 'aria-label': t('data.create.removeColumn', { col: c.name }), onclick: () => { tb.columns.splice(ci, 1); paint(); } }, '✕')))))),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'add-column', onclick: () => { tb.columns.push({ name: '', type: 'TEXT', pk: false }); paint(); } }, t('data.create.addColumn')),
      h('button', { type: 'button', onclick: () => { tables.splice(ti, 1); paint(); } }, t('data.create.removeTable'))))),
  h('button', { type: 'button', onclick: () => { tables.push({ name: '', columns: [{ name: 'id', type: 'INTEGER', pk: true }] }); paint(); } }, t('data.create.addTable')));

  const submit = async (e) => {
    e.preventDefault();
    const slug = slugify(title.value);
    const problems = schemaProblems(tables);
    if (!slug) problems.unshift(t('data.create.noSlug'));
    if (problems.length) return mount(msg, h('ul', { class: 'error', role: 'alert' }, problems.map((p) => h('li', null, p))));
    const id = leafID(parent.value, slug);
    try {
      await call(ctx.forest, 'plant', { node: { id, type: 'dataset', parent: parent.value, title: title.value.trim(), summary: summary.value.trim(), source: 'manual', schema: schemaOf(tables) } });
      open(id);
    } catch (err) {
      mount(msg, refusal(err));
    }
  };
  paint();
  showID();
  return h('form', { class: 'create-dataset', onsubmit: submit },
    field(t('data.create.title'), title), field(t('data.create.parent'), parent),
    h('p', { class: 'meta' }, t('data.create.id'), ' ', idShown),
    field(t('data.create.summary'), summary, t('data.create.summaryHint')),
    h('p', { class: 'hint' }, t('data.create.limits', { tables: MAX_TABLES, columns: MAX_COLUMNS })), editor,
    h('button', { class: 'primary', type: 'submit' }, t('data.create.submit')), msg);
}

// b64 reads bytes as base64 without building one huge string twice.
async function b64(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function importForm(ctx, settled) {
  const input = h('input', { type: 'file', name: 'file', accept: IMPORTS.join(','), required: true });
  const dest = branchSelect(ctx, 'dest');
  const msg = h('div', { 'aria-live': 'polite' });
  const submit = async (e) => {
    e.preventDefault();
    const file = input.files[0];
    if (!file) return;
    const ext = (file.name.match(/\.[^.]+$/) || [''])[0].toLowerCase();
    if (!IMPORTS.includes(ext)) return mount(msg, h('p', { class: 'error', role: 'alert' }, t('data.import.format', { name: file.name })));
    if (file.size > MAX_BYTES) return mount(msg, h('p', { class: 'error', role: 'alert' }, t('data.import.tooBig', { name: file.name })));
    const entry = TEXT_FORMATS.includes(ext) ? { name: file.name, text: await file.text() } : { name: file.name, b64: await b64(file) };
    try {
      // One upload ingest through the forest's job board (10 §7), which
      // the pill and Ingest watch too.
      const b = board(ctx.forest);
      const job = await b.start({ mode: 'upload', files: [entry], dest: dest.value });
      into(msg, async () => { settled(report(await b.settle(job.id))); return null; });
    } catch (err) {
      mount(msg, refusal(err));
    }
  };
  return h('form', { class: 'import-dataset', onsubmit: submit },
    field(t('data.import.file'), input, t('data.import.hint', { formats: IMPORTS.join(' ') })), field(t('data.import.dest'), dest),
    h('button', { class: 'primary', type: 'submit' }, t('data.import.submit')), msg);
}

// report says what a settled import planted; the caller refreshes the
// list with that notice.
function report(job) {
  const rep = job.report || {};
  const planted = rep.planted || [];
  return h('div', { class: 'card', role: 'status', 'data-job-state': job.state },
    h('p', null, t('data.import.settled', { state: job.state, n: planted.length })),
    (rep.errors || []).length ? h('ul', { class: 'error' }, rep.errors.map((x) => h('li', null, x))) : null,
    job.error ? h('p', { class: 'error' }, job.error.message) : null);
}
