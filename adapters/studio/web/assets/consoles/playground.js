// SPDX-License-Identifier: Apache-2.0
// Playground (10 §6.6): call a primitive with a form generated from the
// signature table as the OpenAPI document serves it, and see the
// response verbatim with the engine's timing.

import { h, field } from '../dom.js';
import { api, call } from '../api.js';
import { t } from '../i18n.js';
import { adjust } from '../router.js';
import { into, heading, allowed, needsCap, json, timing } from './common.js';

// TABS are the calls 10 §6.6 names, offered when the document serves them.
const TABS = ['locate', 'sniff', 'harvest', 'look', 'move', 'answer'];

export function render(ctx) {
  if (!allowed(ctx, 'read')) return needsCap('read');
  const body = h('div');
  into(body, async () => {
    const doc = (await api('GET', '/v1/openapi.json')).data;
    const ops = TABS.map((name) => ({ name, op: (doc.paths[`/v1/forests/{forest}/${name}`] || {}).post })).filter((x) => x.op);
    const tab = ops.some((x) => x.name === ctx.place.params.tab) ? ctx.place.params.tab : ops[0].name;
    const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': t('playground.call') }, ops.map((x) =>
      h('button', { type: 'button', 'aria-pressed': String(x.name === tab), onclick: () => adjust({ ...ctx.place, params: { tab: x.name } }) }, x.name)));
    return h('div', null, tabs, form(ctx, tab, ops.find((x) => x.name === tab).op));
  });
  return h('section', null, heading(t('shell.console.playground')), body);
}

function schemaOf(op) {
  return ((((op.requestBody || {}).content || {})['application/json'] || {}).schema) || { properties: {} };
}

// control makes one input for a parameter by its JSON Schema type.
function control(name, s, ctx) {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (s.enum) return h('select', { name }, h('option', { value: '' }, '—'), s.enum.map((v) => h('option', { value: v, selected: v === s.default }, String(v))));
  if (type === 'boolean') return h('input', { type: 'checkbox', name, checked: s.default === true });
  if (type === 'integer' || type === 'number') return h('input', { type: 'number', name, step: type === 'integer' ? 1 : 'any', placeholder: s.default != null ? String(s.default) : '' });
  if (type === 'array') return h('input', { name, placeholder: t('playground.list') });
  if (type === 'object') return h('textarea', { name, rows: 2, placeholder: '{}' });
  return h('input', { name, value: name === 'id' ? ctx.grant.roots[0] : '' });
}

function read(el, s) {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'boolean') return el.checked === (s.default === true) ? undefined : el.checked;
  const v = el.value.trim();
  if (v === '') return undefined;
  if (type === 'integer' || type === 'number') return Number(v);
  if (type === 'array') return v.split(',').map((x) => x.trim()).filter(Boolean);
  if (type === 'object') return JSON.parse(v);
  return v;
}

function form(ctx, name, op) {
  const schema = schemaOf(op);
  const required = new Set(schema.required || []);
  const props = Object.entries(schema.properties || {});
  const controls = props.map(([k, s]) => [k, s, control(k, s, ctx)]);
  const out = h('div', { 'aria-live': 'polite' });
  const submit = (e) => {
    e.preventDefault();
    const args = {};
    for (const [k, s, el] of controls) {
      const v = read(el, s);
      if (v !== undefined) args[k] = v;
    }
    into(out, async () => {
      const r = await call(ctx.forest, name, args);
      const curl = curlOf(ctx.forest, name, args);
      return h('div', { class: 'card' }, timing(r), h('p', { class: 'meta' }, t('playground.bytes', { n: r.bytes })),
        h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => navigator.clipboard && navigator.clipboard.writeText(curl) }, t('playground.curl'))),
        h('pre', { class: 'curl', tabindex: '0' }, curl), json(r.data));
    });
  };
  return h('div', null, h('form', { class: 'card', onsubmit: submit }, h('p', { class: 'hint' }, op.description || ''),
    controls.map(([k, s, el]) => field(required.has(k) ? `${k} *` : k, el, s.description)),
    h('button', { class: 'primary', type: 'submit' }, t('playground.run'))), out);
}

// curlOf is the same call for a shell, with a placeholder where the key
// goes: the console never writes the key anywhere.
function curlOf(forest, name, args) {
  const body = JSON.stringify(args).replace(/'/g, "'\\''");
  return `curl -s -X POST '${location.origin}/v1/forests/${encodeURIComponent(forest)}/${name}' \\\n` +
    `  -H "Authorization: Bearer $MONKEYLLM_KEY" -H 'Content-Type: application/json' \\\n  -d '${body}'`;
}
