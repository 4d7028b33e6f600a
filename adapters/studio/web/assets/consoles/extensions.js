// SPDX-License-Identifier: Apache-2.0
// Extensions (11 §6, §8 L.10–L.11): what this Station has installed and
// whether this forest enables each; install as one act (review = plan,
// shown in place beside the one install control, then the outcome in
// order); remove with what it would lose; and each extension's settings
// drawn from its declarative panel with this console's own components.
// Formats, roles and tools are the host's answers, never a list kept
// here (F.218); a panel is data rendered as text, never a script.

import { h, mount, field, uid } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { link } from '../router.js';
import { into, heading, allowed, needsCap, refusal, loading } from './common.js';

const BASE = '/v1/admin/extensions';
const enc = encodeURIComponent;

export function render(ctx) {
  if (!allowed(ctx, 'admin')) return needsCap('admin');
  const page = { ctx, governs: false, bound: new Set(), list: h('div'), outcome: h('div', { 'aria-live': 'polite' }) };
  page.reload = () => into(page.list, async () => cards(page, await state(page)));
  const body = h('div');
  into(body, async () => {
    const s = await state(page);
    // may_install is the host's judgement of authority over the whole
    // deployment (09 §5): installed code reaches every forest.
    page.governs = s.listing.may_install === true;
    return h('div', null, installArea(page, s.listing), page.outcome, mount(page.list, cards(page, s)));
  });
  return h('section', { class: 'extensions' }, heading(t('shell.console.extensions')), h('p', { class: 'hint' }, t('extensions.lead')), body);
}

// state reads the listing, this forest's enablement and its role
// bindings (to say which roles an extension still needs bound).
async function state(page) {
  const f = enc(page.ctx.forest);
  // The forest's own file may be refused (a secret written in it): the
  // listing still shows, with the refusal where the toggles would be.
  const kept = (p) => p.then((r) => r.data, (error) => ({ error }));
  const [listing, en, models, jobs] = await Promise.all([api('GET', BASE), kept(api('GET', `${BASE}/enablement?forest=${f}`)),
    kept(api('GET', `/v1/admin/models?forest=${f}`)), kept(api('GET', `${BASE}/jobs?forest=${f}`))]);
  page.bound = new Set((models.bindings || []).map((b) => b.role));
  return { listing: listing.data, en, jobs: jobs.jobs || [] };
}

function installArea(page, listing) {
  if (listing.loader === 'inert') return h('div', { class: 'card needs', 'data-inert': '' }, h('p', null, t('extensions.inert')));
  if (!page.governs) return h('div', { class: 'card needs', 'data-governs': 'no' }, h('p', null, t('extensions.notGoverning')));
  return installCard(page);
}

function cards(page, s) {
  const refused = s.en.error ? refusal(s.en.error, page.reload) : null;
  const absent = s.en.expected_but_absent || [];
  const warn = absent.length ? h('div', { class: 'card needs', role: 'status', 'data-absent': '' },
    h('p', null, h('strong', null, t('extensions.absent', { forest: page.ctx.forest }))),
    h('ul', null, absent.map((id) => h('li', null, h('code', null, id)))), h('p', { class: 'hint' }, t('extensions.absent.why'))) : null;
  const list = s.listing.extensions || [];
  if (!list.length) return h('div', null, refused, warn, h('div', { class: 'card', 'data-empty': '' }, h('p', null, t('extensions.none'))));
  const enabled = new Set(s.en.enabled || []);
  return h('div', null, refused, warn, jobsCard(page, s.jobs), list.map((e) => extCard(page, e, enabled.has(e.id))));
}

