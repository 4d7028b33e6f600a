// SPDX-License-Identifier: Apache-2.0
// Ingest (10 §6.8): upload, compose, adopt and optimize, over the job
// board of 10 §7. The status (GET …/ingest) is read on entry and after
// every settle; the job a batch makes is named by ?job= (replace) and
// drawn from the board, never in a modal.

import { h, mount } from '../dom.js';
import { forestGet } from '../api.js';
import { t } from '../i18n.js';
import { adjust } from '../router.js';
import { board, follow, lockedBy, CADENCE } from '../board.js';
import { heldNote } from '../pill.js';
import { into, heading, allowed, needsCap, refusal } from './common.js';
import { uploadTab, adoptTab } from './ingest_upload.js';
import { composeTab } from './ingest_compose.js';
import { optimizeTab } from './ingest_optimize.js';
import { jobCard } from './ingest_job.js';

const MODES = ['upload', 'compose', 'adopt', 'optimize'];

// render draws Ingest: the job ?job= names, the tab's queue, the mode.
export function render(ctx) {
  if (!allowed(ctx, 'ingest')) return needsCap('ingest');
  const b = board(ctx.forest);
  const p = ctx.place.params;
  const here = (params) => ({ forest: ctx.forest, console: 'ingest', params: { ...p, ...params } });
  const root = h('section', { class: 'ingest' });
  const jobRegion = h('div', { class: 'job-region' });
  const queueRegion = h('div', { class: 'queue-region' });
  const body = h('div');
  const status = {}; // GET …/ingest, read on entry and after every settle
  const paintQueue = () => mount(queueRegion, queueCard(b));
  // Entering without ?job= while a job runs names it; a batch this
  // console (or its queue) starts is adopted the same way (replace).
  const adopt = (j) => { if (j && j.id !== ctx.place.params.job) adjust(here({ job: j.id })); };
  follow(b, root, CADENCE.open, (bd, ev) => {
    paintQueue();
    if (ev && (ev.type === 'started' || ev.type === 'fired')) adopt(ev.job);
    else if (!p.job && bd.running()) adopt(bd.running());
    if (ev && ev.type === 'settled') settled(ctx, status, () => into(body, () => tabs(ctx, b, here, status)));
  });
  if (!p.job && b.running()) Promise.resolve().then(() => adopt(b.running()));
  if (p.job) mount(jobRegion, jobCard(ctx, b, p.job, () => adjust(here({ job: '' }))));
  paintQueue();
  into(body, () => tabs(ctx, b, here, status));
  return h('div', null, heading(t('shell.console.ingest')), mount(root, jobRegion, queueRegion, body));
}

// settled re-reads the status in place (a form in progress keeps what
// it holds); the optimize tab, which shows it, is drawn again.
async function settled(ctx, status, redraw) {
  try { Object.assign(status, (await forestGet(ctx.forest, 'ingest')).data); } catch { return; }
  if (ctx.place.params.mode === 'optimize') redraw();
}

// tabs reads the status, then draws the mode the address names.
async function tabs(ctx, b, here, status) {
  Object.assign(status, (await forestGet(ctx.forest, 'ingest')).data);
  const adoptable = allowed(ctx, 'admin') && status.host_paths;
  const modes = MODES.filter((m) => m !== 'adopt' || adoptable);
  const asked = ctx.place.params.mode;
  const mode = modes.includes(asked) ? asked : 'upload';
  const bar = h('div', { class: 'tabs', role: 'group', 'aria-label': t('ingest.modes') }, modes.map((m) =>
    h('button', { type: 'button', 'aria-pressed': String(m === mode), 'data-mode': m, onclick: () => adjust(here({ mode: m })) }, t(`ingest.tab.${m}`))));
  let view;
  if (mode === 'compose') view = composeTab(ctx, b);
  else if (mode === 'adopt') view = adoptTab(ctx, b);
  else if (mode === 'optimize') view = optimizeTab(ctx, b, status);
  else view = uploadTab(ctx, b, status, adoptable);
  return h('div', null, bar, view);
}

// queueCard lists the batches waiting their turn, each removable.
function queueCard(b) {
  if (!b.queue.length) return null;
  return h('div', { class: 'card queue', 'data-queue': String(b.queue.length) },
    h('h2', null, t('ingest.queue.title', { n: b.queue.length })),
    h('ol', { class: 'plain' }, b.queue.map((e) => h('li', { class: 'row' }, h('span', { class: 'grow' }, e.label),
      h('button', { type: 'button', 'aria-label': t('ingest.queue.removeOne', { label: e.label }), onclick: () => b.remove(e.id) }, t('ingest.queue.remove'))))),
    heldNote(b),
    h('button', { type: 'button', onclick: () => b.clear() }, t('ingest.queue.clear')));
}

// submitLabel says what pressing submit will do: start now, or wait.
export function submitLabel(b, start) {
  return b.running() || b.queue.length ? t('ingest.submit.queue') : start || t('ingest.submit.start');
}

// submitButton is a batch's submit button whose words follow the board.
export function submitButton(b, props, start) {
  const button = h('button', { type: 'submit', class: 'primary', ...props }, submitLabel(b, start));
  follow(b, button, CADENCE.open, () => { button.textContent = submitLabel(b, start); });
  return button;
}

// send starts a batch, or queues it while one runs (10 §6.8).
export async function send(b, label, body) {
  if (b.running() || b.queue.length) return { queued: b.enqueue(label, body) };
  return { job: await b.start(body) };
}

const queuedNote = () => h('p', { role: 'status', 'data-queued-note': '' }, t('ingest.queued'));

// submitBatch sends a batch and says the outcome in msg. A batch this
// key cannot see holds the forest (E_LOCKED): the refusal offers the
// explicit queue act, and the queue then waits for the job it names.
// It resolves true once the batch started or joined the queue.
export async function submitBatch(b, label, body, msg) {
  try {
    const r = await send(b, label, body);
    mount(msg, r.queued ? queuedNote() : null);
    return true;
  } catch (err) {
    const join = () => { b.enqueue(label, body); mount(msg, queuedNote()); };
    mount(msg, refusal(err), lockedBy(err) ? h('button', { type: 'button', class: 'queue-it', onclick: join }, t('ingest.queue.add')) : null);
    return false;
  }
}
