// SPDX-License-Identifier: Apache-2.0
// The Data console's SQL tab (10 §6.7): a free query in a highlighted
// editor, its result as a table. The editor is a transparent textarea
// over an aria-hidden mirror holding the same text in colour, so native
// editing, undo and the screen reader all meet one plain textarea.

import { h, mount, uid } from '../dom.js';
import { call, ApiError } from '../api.js';
import { t } from '../i18n.js';
import { ident } from './data_draft.js';

// texts keeps each dataset's SQL for the life of the tab.
const texts = new Map();

const KEYWORDS = new Set(('select from where and or not in is null like glob between group by order having limit offset as ' +
  'distinct join left inner outer cross on using union all except intersect case when then else end with asc desc ' +
  'count sum avg min max cast exists collate escape values natural').split(' '));
const TOKEN = /('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|(--[^\n]*)|(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\s+|[^\sA-Za-z0-9_'"-]+|-)/g;

// highlight renders SQL text as spans; every piece enters as text.
export function highlight(sql) {
  const out = [];
  for (const m of sql.matchAll(TOKEN)) {
    const [s, str, quoted, comment, num, word] = m;
    let cls = '';
    if (str) cls = 'tok-str';
    else if (quoted) cls = 'tok-id';
    else if (comment) cls = 'tok-com';
    else if (num) cls = 'tok-num';
    else if (word && KEYWORDS.has(word.toLowerCase())) cls = 'tok-kw';
    out.push(cls ? h('span', { class: cls }, s) : s);
  }
  out.push('\n'); // a trailing newline keeps the mirror as tall as the textarea
  return out;
}

// editor is the textarea and its mirror; onRun fires on Ctrl/⌘+Enter.
export function editor(value, onInput, onRun) {
  const mirror = h('pre', { class: 'sql-mirror', 'aria-hidden': 'true' });
  const area = h('textarea', { id: uid('sql'), class: 'sql', name: 'sql', spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off', value });
  const sync = () => { mount(mirror, highlight(area.value)); mirror.scrollTop = area.scrollTop; mirror.scrollLeft = area.scrollLeft; };
  area.addEventListener('input', () => { sync(); onInput(area.value); });
  area.addEventListener('scroll', () => { mirror.scrollTop = area.scrollTop; mirror.scrollLeft = area.scrollLeft; });
  area.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); onRun(); } });
  sync();
  return { el: h('div', { class: 'sql-editor' }, mirror, area), area };
}

export function sqlTab(ctx, id, look, table) {
  const key = JSON.stringify([ctx.forest, id]);
  const examples = (look.query_manual && look.query_manual.example_queries) || [];
  if (!texts.has(key)) texts.set(key, examples[0] || (table ? `SELECT * FROM ${ident(table.name)} LIMIT 50` : 'SELECT 1'));
  const out = h('div', { 'aria-live': 'polite' });
  const run = async () => {
    mount(out, h('p', { class: 'spinner', role: 'status' }, t('shell.loading')));
    try {
      mount(out, grid((await call(ctx.forest, 'query', { id, sql: texts.get(key) })).data, t('data.results')));
    } catch (e) {
      mount(out, queryRefusal(e));
    }
  };
  const ed = editor(texts.get(key), (v) => texts.set(key, v), run);
  return h('div', null,
    examples.length ? h('div', { class: 'row examples' }, h('span', { class: 'hint' }, t('data.examples')), examples.map((q) =>
      h('button', { type: 'button', title: q, onclick: () => { ed.area.value = q; ed.area.dispatchEvent(new Event('input')); } }, q.length > 48 ? q.slice(0, 47) + '…' : q))) : null,
    h('form', { class: 'card', onsubmit: (e) => { e.preventDefault(); run(); } },
      h('div', { class: 'field' }, h('label', { for: ed.area.id }, t('data.sql')), ed.el, h('div', { class: 'hint' }, t('data.sql.hint'))),
      h('button', { class: 'primary', type: 'submit' }, t('data.run'))), out);
}

// queryRefusal tells an invalid statement (400: SQLite could not run
// it) from a forbidden one (403: the guard or the grant refused it).
export function queryRefusal(e) {
  if (!(e instanceof ApiError)) return h('div', { class: 'card', role: 'alert' }, h('p', { class: 'error' }, String(e && e.message || e)));
  const kind = e.code === 'E_QUERY_FORBIDDEN' ? t('data.sql.forbidden') : e.code === 'E_QUERY_INVALID' ? t('data.sql.invalid') : e.code;
  return h('div', { class: `card refusal ${e.code === 'E_QUERY_FORBIDDEN' ? 'forbidden' : 'invalid'}`, role: 'alert', 'data-code': e.code },
    h('strong', null, kind), h('p', { class: 'error' }, `${e.message} (${e.code})`), e.hint ? h('p', { class: 'hint' }, e.hint) : null);
}

// grid renders a query result: columns and rows, with the engine's cut
// (limited: the row cap; truncated: the token budget) and hint said.
export function grid(r, label) {
  const cols = r.columns || [];
  const rows = r.rows || [];
  return h('div', { class: 'card' },
    h('p', { class: 'meta' }, t('data.rows', { n: rows.length }), r.limited ? ` · ${t('data.limited')}` : '', r.truncated ? ` · ${t('data.truncated')}` : ''),
    r.hint ? h('p', { class: 'hint' }, r.hint) : null,
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': label }, h('table', { class: 'grid' },
      h('thead', null, h('tr', null, cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, rows.map((row) => h('tr', null, row.map((v) => h('td', null, v == null ? '' : String(v)))))))));
}