// jobsCard lists the jobs this forest's enabled extensions offer; a
// job runs only when its admin presses Run (never scheduled), and its
// answer is shown as the host sent it.
function jobsCard(page, jobs) {
  if (!jobs.length) return null;
  const row = (j) => {
    const out = h('div', { 'aria-live': 'polite', 'data-job-result': `${j.ext}.${j.name}` });
    const run = h('button', { type: 'button', 'data-run-job': `${j.ext}.${j.name}`, onclick: async () => {
      run.disabled = true;
      mount(out, loading());
      try {
        const r = (await api('POST', `${BASE}/jobs`, { forest: page.ctx.forest, job: j.name, ext: j.ext })).data;
        mount(out, h('pre', { class: 'json', tabindex: '0' }, JSON.stringify(r.result, null, 2)));
      } catch (err) { mount(out, refusal(err)); }
      run.disabled = false;
    } }, t('extensions.jobs.run'));
    return h('li', null, h('div', { class: 'row' }, h('code', null, j.name), h('span', { class: 'badge' }, j.ext), run),
      j.description ? h('div', { class: 'hint' }, j.description) : null, out);
  };
  return h('div', { class: 'card ext-jobs', 'data-jobs': '' }, h('h2', null, t('extensions.jobs', { forest: page.ctx.forest })),
    h('p', { class: 'hint' }, t('extensions.jobs.lead')), h('ul', { class: 'plain' }, jobs.map(row)));
}

// tierLine names the tier everywhere the extension appears, and a
// moving ref it tracks.
function tierLine(x) {
  const word = ['verified', 'signed', 'unverified'].includes(x.tier) ? t(`extensions.tier.${x.tier}`) : x.tier;
  return [h('span', { class: 'badge tier', 'data-tier': x.tier }, word),
    x.tracking ? h('span', { class: 'badge tracking', 'data-tracking': x.tracking }, t('extensions.tracking', { ref: x.tracking })) : null];
}

function extCard(page, e, enabled) {
  const hid = uid('ext');
  const msg = h('div', { 'aria-live': 'polite' });
  const box = h('input', { type: 'checkbox', checked: enabled, 'data-enable': e.id, onchange: () => setEnabled(page, e, box, msg) });
  return h('article', { class: 'card ext-card', 'data-ext': e.id, 'aria-labelledby': hid },
    h('div', { class: 'row' }, h('h2', { id: hid }, e.id), h('span', { class: 'meta' }, e.version), tierLine(e),
      h('span', { class: e.running ? 'badge ok' : 'badge', 'data-running': String(e.running) }, t(e.running ? 'extensions.loaded' : 'extensions.notLoaded'))),
    e.description ? h('p', null, e.description) : null,
    h('label', { class: 'inline' }, box, t('extensions.enabledOn', { forest: page.ctx.forest })), msg,
    facts(e), (e.unserved || []).map((u) => h('p', { class: 'hint', 'data-unserved': u.surface }, t('extensions.unserved', { surface: u.surface, note: u.note }))),
    settings(page, e), page.governs ? removeControl(page, e) : null);
}

const codes = (xs) => (xs.length ? xs.map((x, i) => [i ? ', ' : null, h('code', null, x)]) : t('extensions.nothing'));
const roleList = (rs) => codes(rs.map((r) => `${r.role} (${r.kind})`));

// facts are what the host served about one extension; provenance
// appears only for those who govern the deployment (the host withholds it).
function facts(e) {
  const row = (k, v, attr) => [h('dt', null, t(k)), h('dd', attr || null, v)];
  const seams = Object.entries(e.contributes || {}).map(([s, n]) => `${s} ${n}`);
  return h('dl', { class: 'facts' },
    row('extensions.license', e.license),
    row('extensions.formats', codes(e.formats || []), { 'data-formats': '' }),
    row('extensions.offersRoles', roleList(e.registers_roles || []), { 'data-roles': '' }),
    row('extensions.requiresRoles', codes(e.requires_roles || [])),
    row('extensions.tools', codes((e.tools || []).map((x) => x.name)), { 'data-tools': '' }),
    row('extensions.contributes', codes(seams)),
    row('extensions.installedAt', e.installed_at),
    e.source ? row('extensions.source', h('code', null, e.source)) : null,
    e.revision ? row('extensions.revision', h('code', null, e.revision)) : null,
    e.reason ? row('extensions.reason', e.reason) : null);
}

