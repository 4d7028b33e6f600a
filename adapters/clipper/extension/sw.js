// SPDX-License-Identifier: Apache-2.0

// The Clipper's service worker: the only context that talks to the
// Station. Every UI action is one message answered at once; the work goes
// on here, its progress in session storage ('status'), its end on the
// badge and in a notification. Work the Station cannot take now (offline,
// a running batch, E_LOCKED) waits in the session queue.

import { api, call, forestPath, forget, pairing, savePairing } from './lib/station.js';
import { composeText, shortTitle, shotName, sourceURL } from './lib/clip.js';
import { b64, crop, fullPage } from './lib/capture.js';
import { loadStrings, t } from './lib/i18n.js';

const QUEUE = 'queue';
const STATUS = 'status';
const RETRY_MS = 5000;
const RETRY_MAX = 60;
const POLL_MS = 2000;
const POLL_MAX = 150;
const VENDOR = ['vendor/Readability.js', 'vendor/turndown.js', 'vendor/turndown-plugin-gfm.js', 'extract.js'];

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// ---- progress -----------------------------------------------------------

async function setStatus(s) {
  await chrome.storage.session.set({ [STATUS]: { ...s, at: Date.now() } });
  const badge = { working: '…', queued: String((await queue()).length || ''), done: '✓', error: '!' }[s.state] || '';
  await chrome.action.setBadgeText({ text: badge }).catch(() => {});
}

async function notify(key, vars) {
  await loadStrings();
  chrome.notifications.create({ type: 'basic', iconUrl: await icon(), title: t('name'), message: t(key, vars) }, () => void chrome.runtime.lastError);
}

// icon draws the extension's mark, so no image file is shipped.
let iconURL = '';
async function icon() {
  if (iconURL) return iconURL;
  const c = new OffscreenCanvas(128, 128);
  const g = c.getContext('2d');
  g.fillStyle = '#1f6f50';
  g.fillRect(0, 0, 128, 128);
  g.fillStyle = '#fff';
  g.font = 'bold 88px sans-serif';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText('M', 64, 70);
  const blob = await c.convertToBlob({ type: 'image/png' });
  iconURL = 'data:image/png;base64,' + await b64(blob);
  return iconURL;
}

async function drawActionIcon() {
  const c = new OffscreenCanvas(32, 32);
  const g = c.getContext('2d');
  g.fillStyle = '#1f6f50';
  g.fillRect(0, 0, 32, 32);
  g.fillStyle = '#fff';
  g.font = 'bold 22px sans-serif';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText('M', 16, 17);
  await chrome.action.setIcon({ imageData: g.getImageData(0, 0, 32, 32) }).catch(() => {});
}

// ---- the queue ----------------------------------------------------------

async function queue() {
  return (await chrome.storage.session.get(QUEUE))[QUEUE] || [];
}

async function enqueue(job) {
  const q = await queue();
  q.push({ ...job, attempts: 0 });
  await chrome.storage.session.set({ [QUEUE]: q });
  await setStatus({ state: 'queued', kind: job.kind });
  drain();
}

let draining = false;

// drain retries the queue every 5 s, each entry at most 60 times; it
// touches storage on every tick, which keeps the worker alive meanwhile.
async function drain() {
  if (draining) return;
  draining = true;
  try {
    for (;;) {
      const q = await queue();
      if (!q.length) return;
      await sleep(RETRY_MS);
      const [head, ...rest] = await queue();
      if (!head) return;
      try {
        const nodes = await send(head.forest, head.body, head.kind);
        await chrome.storage.session.set({ [QUEUE]: rest });
        await finished(head.kind, nodes);
      } catch (e) {
        head.attempts++;
        if (!retryable(e) || head.attempts >= RETRY_MAX) {
          await chrome.storage.session.set({ [QUEUE]: rest });
          await failed(head.kind, e);
        } else {
          await chrome.storage.session.set({ [QUEUE]: [head, ...rest] });
        }
      }
    }
  } finally {
    draining = false;
  }
}

function retryable(e) {
  return e && (e.code === 'offline' || e.code === 'E_LOCKED' || e.code === 'busy');
}

// ---- writes: every one is POST …/ingest --------------------------------

