// SPDX-License-Identifier: Apache-2.0
// The Data console's rows tab (10 §6.7): one table paged, sorted and
// filtered, every page a query. A key with tend edits cells, adds and
// deletes rows into a draft shown in a bar at the bottom, applied as one
// tend per compiled statement; without tend the table is browse-only.

import { h, mount } from '../dom.js';
import { call, ApiError } from '../api.js';
import { t } from '../i18n.js';
import { allowed, refusal } from './common.js';
import { draftFor, compile, ident, literal, typed } from './data_draft.js';
import { queryRefusal } from './data_sql.js';

const PAGE = 50;
const views = new Map(); // the tab's paging, sort and filters per table

function viewFor(forest, id, table) {
  const k = JSON.stringify([forest, id, table]);
  if (!views.has(k)) views.set(k, { offsets: [0], sort: '', desc: false, filters: {} });
  return views.get(k);
}

// like escapes a filter for LIKE … ESCAPE '\': a typed % or _ is a
// character, not a wildcard.
const like = (v) => literal(`%${v.replace(/[\\%_]/g, (c) => '\\' + c)}%`);

// where is the filters as one WHERE clause ('' when none is set).
export function where(filters) {
  const parts = Object.entries(filters).filter(([, v]) => v !== '').map(([c, v]) => `CAST(${ident(c)} AS TEXT) LIKE ${like(v)} ESCAPE '\\'`);
  return parts.length ? ` WHERE ${parts.join(' AND ')}` : '';
}