async function setEnabled(page, e, box, msg) {
  box.disabled = true;
  try {
    await api('POST', `${BASE}/enablement`, { forest: page.ctx.forest, ext: e.id, enabled: box.checked });
    page.reload();
  } catch (err) {
    box.checked = !box.checked;
    box.disabled = false;
    mount(msg, refusal(err));
  }
}

// settings draws the extension's panel, or, when it declares none, its
// declared settings in key order: the manifest's config is the truth, a
// panel only arranges it (11 §6).
function settings(page, e) {
  const keys = Object.keys(e.config || {}).sort();
  if (!e.panel && !keys.length) return null;
  const panel = { ...(e.panel || { title: t('extensions.settings'), sections: [{ title: '', fields: keys }] }) };
  // A setting the panel leaves out is still declared, so still shown.
  const shown = new Set((panel.sections || []).flatMap((s) => s.fields || []));
  const rest = keys.filter((k) => !shown.has(k));
  if (rest.length) panel.sections = [...(panel.sections || []), { title: t('extensions.settings.other'), fields: rest }];
  const region = h('div', { class: 'ext-settings' });
  if (!page.governs) return mount(region, panelForm(e, panel, null));
  into(region, async () => panelForm(e, panel, (await api('GET', `${BASE}/config?ext=${enc(e.id)}`)).data.values || {}));
  return region;
}

// panelForm renders a declarative panel: title, blurb, sections of
// fields bound to the config route, notes, all as text. Without values
// (an admin who does not govern the deployment) it is read-only and
// says why.
function panelForm(e, panel, values) {
  const off = values == null;
  const controls = new Map();
  const msg = h('div', { 'aria-live': 'polite' });
  const sections = (panel.sections || []).map((s) => h('fieldset', null, s.title ? h('legend', null, s.title) : null,
    (s.fields || []).map((k) => {
      const c = control(k, e.config[k] || { type: 'string' }, off ? null : values[k] || {}, off);
      controls.set(k, c);
      return c.el;
    })));
  const submit = async (ev) => {
    ev.preventDefault();
    const out = {};
    for (const [k, c] of controls) out[k] = c.read();
    try {
      const r = await api('POST', `${BASE}/config`, { ext: e.id, values: out });
      for (const [k, c] of controls) c.update((r.data.values || {})[k] || {});
      mount(msg, h('p', { class: 'ok', role: 'status', 'data-saved': '' }, t('extensions.settings.saved')));
    } catch (err) { mount(msg, refusal(err)); }
  };
  return h('form', { class: 'ext-panel', 'data-panel': e.id, 'aria-label': panel.title || e.id, onsubmit: submit },
    h('h3', null, panel.title || e.id), panel.blurb ? h('p', { class: 'hint' }, panel.blurb) : null,
    off ? h('p', { class: 'readonly', 'data-readonly': '' }, t('extensions.settings.readOnly')) : null,
    sections, panel.notes ? h('p', { class: 'notes', 'data-notes': '' }, panel.notes) : null, msg,
    off ? null : h('button', { type: 'submit', 'data-save-settings': e.id }, t('extensions.settings.save')));
}

