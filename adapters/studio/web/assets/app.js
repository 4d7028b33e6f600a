// SPDX-License-Identifier: Apache-2.0
// The shell (10 §2–§4): the doorway (setup or sign-in), then the rail
// with the forest switcher and exactly the consoles the key's caps permit
// on the selected forest, and the console the address names.

import { h, mount, field, uid } from './dom.js';
import { api, getKey, setKey, ApiError } from './api.js';
import * as router from './router.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { setTheme, theme, rememberPlace, lastPlace } from './prefs.js';
import { forgetAll } from './runs.js';
import { releaseMedia } from './markdown.js';
import { pill } from './pill.js';

const app = document.getElementById('app');

// CONSOLES is the console table (10 §2) as far as this build ships it,
// in menu order: the group each sits in and the capability that lists
// it; admin implies all.
export const CONSOLES = [
  { key: 'overview', group: 'use', cap: '' },
  { key: 'ask', group: 'use', cap: 'answer' },
  { key: 'explore', group: 'use', cap: 'read' },
  { key: 'read', group: 'use', cap: 'read' },
  { key: 'playground', group: 'use', cap: 'read' },
  { key: 'data', group: 'use', cap: 'query' },
  { key: 'skills', group: 'use', cap: 'read' },
  { key: 'ingest', group: 'build', cap: 'ingest' },
  { key: 'models', group: 'build', cap: 'admin' },
  { key: 'webhooks', group: 'build', cap: 'admin' },
  { key: 'people', group: 'govern', cap: 'admin' },
  { key: 'audit', group: 'govern', cap: 'admin' },
  { key: 'health', group: 'govern', cap: 'admin' },
  { key: 'integrations', group: 'govern', cap: 'admin' },
  { key: 'extensions', group: 'govern', cap: 'admin' },
];

const GROUPS = ['use', 'build', 'govern'];

const permits = (caps, c) => !c.cap || caps.includes('admin') || caps.includes(c.cap);
let session = null; // {me, forests}
let stop = null;
let stopPill = null; // the job pill of the frame on screen

async function boot() {
  await i18n.load(i18n.detect());
  if (getKey()) {
    try { return await signedIn(); } catch { setKey(''); }
  }
  doorway();
}

// doorway: health decides setup or the gate; a failed health shows the
// gate, never setup on a guess (10 §4).
async function doorway(notice) {
  let health = null;
  try { health = (await api('GET', '/v1/health', undefined, { key: '' })).data; } catch { /* gate */ }
  if (health && health.setup_required) setupScreen();
  else gate(health, notice);
}

function prefsBar(again) {
  const langSel = h('select', { 'aria-label': t('shell.language'), onchange: async (e) => { await i18n.choose(e.target.value); again(); } },
    i18n.LANGS.map((l) => h('option', { value: l, selected: l === i18n.lang }, t(`shell.lang.${l}`))));
  const themeBtn = (v) => h('button', { type: 'button', 'aria-pressed': String(theme() === v), onclick: () => { setTheme(v); again(); } }, t(`shell.theme.${v}`));
  return h('div', { class: 'prefs', role: 'group', 'aria-label': t('shell.preferences') }, langSel, themeBtn('light'), themeBtn('dark'));
}

function errorLine(e) {
  return h('p', { class: 'error', role: 'alert' }, e instanceof ApiError ? `${e.message} (${e.code})` : String(e.message || e));
}

function setupScreen() {
  const user = h('input', { autocomplete: 'username', required: true, name: 'username' });
  const pass = h('input', { type: 'password', autocomplete: 'new-password', required: true, name: 'password', minlength: 12 });
  const short = h('div', { class: 'hint', 'aria-live': 'polite' });
  pass.addEventListener('input', () => { short.textContent = pass.value && pass.value.length < 12 ? t('shell.setup.tooShort') : ''; });
  const email = h('input', { type: 'email', autocomplete: 'email', name: 'email' });
  const choice = uid('first');
  const radio = (v) => h('label', { class: 'inline' }, h('input', { type: 'radio', name: choice, value: v, checked: v === 'demo' }), t(`shell.setup.first.${v}`));
  const msg = h('div');
  const form = h('form', { class: 'card door', onsubmit: async (e) => {
    e.preventDefault();
    const first = form.querySelector(`input[name="${choice}"]:checked`).value;
    try {
      const body = { username: user.value.trim(), password: pass.value };
      if (email.value.trim()) body.email = email.value.trim();
      const r = await api('POST', '/v1/auth/setup', body, { key: '' });
      setKey(r.data.key);
    } catch (err) {
      if (err.status === 404) return doorway(t('shell.setup.taken')); // someone else got there first
      return mount(msg, errorLine(err));
    }
    if (first === 'demo') {
      // A forest failure never strands the owner: the empty state offers creation.
      try { await api('POST', '/v1/admin/forests', { id: 'demo', title: 'Demo', seed: 'demo' }); } catch { /* empty state */ }
    }
    signedIn();
  } },
  h('h1', null, t('shell.setup.title')), h('p', { class: 'hint' }, t('shell.setup.lead')),
  field(t('shell.username'), user), field(t('shell.password'), pass), short,
  field(t('shell.setup.email'), email),
  h('fieldset', null, h('legend', null, t('shell.setup.first')), radio('demo'), radio('skip')),
  msg, h('button', { class: 'primary', type: 'submit' }, t('shell.setup.submit')), prefsBar(setupScreen));
  mount(app, h('main', { id: 'main' }, form));
  user.focus();
}