// send posts one ingest body; an upload's job is polled to its end.
async function send(forest, body, kind) {
  if (body.mode === 'compose') {
    const jobs = await api(forestPath(forest, '/jobs'));
    if ((jobs.jobs || []).some((j) => j.state === 'running')) throw Object.assign(new Error('busy'), { code: 'busy' });
  }
  const res = await api(forestPath(forest, '/ingest'), 'POST', body);
  if (!res.job) return (res.planted || []).concat(res.updated || []);
  let job = res.job;
  for (let i = 0; job.state === 'running' && i < POLL_MAX; i++) {
    await setStatus({ state: 'working', kind, job: job.id });
    await sleep(POLL_MS);
    job = (await api(forestPath(forest, '/jobs/' + encodeURIComponent(job.id)))).job;
  }
  if (job.state !== 'done') throw Object.assign(new Error((job.error && job.error.message) || job.state), { code: (job.error && job.error.code) || 'E_JOB' });
  const r = job.report || {};
  return (r.planted || []).concat(r.updated || []);
}

async function finished(kind, nodes) {
  await setStatus({ state: 'done', kind, nodes });
  await notify('done');
}

async function failed(kind, e) {
  const wait = e && e.status === 429;
  const message = wait ? t('wait_minute') : (e && e.message) || String(e);
  await setStatus({ state: 'error', kind, status: (e && e.status) || 0, code: (e && e.code) || '', message });
  await notify(wait ? 'wait_minute' : 'failed', { message });
}

// write sends now, or queues what the Station cannot take now. A part
// of a clip made of two writes (page + screenshot, region + note) leaves
// the progress at 'working', so 'done' is said once, at the end.
async function write(forest, body, kind, part) {
  await setStatus({ state: 'working', kind });
  try {
    const nodes = await send(forest, body, kind);
    if (part) return setStatus({ state: 'working', kind });
    await finished(kind, nodes);
  } catch (e) {
    if (retryable(e)) return enqueue({ forest, body, kind });
    if (e.status === 401 || e.code === 'E_UNPAIRED') await forget('revoked');
    await loadStrings();
    await failed(kind, e);
  }
}

function withDest(body, dest) {
  return dest ? { ...body, dest } : body;
}

function compose(title, markdown, url, dest) {
  return withDest({ mode: 'compose', title: shortTitle(title), text: composeText(markdown, url, new Date()) }, dest);
}

function upload(name, data, url, dest) {
  const file = { name, b64: data };
  const src = sourceURL(url);
  if (src) file.source_url = src;
  return withDest({ mode: 'upload', files: [file] }, dest);
}

// ---- clips --------------------------------------------------------------

async function extract(tabId, what) {
  await chrome.scripting.executeScript({ target: { tabId }, files: VENDOR });
  const [res] = await chrome.scripting.executeScript({ target: { tabId }, func: (w) => globalThis.__monkeyClip[w](), args: [what] });
  return res.result;
}

// isYouTubeWatch tells a watch page, clipped as title, channel,
// description and transcript rather than through Readability.
function isYouTubeWatch(url) {
  try {
    const u = new URL(url);
    return /(^|\.)youtube\.com$/.test(u.hostname) && u.pathname === '/watch';
  } catch {
    return false;
  }
}

async function pickRegion(tabId) {
  await loadStrings();
  await chrome.scripting.executeScript({ target: { tabId }, files: ['lib/paint.js', 'region.js'] });
  const labels = { note: t('region_note'), capture: t('region_capture'), cancel: t('region_cancel'), hint: t('region_hint'),
    undo: t('region_undo'), tool_adjust: t('tool_adjust'), tool_box: t('tool_box'), tool_arrow: t('tool_arrow'),
    tool_pen: t('tool_pen'), tool_text: t('tool_text') };
  const [res] = await chrome.scripting.executeScript({ target: { tabId }, func: (l) => globalThis.__monkeyRegion.pick(l), args: [labels] });
  return res.result;
}

// imageBytes reads an image in the page's own world (its cookies, its
// cache); a cross-origin refusal answers the element's rectangle instead.
async function imageBytes(tabId, src) {
  const [res] = await chrome.scripting.executeScript({ target: { tabId }, world: 'MAIN', args: [src], func: async (s) => {
    try {
      const r = await fetch(s);
      if (!r.ok) throw new Error(String(r.status));
      const buf = new Uint8Array(await r.arrayBuffer());
      let bin = '';
      for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode(...buf.subarray(i, i + 0x8000));
      return { b64: btoa(bin), type: r.headers.get('content-type') || '' };
    } catch {
      const img = [...document.images].find((i) => i.currentSrc === s || i.src === s);
      if (!img) return null;
      img.scrollIntoView({ block: 'center' });
      const b = img.getBoundingClientRect();
      return { rect: { x: b.left, y: b.top, w: b.width, h: b.height, vw: window.innerWidth } };
    }
  } });
  return res.result;
}

