// SPDX-License-Identifier: Apache-2.0
// Webhooks (10 §6.12, 09 §10): the forest's subscriptions with their
// state, the form (events grouped as five questions, headers whose stored
// values are never read back, a preview of the exact body), the secret
// shown once with verification snippets, test, rotate, delete, and the
// delivery log with redeliver. ?hook= and ?tab= live in the address.

import { h, mount, field, uid } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { link, adjust, place } from '../router.js';
import { into, heading, allowed, needsCap, refusal } from './common.js';
import { sampleBody, NODE_SNIPPET, PYTHON_SNIPPET } from './webhooks-sample.js';

const TABS = ['settings', 'deliveries'];
// QUESTIONS are the catalogue's groups as the five questions (+ config,
// which only deployment webhooks may take), in the order the form asks.
const QUESTIONS = ['content', 'ingest', 'answer', 'access', 'maintenance', 'config'];

const enc = encodeURIComponent;
const base = (ctx) => `/v1/forests/${enc(ctx.forest)}/webhooks`;

// fresh holds a secret the Station just showed (create or rotate) until
// the page that shows it renders; it never enters the address or storage.
let fresh = null;

export function render(ctx) {
  if (!allowed(ctx, 'admin')) return needsCap('admin');
  const hook = ctx.place.params.hook;
  const body = h('div');
  into(body, async () => {
    const listing = (await api('GET', base(ctx))).data;
    if (!hook) return list(ctx, listing);
    if (hook === 'new') return editor(ctx, listing, null);
    const detail = (await api('GET', `${base(ctx)}/${enc(hook)}?limit=100`)).data;
    return one(ctx, listing, detail);
  });
  return h('section', { class: 'hooks' }, heading(t('shell.console.webhooks')), body);
}

const here = (ctx, params) => ({ forest: ctx.forest, console: 'webhooks', params });

// state is the word the list shows: suspended (with its reason) before
// off, a hook never delivered is new, a last status outside 2xx (0 is a
// connection that failed) is failing.
export function state(w) {
  if (w.suspended) return 'suspended';
  if (!w.enabled) return 'off';
  if (w.last_status == null) return 'new';
  return w.last_status >= 200 && w.last_status < 300 ? 'live' : 'failing';
}

function statusWord(w) {
  const s = state(w);
  const word = s === 'suspended' ? t('webhooks.status.suspended', { reason: t(`webhooks.reason.${w.suspended}`) }) : t(`webhooks.status.${s}`);
  return h('span', { class: 'hook-status', 'data-state': s }, h('i', { class: 'hook-dot', 'aria-hidden': 'true' }), word);
}

function list(ctx, listing) {
  const add = link(here(ctx, { hook: 'new' }), { class: 'button primary', 'data-new': '' }, t('webhooks.new'));
  const lead = h('div', { class: 'card' }, h('p', null, t('webhooks.lead')), add,
    h('p', { class: 'meta' }, t('webhooks.queue', { pending: listing.queue.pending, dropped: listing.queue.dropped })));
  if (!listing.webhooks.length) return h('div', null, lead, empty());
  const row = (w) => h('tr', { 'data-hook': w.id },
    h('td', null, statusWord(w)),
    h('td', null, link(here(ctx, { hook: w.id }), null, w.label || w.id), h('div', { class: 'meta' }, w.url)),
    h('td', null, w.events.length === 1 ? t('webhooks.events.one') : t('webhooks.events.count', { n: w.events.length }), w.scope === '-' ? h('div', { class: 'meta' }, t('webhooks.scope.deployment')) : null),
    h('td', null, w.last_at ? h('span', { class: 'meta' }, `${w.last_status || '—'} · ${w.last_at}`) : h('span', { class: 'meta' }, '—')),
    h('td', null, h('label', { class: 'inline' }, h('input', { type: 'checkbox', checked: w.enabled, 'data-toggle': w.id,
      onchange: (e) => toggle(ctx, w, e.target) }), t('webhooks.enabled'))));
  const cols = ['status', 'webhook', 'events', 'last', 'enabled'];
  return h('div', null, lead, h('div', { class: 'card table-wrap' }, h('table', { class: 'grid hooks-list' },
    h('thead', null, h('tr', null, cols.map((c) => h('th', { scope: 'col' }, t(`webhooks.col.${c}`))))),
    h('tbody', null, listing.webhooks.map(row)))));
}