// control is one setting, shaped by its declared type. A secret is
// write-only: it shows set or not set, never a value, and left blank it
// sends null, which keeps the stored value.
function control(key, f, s, off) {
  const hint = [f.description, f.required ? t('extensions.settings.required') : null].filter(Boolean).join(' · ');
  const attrs = { name: key, 'data-setting': key, disabled: off };
  if (f.secret) {
    const el = h('input', { ...attrs, type: 'password', autocomplete: 'new-password', placeholder: t(off ? 'extensions.settings.withheld' : 'extensions.secret.placeholder') });
    const badge = h('span', { class: 'badge', 'data-secret': key });
    const update = (x) => {
      badge.className = x.has_value ? 'badge ok' : 'badge';
      badge.textContent = x.has_value ? t('extensions.secret.set') : t('extensions.secret.notSet');
      el.value = '';
    };
    if (s) update(s);
    el.id = uid('secret');
    const labelled = h('div', { class: 'field' }, h('label', { for: el.id }, key, off ? null : [' ', badge]), el, hint ? h('div', { class: 'hint' }, hint) : null);
    return { el: h('div', { class: 'setting' }, labelled), read: () => el.value || null, update };
  }
  // Read-only, the values are withheld by the host: nothing is shown
  // rather than a default that may not be what is stored.
  const shown = off ? null : s && s.value != null ? s.value : f.default;
  if (f.type === 'boolean') {
    const el = h('input', { ...attrs, type: 'checkbox', checked: shown === true });
    el.indeterminate = off;
    return { el: h('div', { class: 'setting' }, h('label', { class: 'inline' }, el, key), hint ? h('div', { class: 'hint' }, hint) : null),
      read: () => el.checked, update: (x) => { el.checked = x.value === true; } };
  }
  const numeric = f.type === 'integer' || f.type === 'number';
  const el = h('input', { ...attrs, type: numeric ? 'number' : 'text', step: f.type === 'integer' ? 1 : numeric ? 'any' : null,
    value: shown == null ? '' : String(shown), autocomplete: 'off', spellcheck: 'false', placeholder: off ? t('extensions.settings.withheld') : null });
  // An empty box sends null: it keeps what is stored.
  const read = () => (el.value === '' ? null : numeric ? Number(el.value) : el.value);
  return { el: h('div', { class: 'setting' }, field(key, el, hint)), read, update: (x) => { if (x.value != null) el.value = String(x.value); } };
}

// removeControl asks a second, explicit step; a 409 names what the
// forests would lose, and only then may the person acknowledge it.
function removeControl(page, e) {
  const out = h('div', { 'aria-live': 'polite' });
  const send = async (ack) => {
    try {
      const r = (await api('POST', BASE, { action: 'remove', id: e.id, acknowledge: ack || undefined })).data;
      mount(page.outcome, h('div', { class: 'card', role: 'status', 'data-removed': e.id },
        h('p', null, t(r.restart_required ? 'extensions.removed.restart' : 'extensions.removed', { id: e.id })),
        h('p', { class: 'hint' }, t('extensions.removed.quarantine'))));
      page.reload();
    } catch (err) {
      const env = (err.data && err.data.error) || {};
      const losing = err.status === 409 ? env.losing || (err.data && err.data.losing) : null;
      mount(out, losing ? losingStep(e, losing, () => send(true), () => mount(out)) : refusal(err));
    }
  };
  const ask = () => mount(out, h('div', { class: 'row confirm', role: 'alert' }, h('span', null, t('extensions.remove.confirm', { id: e.id })),
    h('button', { type: 'button', class: 'danger', 'data-remove-yes': e.id, onclick: () => send(false) }, t('extensions.remove.yes')),
    h('button', { type: 'button', onclick: () => mount(out) }, t('extensions.remove.no'))));
  return h('div', { class: 'ext-remove' }, h('button', { type: 'button', 'data-remove': e.id, onclick: ask }, t('extensions.remove')), out);
}

function losingStep(e, losing, yes, no) {
  return h('div', { class: 'card needs', role: 'alert', 'data-losing': e.id }, h('p', null, t('extensions.losing', { id: e.id })),
    h('ul', null, losing.map((x) => h('li', null, h('code', null, typeof x === 'string' ? x : JSON.stringify(x))))),
    h('div', { class: 'row' }, h('button', { type: 'button', class: 'danger', 'data-remove-ack': e.id, onclick: yes }, t('extensions.losing.yes')),
      h('button', { type: 'button', onclick: no }, t('extensions.remove.no'))));
}

