// SPDX-License-Identifier: Apache-2.0
// Models (10 §6.9): the deployment's providers, this forest's role
// bindings drawn from the host's own role catalogue, the answer store and
// the Gauntlet. Opening it probes no provider: a catalogue is read only
// when the operator presses a test, since a reload is not consent.

import { h, mount, field, uid } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { into, heading, allowed, needsCap, refusal } from './common.js';
import { canopyCard } from './canopy.js';

// PRESETS fill the form with a known server's usual address (ref list).
const PRESETS = [
  { name: 'openrouter', endpoint: 'https://openrouter.ai/api/v1' },
  { name: 'ollama', endpoint: 'http://localhost:11434/v1' },
  { name: 'litellm', endpoint: 'http://localhost:4000/v1' },
  { name: 'llama.cpp', endpoint: 'http://localhost:8090/v1' },
  { name: 'vllm', endpoint: 'http://localhost:8000/v1' },
];

// catalogues keeps what each provider advertised at its last test, for
// the role cards' model pickers; it lives as long as the tab.
const catalogues = new Map();

const enc = encodeURIComponent;

export function render(ctx) {
  if (!allowed(ctx, 'admin')) return needsCap('admin');
  const body = h('div');
  const canopy = canopyCard(ctx);
  const page = { ctx, governs: false, body, canopy, providers: [], roles: [], bindings: [], redraws: new Set() };
  page.reload = () => into(body, async () => {
    const [p, m] = await Promise.all([api('GET', '/v1/admin/providers'), api('GET', `/v1/admin/models?forest=${enc(ctx.forest)}`)]);
    // Providers are the deployment's: changing or testing one needs the
    // owner or admin on every forest (09 §8), which the host alone can
    // judge; the API refuses anyway.
    page.governs = p.data.governs === true;
    page.providers = p.data.providers || [];
    page.roles = m.data.roles || [];
    page.bindings = m.data.bindings || [];
    page.redraws.clear();
    return h('div', null, page.governs ? null : h('div', { class: 'card needs', 'data-governs': 'no' }, h('p', null, t('models.notGoverning'))),
      providersCard(page), h('h2', { class: 'section' }, t('models.roles')),
      h('p', { class: 'hint' }, t('models.roles.lead', { forest: ctx.forest })),
      h('div', { class: 'role-cards' }, page.roles.map((r) => roleCard(page, r))));
  });
  page.reload();
  const cache = h('div');
  into(cache, async () => cacheCard(ctx, cache, (await api('GET', `/v1/admin/cache?forest=${enc(ctx.forest)}`)).data));
  return h('section', { class: 'models' }, heading(t('shell.console.models')), h('p', { class: 'hint' }, t('models.lead')),
    body, h('div', { class: 'cols two' }, cache, canopy));
}

// isPrivate guesses from the text whether an endpoint names this machine
// or a private network, where the address rule applies; the host judges
// every resolved address, this only decides where to explain it.
export function isPrivate(endpoint) {
  let host = '';
  try { host = new URL(endpoint).hostname.replace(/^\[|\]$/g, ''); } catch { return false; }
  return /^(localhost|.*\.local|.*\.internal|127\.|10\.|192\.168\.|169\.254\.|172\.(1[6-9]|2\d|3[01])\.|::1$|f[cd][0-9a-f]{2}:|0\.0\.0\.0)/i.test(host) || !host.includes('.') && !host.includes(':');
}

function providersCard(page) {
  const out = h('div', { 'aria-live': 'polite' });
  const form = providerForm(page);
  const why = page.governs ? null : t('models.notGoverning.short');
  const row = (p) => {
    const test = h('button', { type: 'button', 'data-test': p.name, disabled: !page.governs, title: why,
      onclick: () => testProvider(page, p, test, out) }, t('models.test'));
    const edit = h('button', { type: 'button', 'data-edit': p.name, disabled: !page.governs || p.origin === 'env',
      title: p.origin === 'env' ? t('models.env.why') : why, onclick: () => form.fill(p) }, t('models.edit'));
    const remove = h('button', { type: 'button', 'data-remove': p.name, disabled: !page.governs || p.origin === 'env',
      title: p.origin === 'env' ? t('models.env.why') : why, onclick: () => confirmRemove(page, p, out) }, t('models.remove'));
    return h('tr', { 'data-provider': p.name }, h('td', null, h('strong', null, p.name)), h('td', { class: 'endpoint' }, p.endpoint),
      h('td', null, p.origin === 'env' ? h('span', { class: 'badge env', title: t('models.env.why') }, t('models.env')) : h('span', { class: 'badge' }, t('models.console'))),
      h('td', null, h('span', { class: p.has_key ? 'badge key-stored' : 'badge' }, t(p.has_key ? 'models.key.stored' : 'models.key.none'))),
      h('td', null, h('div', { class: 'row' }, test, edit, remove)));
  };
  const list = page.providers.length
    ? h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('models.providers') }, h('table', { class: 'grid providers' },
      h('thead', null, h('tr', null, ['name', 'endpoint', 'origin', 'key', 'actions'].map((c) => h('th', { scope: 'col' }, t(`models.col.${c}`))))),
      h('tbody', null, page.providers.map(row))))
    : h('p', { class: 'hint', 'data-empty': '' }, t('models.providers.none'));
  return h('div', { class: 'card' }, h('h2', null, t('models.providers')), h('p', { class: 'hint' }, t('models.providers.lead')),
    list, out, form.el);
}