function empty() {
  return h('div', { class: 'card', 'data-empty': '' }, h('h2', null, t('webhooks.empty.title')), h('p', null, t('webhooks.empty.lead')),
    h('ul', null, h('li', null, t('webhooks.empty.chat')), h('li', null, t('webhooks.empty.ci')), h('li', null, t('webhooks.empty.watch'))));
}

// toggle replaces the webhook with only enabled flipped; headers absent
// keep the stored ones.
async function toggle(ctx, w, box) {
  box.disabled = true;
  try {
    await api('POST', base(ctx), { id: w.id, scope: w.scope === '-' ? 'deployment' : 'forest', label: w.label, url: w.url,
      events: w.events, branches: w.branches, include_metadata: w.include_metadata, enabled: box.checked });
    adjust(place());
  } catch (e) {
    box.checked = !box.checked;
    box.disabled = false;
    box.closest('td').append(refusal(e));
  }
}

// one is a saved webhook: its state, actions and the two tabs.
function one(ctx, listing, detail) {
  const w = detail.webhook;
  const tab = TABS.includes(ctx.place.params.tab) ? ctx.place.params.tab : 'settings';
  const shown = fresh && fresh.id === w.id ? fresh.secret : '';
  fresh = null;
  const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': t('webhooks.tabs') }, TABS.map((x) =>
    h('button', { type: 'button', 'aria-pressed': String(x === tab), 'data-tab': x,
      onclick: () => adjust(here(ctx, { hook: w.id, tab: x === 'settings' ? '' : x })) }, t(`webhooks.tab.${x}`))));
  const secret = h('div', { 'aria-live': 'polite' }, shown ? secretPanel(shown) : null);
  const head = h('div', { class: 'card' }, h('div', { class: 'row' }, h('h2', null, w.label || w.id), statusWord(w)),
    h('p', { class: 'meta' }, `${w.id} · ${w.url} · ${t('webhooks.owner', { name: w.owner })}`),
    actions(ctx, w, secret));
  const back = h('p', { class: 'back' }, link(here(ctx, {}), { 'data-back': '' }, `← ${t('webhooks.back')}`));
  return h('div', null, back, head, secret, tabs,
    tab === 'deliveries' ? deliveries(ctx, w, detail.deliveries, listing) : editor(ctx, listing, w));
}

// actions: test (result in place), rotate (the new secret shown once),
// delete behind a second, explicit step.
function actions(ctx, w, secret) {
  const out = h('div', { 'aria-live': 'polite' });
  const path = `${base(ctx)}/${enc(w.id)}`;
  const act = async (btn, body, then) => {
    btn.disabled = true;
    try { then((await api('POST', path, body)).data); } catch (e) { mount(out, refusal(e)); }
    btn.disabled = false;
  };
  const test = h('button', { type: 'button', 'data-act': 'test', onclick: () => act(test, { action: 'test' }, (r) => mount(out, testResult(r.delivery))) }, t('webhooks.test'));
  const rotate = h('button', { type: 'button', 'data-act': 'rotate', onclick: () => act(rotate, { action: 'rotate' }, (r) => mount(secret, secretPanel(r.secret))) }, t('webhooks.rotate'));
  const remove = async () => {
    try {
      await api('DELETE', path, {});
      adjust(here(ctx, {}));
    } catch (e) { mount(out, refusal(e)); }
  };
  const del = h('button', { type: 'button', 'data-act': 'delete', onclick: () => mount(out, h('div', { class: 'row confirm', role: 'alert' },
    h('span', null, t('webhooks.delete.confirm')),
    h('button', { type: 'button', class: 'danger', 'data-act': 'delete-yes', onclick: remove }, t('webhooks.delete.yes')),
    h('button', { type: 'button', onclick: () => mount(out) }, t('webhooks.delete.no')))) }, t('webhooks.delete'));
  return h('div', null, h('div', { class: 'row' }, test, rotate, del), out);
}