// installCard is the one install act: a source or a zip; choosing
// changes nothing; Review asks the host for the plan and shows it in
// place, with the install control beside it.
function installCard(page) {
  const source = h('input', { name: 'ext-source', autocomplete: 'off', spellcheck: 'false', placeholder: 'github.com/org/repo@v1.2.0' });
  const file = h('input', { type: 'file', name: 'ext-upload', accept: '.zip,application/zip' });
  const plan = h('div', { 'aria-live': 'polite' });
  const review = h('button', { type: 'submit', 'data-review': '' }, t('extensions.review'));
  // What was reviewed no longer stands once the choice changes.
  source.addEventListener('input', () => mount(plan));
  file.addEventListener('change', () => mount(plan));
  const done = () => { mount(plan); source.value = ''; file.value = ''; };
  const submit = async (ev) => {
    ev.preventDefault();
    const body = await chosen(source, file);
    if (!body) return mount(plan, h('p', { class: 'error', role: 'alert' }, t('extensions.source.none')));
    review.disabled = true;
    mount(plan, loading());
    try {
      mount(plan, planView(page, (await api('POST', BASE, { action: 'plan', ...body })).data, body, done));
    } catch (err) { mount(plan, refusal(err)); }
    review.disabled = false;
  };
  return h('form', { class: 'card ext-install', onsubmit: submit }, h('h2', null, t('extensions.install.title')),
    h('p', { class: 'hint' }, t('extensions.install.lead')),
    h('div', { class: 'row' }, h('div', { class: 'grow' }, field(t('extensions.source.field'), source, t('extensions.source.hint'))),
      field(t('extensions.upload'), file, t('extensions.upload.hint'))),
    review, plan);
}

// chosen is the request's source: an uploaded zip as {name, b64} (the
// host never learns a path of this machine), else the typed source.
async function chosen(source, file) {
  const f = file.files && file.files[0];
  if (f) {
    const bytes = new Uint8Array(await f.arrayBuffer());
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { upload: { name: f.name, b64: btoa(s) } };
  }
  const v = source.value.trim();
  return v ? { source: v } : null;
}

// planView is the plan beside the single install control: an
// unverified tier needs the acknowledgement ticked; enable_on defaults
// on for this forest, which the person administers.
function planView(page, p, body, done) {
  const kitOK = !!(p.kit && p.kit.ok);
  const unverified = p.tier === 'unverified';
  const ack = h('input', { type: 'checkbox', name: 'acknowledge', 'data-ack': '' });
  const enableOn = h('input', { type: 'checkbox', name: 'enable_on', checked: true, 'data-enable-on': '' });
  const go = h('button', { type: 'button', class: 'primary', 'data-install': '' }, t('extensions.install'));
  const msg = h('div', { 'aria-live': 'polite' });
  const paint = () => { go.disabled = !kitOK || (unverified && !ack.checked); };
  ack.addEventListener('change', paint);
  paint();
  go.addEventListener('click', async () => {
    go.disabled = true;
    try {
      const r = (await api('POST', BASE, { action: 'install', ...body, acknowledge: ack.checked || undefined,
        enable_on: enableOn.checked ? page.ctx.forest : undefined })).data;
      done();
      await page.reload();
      mount(page.outcome, outcome(page, r));
    } catch (err) {
      mount(msg, refusal(err));
      paint();
    }
  });
  const box = h('aside', { class: 'install-box' },
    unverified ? h('label', { class: 'inline' }, ack, t('extensions.acknowledge')) : null,
    h('label', { class: 'inline' }, enableOn, t('extensions.enableOn', { forest: page.ctx.forest })),
    kitOK ? null : h('p', { class: 'error' }, t('extensions.kit.failed')), go, msg);
  return h('div', { class: 'cols ext-plan', 'data-plan': p.id || '' }, planFacts(p), box);
}