export function rowsTab(ctx, id, table) {
  const view = viewFor(ctx.forest, id, table.name);
  const draft = draftFor(ctx.forest, id, table.name);
  const tend = allowed(ctx, 'tend');
  const cols = table.columns;
  const types = Object.fromEntries(cols.map((c) => [c.name, c.type]));
  const body = h('tbody');
  const status = h('p', { class: 'meta', role: 'status' });
  const bar = h('div', { class: 'draft-bar', role: 'region', 'aria-label': t('data.draft') });
  const out = h('div');
  let rowids = true; // false for a table without rowid: browse-only
  let shown = [];

  const load = async () => {
    mount(body, h('tr', null, h('td', { colspan: String(cols.length + 1) }, t('shell.loading'))));
    const filter = where(view.filters);
    const order = view.sort ? ` ORDER BY ${ident(view.sort)} ${view.desc ? 'DESC' : 'ASC'}` : '';
    const offset = view.offsets[view.offsets.length - 1];
    const page = (rid) => `SELECT ${rid ? 'rowid, ' : ''}${cols.map((c) => ident(c.name)).join(', ')} FROM ${ident(table.name)}${filter}${order || (rid ? ' ORDER BY rowid' : '')} LIMIT ${PAGE} OFFSET ${offset}`;
    try {
      let r;
      try {
        r = (await call(ctx.forest, 'query', { id, sql: page(rowids) })).data;
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 'E_QUERY_INVALID' || !rowids) throw e;
        rowids = false; // WITHOUT ROWID, or a view: rows have no stable name
        r = (await call(ctx.forest, 'query', { id, sql: page(false) })).data;
      }
      const total = (await call(ctx.forest, 'query', { id, sql: `SELECT COUNT(*) FROM ${ident(table.name)}${filter}` })).data.rows[0][0];
      shown = r.rows.map((row) => (rowids ? { rowid: row[0], values: row.slice(1) } : { rowid: null, values: row }));
      mount(status, t('data.page', { from: shown.length ? offset + 1 : 0, to: offset + shown.length, total }),
        r.limited ? ` · ${t('data.limited')}` : '', r.truncated ? ` · ${t('data.truncated')}` : '', r.hint ? ` · ${r.hint}` : '',
        tend && !rowids ? ` · ${t('data.browseOnly')}` : '');
      next.disabled = offset + shown.length >= total || !shown.length;
      prev.disabled = view.offsets.length < 2;
      paint();
    } catch (e) {
      mount(body, h('tr', null, h('td', { colspan: String(cols.length + 1) }, e instanceof ApiError && e.code.startsWith('E_QUERY') ? queryRefusal(e) : refusal(e, load))));
    }
  };

  // paint draws the page with the draft over it: staged cells, rows
  // marked for deletion, new rows at the end.
  const paint = () => {
    const editable = tend && rowids;
    mount(body, shown.map((row) => {
      const cells = draft.updates.get(row.rowid);
      const gone = draft.deletes.has(row.rowid);
      return h('tr', { class: gone ? 'deleted' : null, 'data-rowid': row.rowid == null ? null : String(row.rowid) },
        editable ? h('td', null, h('button', { type: 'button', class: 'icon', 'aria-pressed': String(gone), 'aria-label': t('data.deleteRow', { n: row.rowid }),
          onclick: () => { draft.toggleDelete(row.rowid); changed(); } }, '✕')) : tend ? h('td') : null,
        cols.map((c, i) => {
          const has = cells && cells.has(c.name);
          const v = has ? cells.get(c.name) : row.values[i];
          return h('td', { class: has ? 'staged' : null, tabindex: editable && !gone ? '0' : null, 'data-col': c.name,
            onclick: editable && !gone ? (e) => edit(e.currentTarget, row, c, v) : null,
            onkeydown: editable && !gone ? (e) => { if (e.key === 'Enter' || e.key === 'F2') { e.preventDefault(); edit(e.currentTarget, row, c, v); } } : null },
          v == null ? h('span', { class: 'null' }, 'NULL') : String(v));
        }));
    }), draft.inserts.map((r) => h('tr', { class: 'staged new' }, tend ? h('td', null, '+') : null,
      cols.map((c) => h('td', null, r[c.name] == null ? '' : String(r[c.name]))))));
    mount(bar, draftBar());
  };

  // edit opens a cell's input: Enter or leaving stages a changed value,
  // Escape puts the cell back.
  const edit = (td, row, col, value) => {
    if (td.querySelector('input')) return;
    const input = h('input', { class: 'cell', value: value == null ? '' : String(value), 'aria-label': t('data.editCell', { col: col.name, n: row.rowid }) });
    let done = false;
    const finish = (keep) => {
      if (done) return;
      done = true;
      const v = typed(input.value, types[col.name]);
      const i = cols.indexOf(col);
      if (keep && v !== (row.values[i] == null ? (types[col.name] === 'TEXT' ? '' : null) : row.values[i])) draft.set(row.rowid, col.name, v);
      else if (keep && draft.updates.has(row.rowid)) draft.updates.get(row.rowid).delete(col.name);
      changed();
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); finish(true); }
      if (e.key === 'Escape') { e.preventDefault(); finish(false); }
    });
    input.addEventListener('blur', () => finish(true));
    mount(td, input);
    input.focus();
    input.select();
  };

  const changed = () => paint();

  const draftBar = () => {
    if (!draft.size) return null;
    const stmts = compile(draft);
    const msg = h('div', { 'aria-live': 'polite' });
    const apply = async (e) => {
      e.currentTarget.disabled = true;
      for (const s of compile(draft)) {
        try {
          await call(ctx.forest, 'tend', { id, sql: s.sql });
          s.done();
        } catch (err) {
          await load();
          mount(msg, err instanceof ApiError && err.code.startsWith('E_QUERY') ? queryRefusal(err) : refusal(err));
          return;
        }
      }
      await load();
    };
    return h('div', { class: 'card' }, h('strong', null, t('data.draft.count', { n: draft.size })),
      h('p', { class: 'hint' }, t('data.draft.statements', { n: stmts.length })),
      h('pre', { class: 'json', tabindex: '0', 'aria-label': t('data.draft') }, stmts.map((s) => s.sql).join(';\n')),
      h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary apply', onclick: apply }, t('data.draft.apply')),
        h('button', { type: 'button', onclick: () => { draft.clear(); paint(); } }, t('data.draft.discard'))), msg);
  };

  // newRow stages one row from a line of inputs under the table.
  const newRow = () => {
    const inputs = cols.map((c) => h('input', { class: 'cell', 'aria-label': t('data.newCell', { col: c.name }), 'data-col': c.name }));
    const form = h('form', { class: 'card row new-row', onsubmit: (e) => {
      e.preventDefault();
      const row = {};
      cols.forEach((c, i) => { if (inputs[i].value !== '') row[c.name] = typed(inputs[i].value, c.type); });
      if (!Object.keys(row).length) return;
      draft.insert(row);
      inputs.forEach((x) => { x.value = ''; });
      paint();
    } }, inputs.map((x, i) => h('label', { class: 'inline' }, cols[i].name, x)), h('button', { type: 'submit' }, t('data.stageRow')));
    return form;
  };

  const sortBy = (c) => {
    if (view.sort === c) view.desc = !view.desc;
    else { view.sort = c; view.desc = false; }
    view.offsets = [0];
    mount(out, build());
  };
  let timer = 0;
  const filterInput = (c) => h('input', { type: 'search', class: 'filter', value: view.filters[c] || '', 'aria-label': t('data.filter', { col: c }),
    oninput: (e) => {
      clearTimeout(timer);
      const v = e.currentTarget.value;
      timer = setTimeout(() => { view.filters[c] = v; view.offsets = [0]; load(); }, 300);
    } });
  const prev = h('button', { type: 'button', onclick: () => { view.offsets.pop(); load(); } }, t('data.prev'));
  const next = h('button', { type: 'button', class: 'next', onclick: () => { view.offsets.push(view.offsets[view.offsets.length - 1] + shown.length); load(); } }, t('data.next'));

  const build = () => {
    const head = h('thead', null,
      h('tr', null, tend ? h('th', { scope: 'col' }, h('span', { class: 'sr' }, t('data.delete'))) : null, cols.map((c) => h('th', { scope: 'col', 'aria-sort': view.sort === c.name ? (view.desc ? 'descending' : 'ascending') : null },
        h('button', { type: 'button', class: 'sort', 'data-sort': c.name, onclick: () => sortBy(c.name) }, c.name, view.sort === c.name ? (view.desc ? ' ▾' : ' ▴') : '')))),
      h('tr', { class: 'filters' }, tend ? h('td') : null, cols.map((c) => h('td', null, filterInput(c.name)))));
    load();
    return h('div', null, h('div', { class: 'row' }, prev, next, status),
      h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('data.rowsOf', { table: table.name }) }, h('table', { class: 'grid rows' }, head, body)),
      tend ? newRow() : null, bar);
  };
  mount(out, build());
  return out;
}