function gate(health, notice) {
  const withPassword = !health || health.password_login !== false;
  const user = h('input', { autocomplete: 'username', name: 'username' });
  const pass = h('input', { type: 'password', autocomplete: 'current-password', name: 'password' });
  const key = h('input', { type: 'password', autocomplete: 'off', name: 'key' });
  const msg = h('div');
  const submit = async (e) => {
    e.preventDefault();
    try {
      if (key.value.trim()) setKey(key.value.trim());
      else setKey((await api('POST', '/v1/auth/login', { username: user.value.trim(), password: pass.value }, { key: '' })).data.key);
      await signedIn();
    } catch (err) {
      setKey('');
      mount(msg, errorLine(err));
    }
  };
  const form = h('form', { class: 'card door', onsubmit: submit },
    h('h1', null, t('shell.gate.title')), notice ? h('p', { role: 'status' }, notice) : null,
    withPassword ? [field(t('shell.username'), user), field(t('shell.password'), pass), h('p', { class: 'hint' }, t('shell.gate.or'))] : null,
    field(t('shell.gate.key'), key, t('shell.gate.keyHint')),
    msg, h('button', { class: 'primary', type: 'submit' }, t('shell.gate.submit')), prefsBar(() => gate(health, notice)));
  mount(app, h('main', { id: 'main' }, form));
  (withPassword ? user : key).focus();
}

async function signedIn() {
  const [me, forests] = await Promise.all([api('GET', '/v1/me'), api('GET', '/v1/forests')]);
  session = { me: me.data, forests: forests.data.forests || [] };
  if (stop) stop();
  stop = router.onChange(show);
  show(router.place());
}

// signOut clears the key and drops every kept run before reloading.
async function signOut() {
  setKey('');
  session = null;
  await forgetAll();
  location.assign('/');
}

// landing: ask when permitted, else the first permitted console.
function landing(caps) {
  return permits(caps, CONSOLES[1]) ? 'ask' : CONSOLES.find((c) => permits(caps, c)).key;
}

// show renders the place, correcting only what 10 §3 says to correct.
function show(p) {
  releaseMedia();
  const forests = session.forests;
  if (!p.forest) {
    const last = lastPlace();
    const f = last && forests.find((x) => x.id === last.forest) ? last.forest : forests[0] && forests[0].id;
    if (!f) return frame(null, '', h('div', { class: 'card' }, h('h1', null, t('shell.noForest')), h('p', null, session.me.admin || session.me.owner ? t('shell.noForest.admin') : t('shell.noForest.ask'))));
    const fc = forests.find((x) => x.id === f).caps;
    const c = last && last.forest === f && CONSOLES.some((x) => x.key === last.console && permits(fc, x)) ? last.console : landing(fc);
    return router.adjust({ forest: f, console: c, params: p.params });
  }
  const forest = forests.find((x) => x.id === p.forest);
  if (!forest) return frame(null, '', unknownForest(p.forest));
  const entry = CONSOLES.find((c) => c.key === p.console);
  const denied = entry && !permits(forest.caps, entry) ? entry : null;
  if (!entry || denied) {
    p = { ...p, console: landing(forest.caps) };
    router.replaceQuiet(p);
  }
  rememberPlace(p.forest, p.console);
  const main = h('div', null, h('p', { class: 'spinner' }, t('shell.loading')));
  frame(forest, p.console, denied ? [deniedCard(denied), main] : main);
  loadConsole(main, forest, p);
  welcome();
}

// deniedCard is the needs-capability card of a console the address
// named and the grant does not permit: the address is replaced by the
// landing console (10 §2), and the card says why, so a shared link to
// a hidden console is explained rather than silently swapped.
function deniedCard(entry) {
  return h('div', { class: 'card needs', role: 'status', 'data-denied': entry.key },
    h('strong', null, t(`shell.console.${entry.key}`)), h('p', null, t('shell.needsCap', { cap: entry.cap })));
}

const WELCOMED = 'monkeyllm.studio.welcomed';