function planFacts(p) {
  const row = (k, v) => [h('dt', null, t(k)), h('dd', null, v)];
  const perm = p.permissions || {};
  const seams = Object.entries(p.contributes || {}).map(([s, n]) => `${s} ${n}`);
  return h('div', null, h('h3', null, p.id ? `${p.id} ${p.version || ''}` : t('extensions.plan')),
    h('dl', { class: 'facts' },
      row('extensions.tier', [tierLine(p), p.reason ? h('div', { class: 'meta' }, p.reason) : null]),
      row('extensions.source', h('code', null, p.source)),
      p.revision ? row('extensions.revision', h('code', null, p.revision)) : null,
      row('extensions.license', h('strong', { 'data-license': '' }, p.license || '—')),
      row('extensions.permissions', h('div', null,
        h('div', null, t('extensions.permissions.network', { hosts: (perm.network || []).join(', ') || '—' })),
        h('div', null, t('extensions.permissions.filesystem', { mode: perm.filesystem || 'none' })),
        (perm.capabilities || []).length ? h('div', null, t('extensions.permissions.caps', { caps: perm.capabilities.join(', ') })) : null,
        h('div', { class: 'hint' }, t('extensions.permissions.note')))),
      row('extensions.contributes', codes(seams)),
      row('extensions.offersRoles', roleList(p.registers_roles || [])),
      row('extensions.requiresRoles', codes(p.requires_roles || []))),
    kitView(p.kit));
}

function kitView(kit) {
  if (!kit) return null;
  return [h('details', { class: 'kit', open: !kit.ok, 'data-kit': kit.ok ? 'ok' : 'failed' },
    h('summary', null, t(kit.ok ? 'extensions.kit.ok' : 'extensions.kit.bad', { n: kit.checks.length, failed: (kit.failed || []).join(', ') })),
    h('ul', { class: 'plain' }, kit.checks.map((c) => h('li', { class: c.ok ? 'ok' : 'error' },
      h('span', { 'aria-hidden': 'true' }, c.ok ? '✓ ' : '✗ '), h('span', { class: 'sr' }, c.ok ? t('extensions.kit.pass') : t('extensions.kit.fail')),
      h('code', null, c.check), c.detail ? h('span', { class: 'meta' }, ` ${c.detail}`) : null)))),
  // The kit's note stands wherever its result does, open or folded.
  h('p', { class: 'hint', 'data-kit-note': '' }, t('extensions.kit.note'))];
}

// outcome states, in order: active now or after a restart; what it
// accepts and offers; what is missing, with the way to Models.
function outcome(page, r) {
  const roles = r.registers_roles || [];
  const missing = [...(r.requires_roles || []), ...roles.map((x) => x.role)].filter((x, i, a) => a.indexOf(x) === i && !page.bound.has(x));
  const models = (role) => link({ forest: page.ctx.forest, console: 'models', params: {} }, { 'data-bind-role': role }, t('extensions.outcome.bind', { role }));
  return h('div', { class: 'card ext-outcome', role: 'status', 'data-outcome': r.id },
    h('h2', null, t('extensions.outcome.title', { id: r.id, version: r.version }), ' ', tierLine(r)),
    h('p', { 'data-active': r.restart_required ? 'restart' : 'now' }, t(r.restart_required ? 'extensions.outcome.restart' : 'extensions.outcome.active')),
    r.activation_note ? h('p', { class: 'hint' }, r.activation_note) : null,
    r.enabled_on ? h('p', { 'data-enabled-on': r.enabled_on }, t('extensions.outcome.enabled', { forest: r.enabled_on })) : null,
    r.enable_error ? h('p', { class: 'error', 'data-enable-error': '' }, t('extensions.outcome.enableError', { message: r.enable_error.message || '' })) : null,
    r.config_recovered ? h('p', { class: 'hint' }, t('extensions.outcome.recovered')) : null,
    h('dl', { class: 'facts' },
      h('dt', null, t('extensions.outcome.accepts')), h('dd', { 'data-accepts': '' }, codes(r.formats || [])),
      h('dt', null, t('extensions.outcome.offers')), h('dd', { 'data-offers': '' }, roleList(roles), (r.tools || []).length ? [' · ', codes(r.tools.map((x) => x.name))] : null),
      h('dt', null, t('extensions.outcome.missing')), h('dd', { 'data-missing': '' },
        missing.length ? h('ul', { class: 'plain' }, missing.map((role) => h('li', null, models(role)))) : t('extensions.nothing'))));
}