// testProvider asks the host to probe the provider's catalogue; a
// success feeds the role cards' pickers.
async function testProvider(page, p, btn, out) {
  btn.disabled = true;
  mount(out, h('p', { class: 'spinner', role: 'status' }, t('models.testing', { name: p.name })));
  try {
    const r = (await api('POST', '/v1/admin/providers/test', { name: p.name })).data;
    if (r.ok) {
      catalogues.set(p.name, r.models || []);
      for (const fn of page.redraws) fn();
    }
    mount(out, testResult(p, r));
  } catch (e) {
    mount(out, refusal(e), isPrivate(p.endpoint) ? privateNote() : null);
  }
  btn.disabled = false;
}

function testResult(p, r) {
  if (!r.ok) {
    return h('div', { class: 'test-result', 'data-ok': 'false' }, h('p', { class: 'error' }, t('models.unreachable', { name: p.name })),
      h('p', { class: 'meta' }, r.error || ''));
  }
  const models = r.models || [];
  return h('div', { class: 'test-result', 'data-ok': 'true' }, h('p', { class: 'ok' }, t('models.reachable', { name: p.name, n: r.count })),
    models.length ? h('details', null, h('summary', null, t('models.catalogue')),
      h('ul', { class: 'plain catalogue' }, models.slice(0, 200).map((m) => h('li', null, h('code', null, m.id), ' ', priceLine(m))))) : null);
}

// perMillion states a per-token price per million tokens; an absent
// price is no price, never $0.
const perMillion = (p) => {
  const v = p * 1e6;
  return `$${v >= 0.01 || v === 0 ? v.toFixed(2) : v.toPrecision(2)}`;
};

function priceLine(m) {
  if (!m) return null;
  const parts = [];
  if (m.prompt != null) parts.push(t('models.price.prompt', { price: perMillion(m.prompt) }));
  if (m.completion != null) parts.push(t('models.price.completion', { price: perMillion(m.completion) }));
  if (m.context != null) parts.push(t('models.context', { n: m.context }));
  return parts.length ? h('span', { class: 'meta', 'data-price': '' }, parts.join(' · ')) : null;
}

// confirmRemove asks a second, explicit step: a provider's bindings on
// every forest go with it.
function confirmRemove(page, p, out) {
  mount(out, h('div', { class: 'row confirm', role: 'alert' }, h('span', null, t('models.remove.confirm', { name: p.name })),
    h('button', { type: 'button', class: 'danger', 'data-remove-yes': p.name, onclick: () => removeProvider(page, p, out) }, t('models.remove.yes')),
    h('button', { type: 'button', onclick: () => mount(out) }, t('models.remove.no'))));
}

async function removeProvider(page, p, out) {
  try {
    await api('POST', '/v1/admin/providers', { name: p.name, remove: true });
    catalogues.delete(p.name);
    page.reload();
  } catch (e) { mount(out, refusal(e)); }
}

function privateNote() {
  return h('div', { class: 'private-note', role: 'note', 'data-private': '' }, h('strong', null, t('models.private.title')), ' ',
    t('models.private.rule'), ' ', h('code', null, 'MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE=1'));
}