function testResult(d) {
  return h('div', { class: 'test-result', 'data-ok': String(!!d.ok) }, h('h3', null, t('webhooks.test.result')),
    h('dl', { class: 'facts' },
      h('dt', null, t('webhooks.col.status')), h('dd', { 'data-status': '' }, d.status == null ? '—' : String(d.status)),
      h('dt', null, t('webhooks.test.ms')), h('dd', null, t('webhooks.ms', { ms: Number(d.ms).toFixed(0) })),
      d.error ? [h('dt', null, t('webhooks.col.error')), h('dd', { class: 'error' }, d.error)] : null,
      h('dt', null, t('webhooks.test.response')), h('dd', null, h('pre', { class: 'json', tabindex: '0' }, d.response || t('webhooks.test.none')))));
}

// secretPanel shows a secret the Station will never show again, with
// how to verify a delivery signed by it.
function secretPanel(secret) {
  const copied = h('span', { class: 'meta', 'aria-live': 'polite' });
  const copy = () => navigator.clipboard && navigator.clipboard.writeText(secret).then(() => { copied.textContent = t('webhooks.secret.copied'); }, () => {});
  return h('div', { class: 'card secret' }, h('h2', null, t('webhooks.secret.title')),
    h('p', { class: 'hint' }, h('strong', null, t('webhooks.secret.once'))),
    h('div', { class: 'row' }, h('code', { class: 'secret-value' }, secret), h('button', { type: 'button', onclick: copy }, t('webhooks.secret.copy')), copied),
    h('h3', null, t('webhooks.verify')), h('p', null, t('webhooks.verify.lead')),
    h('div', { class: 'cols two' },
      h('div', null, h('h4', null, 'Node.js'), h('pre', { class: 'json', tabindex: '0', 'data-snippet': 'node' }, NODE_SNIPPET)),
      h('div', null, h('h4', null, 'Python'), h('pre', { class: 'json', tabindex: '0', 'data-snippet': 'python' }, PYTHON_SNIPPET))));
}

function deliveries(ctx, w, rows, listing) {
  if (!rows.length) return h('div', { class: 'card' }, h('p', { class: 'hint' }, t('webhooks.deliveries.none')));
  const out = h('div', { 'aria-live': 'polite' });
  const redeliver = async (btn, id) => {
    btn.disabled = true;
    try {
      await api('POST', `${base(ctx)}/${enc(w.id)}`, { action: 'redeliver', delivery: id });
      adjust(place());
    } catch (e) {
      btn.disabled = false;
      mount(out, refusal(e));
    }
  };
  const row = (d) => h('tr', { 'data-delivery': d.delivery },
    h('td', null, h('code', null, d.event), h('div', { class: 'meta' }, d.delivery)), h('td', null, d.ts),
    h('td', { class: d.ok ? 'ok' : 'error' }, d.status == null ? '—' : String(d.status), h('div', { class: 'meta' }, t('webhooks.ms', { ms: Number(d.ms).toFixed(0) }))),
    h('td', null, String(d.attempt)), h('td', null, d.error || ''),
    h('td', null, h('button', { type: 'button', 'data-redeliver': d.delivery, 'aria-label': t('webhooks.redeliver.label', { delivery: d.delivery }),
      onclick: (e) => redeliver(e.currentTarget, d.delivery) }, t('webhooks.redeliver'))));
  const cols = ['event', 'time', 'status', 'attempt', 'error', 'action'];
  return h('div', { class: 'card' }, h('p', { class: 'meta' }, t('webhooks.deliveries.lead', { n: listing.limits.keep_deliveries })), out,
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('webhooks.tab.deliveries') }, h('table', { class: 'grid' },
      h('thead', null, h('tr', null, cols.map((c) => h('th', { scope: 'col' }, t(`webhooks.col.${c}`))))),
      h('tbody', null, rows.map(row)))));
}

