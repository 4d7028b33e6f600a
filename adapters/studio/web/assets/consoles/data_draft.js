// SPDX-License-Identifier: Apache-2.0
// A staged edit of one dataset table (10 §6.7): cell changes, new rows and
// deletions held in tab memory until applied, compiled into the fewest
// statements tend accepts. Rows are named by rowid, which every table the
// engine births has; a table without one is browse-only.

// drafts lives as long as the tab: leaving a dataset, switching tabs or
// re-rendering keeps what was staged (F.43–F.46 "leave keeps drafts").
const drafts = new Map();

// Draft is one table's staged changes.
export class Draft {
  constructor(table) {
    this.table = table;
    this.updates = new Map(); // rowid → Map(column → value)
    this.inserts = []; // [{column: value}]
    this.deletes = new Set(); // rowid
  }

  get size() {
    let n = this.inserts.length + this.deletes.size;
    for (const [id, cells] of this.updates) if (!this.deletes.has(id)) n += cells.size;
    return n;
  }

  set(rowid, column, value) {
    if (!this.updates.has(rowid)) this.updates.set(rowid, new Map());
    this.updates.get(rowid).set(column, value);
  }

  insert(row) { this.inserts.push(row); }

  toggleDelete(rowid) {
    if (this.deletes.has(rowid)) this.deletes.delete(rowid);
    else this.deletes.add(rowid);
  }

  clear() { this.updates.clear(); this.inserts = []; this.deletes.clear(); }
}

// draftFor returns the tab's draft for a table, creating it on first use.
export function draftFor(forest, dataset, table) {
  const k = JSON.stringify([forest, dataset, table]);
  if (!drafts.has(k)) drafts.set(k, new Draft(table));
  return drafts.get(k);
}

// staged counts what a dataset holds staged across its tables.
export function staged(forest, dataset) {
  let n = 0;
  for (const [k, d] of drafts) {
    const [f, id] = JSON.parse(k);
    if (f === forest && id === dataset) n += d.size;
  }
  return n;
}

// ident quotes an identifier the way SQLite reads it back unchanged.
export const ident = (s) => `"${String(s).replace(/"/g, '""')}"`;

// literal renders a value as SQL: null, a finite number, or a string.
export function literal(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  return `'${String(v).replace(/'/g, "''")}'`;
}

// compile turns a draft into statements: a row's cells share one SET,
// rows with equal SETs share one WHERE rowid IN, every new row joins one
// INSERT, deletions come last. Each statement carries done(), which
// removes what it applied from the draft, so a failure part-way leaves
// exactly the unapplied rest staged.
export function compile(d) {
  const out = [];
  const bySet = new Map(); // SET clause → [rowid]
  for (const [id, cells] of d.updates) {
    if (d.deletes.has(id) || !cells.size) continue;
    const set = [...cells].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([c, v]) => `${ident(c)} = ${literal(v)}`).join(', ');
    if (!bySet.has(set)) bySet.set(set, []);
    bySet.get(set).push(id);
  }
  for (const [set, ids] of bySet) {
    ids.sort((a, b) => a - b);
    out.push({ sql: `UPDATE ${ident(d.table)} SET ${set} WHERE rowid IN (${ids.join(', ')})`, done: () => ids.forEach((id) => d.updates.delete(id)) });
  }
  if (d.inserts.length) {
    const cols = [...new Set(d.inserts.flatMap((r) => Object.keys(r)))];
    const rows = d.inserts.map((r) => `(${cols.map((c) => literal(r[c])).join(', ')})`);
    const taken = d.inserts.slice();
    out.push({ sql: `INSERT INTO ${ident(d.table)} (${cols.map(ident).join(', ')}) VALUES ${rows.join(', ')}`,
      done: () => { d.inserts = d.inserts.filter((r) => !taken.includes(r)); } });
  }
  if (d.deletes.size) {
    const ids = [...d.deletes].sort((a, b) => a - b);
    out.push({ sql: `DELETE FROM ${ident(d.table)} WHERE rowid IN (${ids.join(', ')})`,
      done: () => ids.forEach((id) => { d.deletes.delete(id); d.updates.delete(id); }) });
  }
  return out;
}

// typed reads what a person typed into a cell as the column's kind: an
// empty box is NULL, a number in a numeric column is a number, the rest
// is text.
export function typed(text, type) {
  const t = String(type || '').toUpperCase();
  if (text === '') return t === 'TEXT' ? '' : null;
  if ((t.includes('INT') || t.includes('REAL') || t.includes('NUM') || t.includes('FLOA') || t.includes('DOUB')) && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}