// providerForm adds or changes a provider. The key is write-only: it is
// never read back, and left blank it keeps the stored one while the
// endpoint stays the same (09 §8 custody).
function providerForm(page) {
  const off = !page.governs;
  const name = h('input', { name: 'provider-name', required: true, maxlength: 64, disabled: off, autocomplete: 'off' });
  const endpoint = h('input', { name: 'endpoint', type: 'url', required: true, disabled: off, placeholder: 'https://…/v1' });
  const key = h('input', { name: 'api_key', type: 'password', autocomplete: 'new-password', disabled: off });
  const note = h('div', { 'aria-live': 'polite' });
  const msg = h('div', { 'aria-live': 'polite' });
  const explain = () => mount(note, isPrivate(endpoint.value) ? privateNote() : null);
  endpoint.addEventListener('input', explain);
  const set = (n, e) => { name.value = n; endpoint.value = e; key.value = ''; explain(); };
  const presets = h('div', { class: 'row presets', role: 'group', 'aria-label': t('models.presets') }, h('span', { class: 'meta' }, t('models.presets')),
    PRESETS.map((p) => h('button', { type: 'button', disabled: off, 'data-preset': p.name, onclick: () => set(p.name, p.endpoint) }, p.name)));
  const submit = async (e) => {
    e.preventDefault();
    const body = { name: name.value.trim(), endpoint: endpoint.value.trim() };
    if (key.value) body.api_key = key.value;
    try {
      await api('POST', '/v1/admin/providers', body);
      key.value = '';
      page.reload();
    } catch (err) { mount(msg, refusal(err)); }
  };
  const el = h('form', { class: 'provider-form', onsubmit: submit }, h('h3', null, t('models.form')), presets,
    h('div', { class: 'row' }, field(t('models.name'), name), h('div', { class: 'grow' }, field(t('models.endpoint'), endpoint, t('models.endpoint.hint')))),
    note, field(t('models.key'), key, t('models.key.hint')), msg,
    h('button', { class: 'primary', type: 'submit', disabled: off, title: off ? t('models.notGoverning.short') : null }, t('models.save.provider')));
  return { el, fill: (p) => { set(p.name, p.endpoint); name.focus(); } };
}

// defaultTokens are the host's defaults (09 §8): answer 1500, else 600.
const defaultTokens = (role) => (role === 'answer' ? 1500 : 600);

// roleCard binds one role of the catalogue: provider, model (picked
// from the provider's tested catalogue or typed), limits; the save
// button says whether there is anything to save.
function roleCard(page, r) {
  const b = page.bindings.find((x) => x.role === r.role);
  const saved = { provider: b ? b.provider : '', model: b ? b.model : '', max_tokens: String(b ? b.max_tokens : defaultTokens(r.role)), reasoning: b ? b.reasoning : 'off' };
  const listID = uid('models');
  const provider = h('select', { name: 'provider' }, h('option', { value: '' }, t('models.pick')),
    page.providers.map((p) => h('option', { value: p.name, selected: p.name === saved.provider }, p.name)),
    saved.provider && !page.providers.some((p) => p.name === saved.provider) ? h('option', { value: saved.provider, selected: true }, saved.provider) : null);
  const model = h('input', { name: 'model', list: listID, value: saved.model, autocomplete: 'off', spellcheck: 'false' });
  const list = h('datalist', { id: listID });
  const price = h('div', { class: 'price', 'aria-live': 'polite' });
  const tokens = h('input', { name: 'max_tokens', type: 'number', min: 1, step: 1, value: saved.max_tokens });
  const reasoning = h('select', { name: 'reasoning' }, ['off', 'on'].map((v) => h('option', { value: v, selected: v === saved.reasoning }, t(`models.reasoning.${v}`))));
  const save = h('button', { class: 'primary', type: 'submit', 'data-save': r.role });
  const msg = h('div', { 'aria-live': 'polite' });
  let state = 'clean';
  const now = () => ({ provider: provider.value, model: model.value.trim(), max_tokens: tokens.value, reasoning: reasoning.value });
  const dirty = () => JSON.stringify(now()) !== JSON.stringify(saved);
  const paint = () => {
    if (state !== 'saving') state = dirty() ? 'dirty' : state === 'saved' ? 'saved' : 'clean';
    save.dataset.state = state;
    save.disabled = state !== 'dirty' || !provider.value || !model.value.trim();
    save.textContent = t(`models.state.${state}`);
  };
  const drawList = () => {
    const cat = catalogues.get(provider.value) || [];
    mount(list, cat.map((m) => h('option', { value: m.id }, m.name && m.name !== m.id ? m.name : null)));
    mount(price, priceLine(cat.find((m) => m.id === model.value.trim())));
  };
  page.redraws.add(drawList);
  // A change event on blur after a save changes nothing: "saved" stays
  // until the values differ from what was saved.
  const edited = () => { drawList(); paint(); };
  for (const c of [provider, model, tokens, reasoning]) { c.addEventListener('input', edited); c.addEventListener('change', edited); }
  const submit = async (e) => {
    e.preventDefault();
    const v = now();
    state = 'saving';
    paint();
    try {
      await api('POST', '/v1/admin/models', { forest: page.ctx.forest, role: r.role, provider: v.provider, model: v.model,
        max_tokens: Number(v.max_tokens) || undefined, reasoning: v.reasoning });
      Object.assign(saved, v);
      state = 'saved';
      mount(msg);
      mount(status, boundLine(saved));
      unbind.hidden = false;
      if (r.kind === 'embed') page.canopy.reload();
    } catch (err) {
      state = 'dirty';
      mount(msg, refusal(err));
    }
    paint();
  };
  const unbind = h('button', { type: 'button', 'data-unbind': r.role, hidden: !b, onclick: async () => {
    try {
      await api('POST', '/v1/admin/models', { forest: page.ctx.forest, role: r.role, remove: true });
      page.reload();
      if (r.kind === 'embed') page.canopy.reload();
    } catch (err) { mount(msg, refusal(err)); }
  } }, t('models.unbind'));
  const status = h('p', { class: 'meta', 'data-bound': '' }, b ? boundLine(saved) : t('models.unbound'));
  drawList();
  paint();
  return h('form', { class: 'card role-card', 'data-role': r.role, onsubmit: submit },
    h('div', { class: 'row' }, h('h3', null, h('code', null, r.role)), h('span', { class: 'badge' }, r.kind)),
    h('p', { class: 'hint' }, r.description), status,
    field(t('models.provider'), provider), field(t('models.model'), model, t('models.model.hint')), list, price,
    h('div', { class: 'pair' }, field(t('models.maxTokens'), tokens), field(t('models.reasoning'), reasoning)),
    msg, h('div', { class: 'row' }, save, unbind));
}