// editor is the form: a new webhook (w null) or a saved one's settings.
function editor(ctx, listing, w) {
  const deploymentOK = listing.scopes.includes('deployment');
  const s = { scope: w && w.scope === '-' ? 'deployment' : 'forest', events: new Set(w ? w.events : []) };
  const label = h('input', { name: 'label', maxlength: 80, value: w ? w.label : '' });
  const url = h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://example.com/hooks/monkeyllm', value: w ? w.url : '' });
  const branches = h('textarea', { name: 'branches', rows: 3, spellcheck: 'false', value: w ? w.branches.join('\n') : '' });
  const meta = h('input', { type: 'checkbox', name: 'include_metadata', checked: w ? w.include_metadata : false });
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: w ? w.enabled : true });
  const eventsBox = h('div');
  const preview = previewPanel(ctx, s, meta);
  const drawEvents = () => { mount(eventsBox, eventGroups(listing, s, preview.refresh)); preview.refresh(); };
  const scope = deploymentOK ? h('fieldset', null, h('legend', null, t('webhooks.scope')), ['forest', 'deployment'].map((v) =>
    h('label', { class: 'inline' }, h('input', { type: 'radio', name: 'scope', value: v, checked: s.scope === v,
      onchange: () => { s.scope = v; pruneEvents(listing, s); drawEvents(); } }), t(`webhooks.scope.${v}`, { forest: ctx.forest }))),
  h('div', { class: 'hint' }, t('webhooks.scope.hint'))) : null;
  meta.addEventListener('change', () => preview.refresh());
  const headers = headerEditor(w ? w.headers : [], listing.limits.max_headers);
  const msg = h('div', { 'aria-live': 'polite' });
  const submit = async (e) => {
    e.preventDefault();
    const body = { scope: s.scope, label: label.value.trim(), url: url.value.trim(), events: [...s.events].sort(),
      branches: branches.value.split('\n').map((b) => b.trim()).filter(Boolean), headers: headers.value(),
      include_metadata: meta.checked, enabled: enabled.checked };
    if (w) body.id = w.id;
    try {
      const r = (await api('POST', base(ctx), body)).data;
      if (r.secret) fresh = { id: r.webhook.id, secret: r.secret };
      // The unsaved form is replaced by the saved webhook: Back does not
      // return to a form that was sent.
      adjust(here(ctx, { hook: r.webhook.id }));
    } catch (err) { mount(msg, refusal(err)); }
  };
  drawEvents();
  return h('form', { class: 'hook-form', onsubmit: submit },
    h('div', { class: 'card' }, w ? null : h('h2', null, t('webhooks.form.new')),
      field(t('webhooks.label'), label, t('webhooks.label.hint')), field(t('webhooks.url'), url, t('webhooks.url.hint')), scope),
    h('div', { class: 'cols' }, h('div', { class: 'card' }, h('h2', null, t('webhooks.events')), h('p', { class: 'hint' }, t('webhooks.events.hint')), eventsBox), preview.el),
    h('div', { class: 'card' }, field(t('webhooks.branches'), branches, t('webhooks.branches.hint')), headers.el,
      h('label', { class: 'inline' }, meta, t('webhooks.metadata')), h('p', { class: 'hint' }, t('webhooks.metadata.hint')),
      h('label', { class: 'inline' }, enabled, t('webhooks.enabled')), h('p', { class: 'hint' }, t('webhooks.enabled.hint'))),
    msg, h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, t(w ? 'webhooks.save' : 'webhooks.create')),
      w ? null : link(here(ctx, {}), { class: 'button' }, t('webhooks.cancel'))));
}

// scopeEvents is the catalogue a webhook of the chosen scope may take.
const scopeEvents = (listing, s) => listing.events.filter((e) => s.scope === 'deployment' || e.scope === 'forest');

function pruneEvents(listing, s) {
  const ok = new Set(scopeEvents(listing, s).map((e) => e.event));
  for (const e of [...s.events]) if (!ok.has(e)) s.events.delete(e);
}