/** clip runs one clip of a tab into a forest (10 §11's table). */
async function clip(m) {
  const tab = await chrome.tabs.get(m.tabId);
  const { forest, dest } = m;
  const now = new Date();
  switch (m.kind) {
    case 'page':
    case 'selection': {
      const what = m.kind === 'page' && isYouTubeWatch(tab.url) ? 'youtube' : m.kind;
      const got = await extract(tab.id, what);
      if (!got || !got.markdown.trim()) throw Object.assign(new Error(t('nothing_selected')), { code: 'E_EMPTY' });
      // A selection is titled by its own first words, so it stays a node
      // of its own beside the page's.
      const title = m.kind === 'selection' ? got.title + ' — ' + words(got.markdown, 8) : got.title;
      return write(forest, compose(title, got.markdown, got.url, dest), m.kind);
    }
    case 'image':
    case 'page_shot': {
      const name = shotName(tab.title, tab.url, now);
      const data = await b64(await fullPage(tab));
      if (m.kind === 'page_shot') {
        await write(forest, compose(tab.title, t('shot_prose', { file: name }), tab.url, dest), m.kind, true);
      }
      return write(forest, upload(name, data, tab.url, dest), m.kind);
    }
    case 'region': {
      const rect = await pickRegion(tab.id);
      if (!rect) return setStatus({ state: 'idle', kind: m.kind });
      const name = shotName(tab.title, tab.url, now);
      await write(forest, upload(name, await b64(await crop(tab, rect)), tab.url, dest), m.kind, !!rect.note);
      if (rect.note) await write(forest, compose(tab.title, rect.note + '\n\n' + t('shot_prose', { file: name }), tab.url, dest), m.kind);
      return;
    }
    case 'src_image': {
      const got = await imageBytes(tab.id, m.src);
      if (!got) throw new Error(t('failed', { message: m.src }));
      const ext = (/image\/(png|gif|webp|jpeg)/.exec(got.type || '') || [, 'jpg'])[1].replace('jpeg', 'jpg');
      const base = (m.src.split('/').pop() || 'image').split(/[?#]/)[0].replace(/\.[a-z0-9]+$/i, '');
      const name = got.rect ? shotName(tab.title, tab.url, now) : (base || 'image') + '.' + ext;
      const data = got.rect ? await b64(await crop(tab, got.rect)) : got.b64;
      return write(forest, upload(name, data, tab.url, dest), 'image');
    }
  }
  throw new Error('unknown clip ' + m.kind);
}

// ---- pairing and listings ----------------------------------------------

async function pair(m) {
  const r = await call(m.origin, null, '/v1/auth/pair', 'POST', { username: m.username, password: m.password });
  await savePairing(m.origin, r.api_key, r.principal);
  return { principal: r.principal };
}

async function pairKey(m) {
  const me = await call(m.origin, m.key, '/v1/me');
  await savePairing(m.origin, m.key, me.principal);
  return { principal: me.principal };
}

// forests lists the paired Station's forests; a 401 or E_FORBIDDEN here
// means the key is no longer valid: the pairing is cleared.
async function forests() {
  try {
    const r = await api('/v1/forests');
    return { forests: (r.forests || []).map((f) => ({ id: f.id, roots: f.roots || [], clippable: (f.caps || []).includes('ingest') || (f.caps || []).includes('admin') })) };
  } catch (e) {
    if (e.status === 401 || e.code === 'E_FORBIDDEN') await forget('revoked');
    throw e;
  }
}

// destinations are the grant's roots and the branches under the master
// index, as dest prefixes ('' is the forest's root).
async function destinations(m) {
  const out = new Set((m.roots || []).map((r) => r.replace(/\/?_index$/, '')));
  try {
    const r = await api(forestPath(m.forest, '/scan'), 'POST', { parent_id: '_index', filter: { type: 'branch' }, fields: ['id'], limit: 50 });
    for (const n of (r.data && r.data.nodes) || []) out.add(n.id.replace(/\/?_index$/, ''));
  } catch { /* roots alone */ }
  out.delete('');
  return { destinations: [...out].sort() };
}

// ---- dictation ----------------------------------------------------------

const SPEECH = { en: 'en-US', pt: 'pt-BR', es: 'es-ES' };

async function dictationState(state, extra) {
  await chrome.storage.session.set({ dictation: { state, ...extra, at: Date.now() } });
}

// dictate starts (or stops) the recognizer in the offscreen document;
// the first time it opens the page that asks for the microphone.
async function dictate(m) {
  const cur = (await chrome.storage.session.get('dictation')).dictation;
  if (m.stop || (cur && (cur.state === 'listening' || cur.state === 'preparing'))) {
    chrome.runtime.sendMessage({ target: 'offscreen', op: 'stop' }).catch(() => {});
    await dictationState('idle');
    return {};
  }
  if (!(await chrome.storage.local.get('micGranted')).micGranted) {
    await chrome.tabs.create({ url: 'mic.html' });
    return { asked: true };
  }
  await dictationState('preparing');
  const open = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
  if (!open.length) {
    await chrome.offscreen.createDocument({ url: 'offscreen.html', reasons: ['USER_MEDIA'], justification: 'dictating a note into the Clipper' });
  }
  const { lang } = await chrome.storage.local.get('lang');
  await chrome.runtime.sendMessage({ target: 'offscreen', op: 'start', lang: SPEECH[lang] || SPEECH.en });
  return {};
}

// ---- wiring -------------------------------------------------------------

const HANDLERS = {
  pair, pairKey, forests, destinations, dictate,
  dictation: async (m) => { await dictationState(m.state, { text: m.text || '', error: m.error || '' }); return {}; },
  logout: async () => { await forget(''); return {}; },
  status: async () => {
    const p = await pairing();
    return { pairing: p && { origin: p.origin, principal: p.principal }, queue: (await queue()).length };
  },
};

chrome.runtime.onMessage.addListener((m, _sender, reply) => {
  if (m && m.target === 'offscreen') return false; // the offscreen document's own
  if (m && m.op === 'clip' || m && m.op === 'note') {
    reply({ accepted: true }); // never block the UI on the Station
    const run = m.op === 'note'
      ? write(m.forest, compose(m.title || firstLine(m.text), m.text, m.url || '', m.dest), 'note')
      : clip(m);
    run.catch(async (e) => { await loadStrings(); await failed(m.kind || 'note', e); });
    return false;
  }
  const h = m && HANDLERS[m.op];
  if (!h) return false;
  h(m).then((r) => reply({ ok: true, ...r }), (e) => reply({ ok: false, status: e.status || 0, code: e.code || '', message: e.message || String(e) }));
  return true;
});

function words(markdown, n) {
  const w = String(markdown).replace(/[#*_`>|\[\]()~-]+/g, ' ').trim().split(/\s+/);
  return w.slice(0, n).join(' ') + (w.length > n ? '…' : '');
}

function firstLine(text) {
  return String(text || '').trim().split('\n')[0].replace(/^#+\s*/, '').slice(0, 80) || 'Note';
}

// A shortcut or a menu entry is a gesture: it clips into the last
// chosen forest and destination.
async function lastPlace() {
  const got = await chrome.storage.local.get(['forest', 'dests']);
  return { forest: got.forest || '', dest: (got.dests || {})[got.forest] || '' };
}

async function gesture(kind, tab, extra) {
  const place = await lastPlace();
  await loadStrings();
  if (!(await pairing()) || !place.forest) return notify('pick_forest');
  clip({ kind, tabId: tab.id, ...place, ...extra }).catch((e) => failed(kind, e));
}

chrome.commands.onCommand.addListener((cmd, tab) => {
  if (cmd === 'clip-page') gesture('page', tab);
  if (cmd === 'clip-region') gesture('region', tab);
});

const MENUS = [
  ['clip-selection', 'menu_selection', ['selection'], null],
  ['clip-page', 'menu_page', ['page'], 'clip-page'],
  ['clip-region', 'menu_region', ['page'], 'clip-region'],
  ['send-image', 'menu_image', ['image'], null],
];

// menus titles show the binding the platform reports now.
async function menus() {
  await loadStrings();
  const keys = Object.fromEntries((await chrome.commands.getAll()).map((c) => [c.name, c.shortcut]));
  await chrome.contextMenus.removeAll();
  for (const [id, key, contexts, cmd] of MENUS) {
    const bound = cmd && keys[cmd];
    chrome.contextMenus.create({ id, title: t(key) + (bound ? ' (' + bound + ')' : ''), contexts });
  }
}

chrome.contextMenus.onClicked.addListener((info, tab) => {
  const kind = { 'clip-selection': 'selection', 'clip-page': 'page', 'clip-region': 'region', 'send-image': 'src_image' }[info.menuItemId];
  if (kind) gesture(kind, tab, kind === 'src_image' ? { src: info.srcUrl } : {});
});

chrome.runtime.onInstalled.addListener(() => { menus(); drawActionIcon(); });
chrome.runtime.onStartup.addListener(() => { menus(); drawActionIcon(); });
chrome.storage.onChanged.addListener((changes, area) => { if (area === 'local' && changes.lang) menus(); });
drain(); // a restarted worker picks its queue up again
