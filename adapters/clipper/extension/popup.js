// SPDX-License-Identifier: Apache-2.0

// The popup: pairing, then the forest, the destination and the clips.
// Every action is one message to the service worker, answered at once;
// progress arrives through session storage.

import { normalizeOrigin, originPattern } from './lib/clip.js';
import { t } from './lib/i18n.js';
import { $, activeTab, ask, languages, statusText } from './lib/ui.js';

let state = { pairing: null, forests: [] };

function show(which) {
  $('login').hidden = which !== 'login';
  $('main').hidden = which !== 'main';
}

function say(text) {
  $('status').textContent = text || '';
}

// refusal turns a worker's failure into the sentence shown.
function refusal(r) {
  if (r.status === 429) return t('wait_minute');
  if (r.code === 'offline') return t('offline');
  return t('failed', { message: r.message || r.code });
}

async function login(reason) {
  show('login');
  say('');
  $('login-msg').textContent = reason === 'revoked' ? t('revoked') : '';
  const last = (await chrome.storage.local.get('lastOrigin')).lastOrigin;
  if (last && !$('origin').value) $('origin').value = last;
}

// grant asks the browser for the Station's origin only, on the click.
async function grant() {
  let origin;
  try {
    origin = normalizeOrigin($('origin').value);
  } catch {
    $('login-msg').textContent = t('bad_origin');
    return null;
  }
  $('origin').value = origin;
  const ok = await chrome.permissions.request({ origins: [originPattern(origin)] });
  if (!ok) {
    $('login-msg').textContent = t('permission_denied');
    return null;
  }
  await chrome.storage.local.set({ lastOrigin: origin });
  return origin;
}

async function pair(withKey) {
  $('login-msg').textContent = '';
  try {
    const origin = await grant();
    if (!origin) return;
    say(t('working'));
    const r = withKey
      ? await ask('pairKey', { origin, key: $('key').value.trim() })
      : await ask('pair', { origin, username: $('username').value.trim(), password: $('password').value });
    say('');
    if (!r.ok) {
      $('login-msg').textContent = r.status === 401 ? t('bad_login') : refusal(r);
      return;
    }
    $('password').value = '';
    $('key').value = '';
    await main();
  } catch (e) {
    say('');
    $('login-msg').textContent = t('failed', { message: e.message || String(e) });
  }
}

async function main() {
  const st = await ask('status');
  if (!st.pairing) {
    const why = (await chrome.storage.session.get('loggedOut')).loggedOut;
    return login(why);
  }
  state.pairing = st.pairing;
  $('who').textContent = t('paired_as', { principal: st.pairing.principal, origin: st.pairing.origin });
  const r = await ask('forests');
  if (!r.ok) {
    if (r.status === 401 || r.code === 'E_FORBIDDEN') return login('revoked');
    show('main');
    say(refusal(r));
    return;
  }
  state.forests = r.forests;
  show('main');
  await fillForests();
}

async function fillForests() {
  const sel = $('forest');
  const { forest } = await chrome.storage.local.get('forest');
  sel.replaceChildren(...state.forests.map((f) => {
    const o = document.createElement('option');
    o.value = f.id;
    o.textContent = f.clippable ? f.id : t('forest_readonly', { forest: f.id });
    o.disabled = !f.clippable;
    return o;
  }));
  const usable = state.forests.filter((f) => f.clippable);
  $('no-forest').hidden = usable.length > 0;
  for (const b of document.querySelectorAll('.actions button, #save-note, #dictate, #open-editor')) b.disabled = !usable.length;
  if (!usable.length) {
    sel.selectedIndex = 0; // shown, read only: the Studio links still lead there
    if (state.forests.length) links();
    return;
  }
  sel.value = usable.some((f) => f.id === forest) ? forest : usable[0].id;
  await forestChanged();
}

async function forestChanged() {
  const forest = $('forest').value;
  await chrome.storage.local.set({ forest });
  const { dests } = await chrome.storage.local.get('dests');
  $('dest').value = (dests || {})[forest] || '';
  const f = state.forests.find((x) => x.id === forest);
  const r = await ask('destinations', { forest, roots: f ? f.roots : [] });
  $('dests').replaceChildren(...(r.destinations || []).map((d) => Object.assign(document.createElement('option'), { value: d })));
  links();
}

async function destChanged() {
  const { dests } = await chrome.storage.local.get('dests');
  await chrome.storage.local.set({ dests: { ...(dests || {}), [$('forest').value]: $('dest').value.trim() } });
}

function links() {
  const base = state.pairing.origin + '/f/' + encodeURIComponent($('forest').value) + '/ask';
  const q = $('ask').value.trim();
  $('ask-go').href = q ? base + '?q=' + encodeURIComponent(q) : base;
  $('studio').href = base;
}

function place() {
  return { forest: $('forest').value, dest: $('dest').value.trim() };
}

async function clip(kind) {
  const tab = await activeTab();
  if (!tab) return say(t('no_tab'));
  await ask('clip', { kind, tabId: tab.id, ...place() });
  if (kind === 'region') window.close(); // the picker needs the page
}

async function note() {
  const text = $('note').value.trim();
  if (!text) return;
  const tab = await activeTab();
  await ask('note', { text, url: tab ? tab.url : '', ...place() });
  $('note').value = '';
}

function render(s) {
  say(statusText(s));
}

// dictation shows the recognizer's state and adds what it heard to the note.
function dictation(d) {
  if (!d) return;
  const listening = d.state === 'listening' || d.state === 'preparing';
  $('dictate').textContent = t(listening ? 'dictate_stop' : 'dictate');
  $('dictate').setAttribute('aria-pressed', String(listening));
  if (d.text) $('note').value = ($('note').value.trim() + ' ' + d.text).trim();
  if (d.error) say(t('dictation_failed', { error: d.error }));
  else if (d.state !== 'idle') say(t('dictation_' + d.state));
}

async function boot() {
  await languages($('lang'), async () => {
    await main();
    render((await chrome.storage.session.get('status')).status); // the progress line in the new language
  });
  $('pair').addEventListener('click', () => pair(false));
  $('pair-key').addEventListener('click', () => pair(true));
  $('logout').addEventListener('click', async () => { await ask('logout'); await login(''); });
  $('forest').addEventListener('change', forestChanged);
  $('dest').addEventListener('change', destChanged);
  $('ask').addEventListener('input', links);
  $('save-note').addEventListener('click', note);
  $('dictate').addEventListener('click', () => ask('dictate'));
  $('open-editor').addEventListener('click', async () => {
    const tab = await activeTab();
    const q = new URLSearchParams({ forest: $('forest').value, dest: $('dest').value.trim(), url: tab ? tab.url : '' });
    chrome.tabs.create({ url: 'editor.html?' + q });
  });
  for (const b of document.querySelectorAll('.actions button')) b.addEventListener('click', () => clip(b.dataset.kind));
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'session' && changes.status) render(changes.status.newValue);
    if (area === 'session' && changes.dictation) dictation(changes.dictation.newValue);
    if (area === 'local' && changes.pairing && !changes.pairing.newValue) {
      chrome.storage.session.get('loggedOut').then((got) => login(got.loggedOut));
    }
  });
  render((await chrome.storage.session.get('status')).status);
  await main();
}

boot();