// eventGroups asks the five questions (config too for a deployment
// webhook), each with select-all and clear, one translated line per
// event beside its token as stored.
function eventGroups(listing, s, changed) {
  const events = scopeEvents(listing, s);
  return QUESTIONS.map((g) => {
    const mine = events.filter((e) => e.group === g);
    if (!mine.length) return null;
    const boxes = mine.map((e) => h('input', { type: 'checkbox', name: 'events', value: e.event, checked: s.events.has(e.event),
      onchange: (ev) => { ev.target.checked ? s.events.add(e.event) : s.events.delete(e.event); changed(e.event); } }));
    const all = (on) => { for (const b of boxes) { b.checked = on; on ? s.events.add(b.value) : s.events.delete(b.value); } changed(); };
    return h('fieldset', { class: 'hook-group', 'data-group': g }, h('legend', null, t(`webhooks.group.${g}`)),
      h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => all(true) }, t('webhooks.group.all')),
        h('button', { type: 'button', onclick: () => all(false) }, t('webhooks.group.clear'))),
      h('ul', { class: 'plain' }, mine.map((e, i) => h('li', null, h('label', { class: 'inline event' }, boxes[i],
        h('span', null, h('code', null, e.event), h('span', { class: 'meta' }, ` ${t(`webhooks.event.${e.event}`)}`)))))));
  });
}

// previewPanel shows the exact body an event will POST: its field order,
// sample data, and title/summary only with the opt-in on an event that
// carries them.
function previewPanel(ctx, s, meta) {
  const pick = h('select', { name: 'preview', id: uid('preview') });
  const pre = h('pre', { class: 'json', tabindex: '0', 'data-preview': '' });
  const draw = () => { pre.textContent = pick.value ? JSON.stringify(sampleBody(pick.value, s.scope, ctx.forest, ctx.me.principal, meta.checked), null, 2) : t('webhooks.preview.none'); };
  const refresh = (chosen) => {
    const names = [...s.events].sort();
    const keep = chosen && s.events.has(chosen) ? chosen : names.includes(pick.value) ? pick.value : names[0] || '';
    mount(pick, names.map((n) => h('option', { value: n, selected: n === keep }, n)));
    pick.value = keep;
    draw();
  };
  pick.addEventListener('change', draw);
  const el = h('div', { class: 'card preview' }, h('h2', null, t('webhooks.preview')), field(t('webhooks.preview.event'), pick),
    h('p', { class: 'hint' }, t('webhooks.preview.hint')), pre);
  return { el, refresh };
}

// headerEditor edits up to max custom headers. A stored header shows its
// name and "kept": its value is never read back; an empty value keeps
// it (sent as null), typing replaces it, removing the row drops it.
function headerEditor(stored, max) {
  const rows = h('ul', { class: 'plain headers' });
  const add = h('button', { type: 'button', 'data-add-header': '' }, t('webhooks.headers.add'));
  const count = () => { add.disabled = rows.children.length >= max; };
  const row = (name, kept) => {
    const n = h('input', { name: 'header-name', 'aria-label': t('webhooks.headers.name'), value: name, spellcheck: 'false' });
    const v = h('input', { name: 'header-value', 'aria-label': t('webhooks.headers.value'), placeholder: kept ? t('webhooks.headers.keptHint') : '', autocomplete: 'off' });
    const li = h('li', { class: 'row', dataset: { kept: kept ? name : '' } }, n, v, kept ? h('span', { class: 'badge' }, t('webhooks.headers.kept')) : null,
      h('button', { type: 'button', onclick: () => { li.remove(); count(); } }, t('webhooks.headers.remove')));
    rows.append(li);
    count();
  };
  for (const name of stored) row(name, true);
  add.addEventListener('click', () => row('', false));
  const value = () => {
    const out = {};
    for (const li of rows.children) {
      const [n, v] = li.querySelectorAll('input');
      const name = n.value.trim();
      if (!name) continue;
      if (v.value !== '') out[name] = v.value;
      else if (li.dataset.kept === name) out[name] = null;
    }
    return out;
  };
  count();
  return { el: h('fieldset', null, h('legend', null, t('webhooks.headers')), h('p', { class: 'hint' }, t('webhooks.headers.hint', { n: max })), rows, add), value };
}