const boundLine = (s) => t('models.bound', { provider: s.provider, model: s.model });

// cacheCard is the answer store (09 §12): settings, the host's
// statistics as sent, clear.
function cacheCard(ctx, region, d) {
  const s = d.settings || {};
  const st = d.stats || {};
  const enabled = h('input', { type: 'checkbox', name: 'cache-enabled', checked: s.enabled });
  const max = h('input', { type: 'number', name: 'max_entries', min: 1, step: 1, value: String(s.max_entries) });
  const ttl = h('input', { type: 'number', name: 'ttl_hours', min: 0, step: 'any', value: s.ttl_hours == null ? '' : String(s.ttl_hours) });
  const msg = h('div', { 'aria-live': 'polite' });
  const send = async (body) => {
    try { mount(region, cacheCard(ctx, region, (await api('POST', '/v1/admin/cache', { forest: ctx.forest, ...body })).data)); } catch (e) { mount(msg, refusal(e)); }
  };
  const submit = (e) => {
    e.preventDefault();
    send({ enabled: enabled.checked, max_entries: Number(max.value), ttl_hours: ttl.value === '' ? null : Number(ttl.value) });
  };
  return h('form', { class: 'card cache-card', onsubmit: submit }, h('h2', null, t('models.cache')), h('p', { class: 'hint' }, t('models.cache.lead')),
    h('dl', { class: 'facts' },
      h('dt', null, t('models.cache.held')), h('dd', { 'data-held': '' }, t('models.cache.heldOf', { held: st.held || 0, max: s.max_entries })),
      h('dt', null, t('models.cache.hits')), h('dd', null, String(st.hits || 0)),
      h('dt', null, t('models.cache.misses')), h('dd', null, String(st.misses || 0)),
      st.avoided_usd != null ? [h('dt', null, t('models.cache.avoided')), h('dd', null, `$${st.avoided_usd.toFixed(4)}`)] : null),
    d.cleared ? h('p', { class: 'ok', role: 'status' }, t('models.cache.cleared')) : null,
    h('label', { class: 'inline' }, enabled, t('models.cache.enabled')),
    h('div', { class: 'row' }, field(t('models.cache.max'), max), field(t('models.cache.ttl'), ttl, t('models.cache.ttl.hint'))),
    msg, h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, t('models.cache.save')),
      h('button', { type: 'button', 'data-clear': '', onclick: () => send({ clear: true }) }, t('models.cache.clear'))));
}