// welcome is the first-access modal (10 §4, J.5.11): after identity,
// once per browser until dismissed; it makes no request and never
// enters the address.
function welcome() {
  try { if (localStorage.getItem(WELCOMED) || document.querySelector('dialog.welcome')) return; } catch { return; }
  const dlg = h('dialog', { class: 'welcome card', 'aria-labelledby': 'welcome-h' },
    h('h2', { id: 'welcome-h' }, t('shell.welcome.title')),
    h('p', null, t('shell.welcome.forest')), h('p', null, t('shell.welcome.mcp')),
    h('ol', null, h('li', null, t('shell.welcome.connect')), h('li', null, t('shell.welcome.feed')), h('li', null, t('shell.welcome.ask'))),
    h('form', { method: 'dialog' }, h('button', { class: 'primary', type: 'submit', value: 'start' }, t('shell.welcome.start'))));
  dlg.addEventListener('close', () => {
    try { localStorage.setItem(WELCOMED, '1'); } catch { /* storage off: shown again next time */ }
    dlg.remove();
  });
  document.body.append(dlg);
  dlg.showModal();
}

async function loadConsole(main, forest, p) {
  try {
    const mod = await import(`./consoles/${p.console}.js`);
    const ctx = { forest: forest.id, grant: forest, caps: forest.caps, place: p, me: session.me, forests: session.forests,
      nodeLink: (id, text) => router.link({ forest: forest.id, console: 'read', params: { node: id } }, { class: 'node-link' }, text || id) };
    mount(main, await mod.render(ctx));
  } catch (e) {
    mount(main, h('div', { class: 'card' }, errorLine(e)));
  }
}

function unknownForest(id) {
  return h('div', { class: 'card' }, h('h1', null, t('shell.unknownForest', { id })), h('p', null, t('shell.unknownForest.why')),
    h('ul', null, session.forests.map((f) => h('li', null, router.link({ forest: f.id, console: landing(f.caps), params: {} }, null, f.id)))));
}

// frame draws the rail and the main region around a console.
function frame(forest, current, content) {
  if (stopPill) stopPill();
  stopPill = null;
  let jobs = null;
  if (forest && current !== 'ingest' && permits(forest.caps, { cap: 'ingest' })) {
    const p = pill(forest.id);
    jobs = p.el;
    stopPill = p.stop;
  }
  const rail = h('aside', { class: 'rail', 'aria-label': t('shell.rail') },
    h('div', { class: 'brand' }, 'MonkeyLLM Studio'),
    forestSwitcher(forest, current),
    forest ? navigation(forest, current) : null,
    h('footer', null, prefsBar(() => show(router.place())),
      h('div', { class: 'meta' }, t('shell.signedInAs', { name: session.me.principal })),
      // The Clipper is offered to every signed-in person (10 §11).
      h('a', { class: 'clipper-link', href: '/clipper.zip', download: 'monkeyllm-clipper.zip', title: t('shell.clipper.blurb') }, t('shell.clipper')),
      h('button', { type: 'button', onclick: signOut }, t('shell.signOut'))));
  mount(app, h('a', { class: 'skip', href: '#main' }, t('shell.skip')),
    h('div', { class: 'shell' }, rail, h('main', { id: 'main', tabindex: '-1' }, content)), jobs);
}

// navigation lists the permitted consoles by group; a group with no
// permitted entry is not shown (10 §2).
function navigation(forest, current) {
  const entry = (c) => h('li', null, router.link({ forest: forest.id, console: c.key, params: {} },
    { 'aria-current': c.key === current ? 'page' : null, title: t(`shell.console.${c.key}.blurb`), 'data-console': c.key }, t(`shell.console.${c.key}`)));
  return h('nav', { 'aria-label': t('shell.nav') }, GROUPS.map((g) => {
    const shown = CONSOLES.filter((c) => c.group === g && permits(forest.caps, c));
    return shown.length ? [h('h2', null, t(`shell.group.${g}`)), h('ul', null, shown.map(entry))] : null;
  }));
}

function forestSwitcher(forest, current) {
  const scope = forest ? (forest.roots.length === 1 && forest.roots[0] === '_index' ? t('shell.scope.whole') : t('shell.scope.branches', { n: forest.roots.length })) : '';
  return h('div', { class: 'switcher' }, h('h2', { id: 'forests-h' }, t('shell.forests')),
    h('ul', { class: 'plain', 'aria-labelledby': 'forests-h' }, session.forests.map((f) => h('li', null,
      router.link({ forest: f.id, console: CONSOLES.some((c) => c.key === current && permits(f.caps, c)) ? current : landing(f.caps), params: {} },
        { 'aria-current': forest && f.id === forest.id ? 'true' : null, 'data-forest': f.id }, f.id)))),
    forest ? h('div', { class: 'meta' }, scope) : null);
}

boot();
