// SPDX-License-Identifier: Apache-2.0
// The job pill (10 §7): on every console but Ingest, for a key with
// ingest, shown only while a batch runs or waits. Collapsed it is a
// glance (percent, +N queued) polled each minute; expanded it is the
// running job in brief, polled every two seconds. Rendering never
// navigates: Ingest is reached through an anchor.

import { h, mount } from './dom.js';
import { t } from './i18n.js';
import { link } from './router.js';
import { board, CADENCE, percent } from './board.js';

let expanded = false; // tab memory: the pill stays open across consoles

// pill returns the pill's element for forest and the function that
// stops it when the shell draws another frame.
export function pill(forest) {
  const b = board(forest);
  const el = h('div', { class: 'job-pill', 'data-pill': '' });
  let release = b.watch(expanded ? CADENCE.open : CADENCE.collapsed);
  const toggle = () => {
    expanded = !expanded;
    release();
    release = b.watch(expanded ? CADENCE.open : CADENCE.collapsed);
    paint();
  };
  const paint = () => mount(el, draw(b, forest, toggle));
  const off = b.subscribe(paint);
  paint();
  return { el, stop: () => { off(); release(); } };
}

function draw(b, forest, toggle) {
  const run = b.running();
  const queued = b.queue.length;
  if (!run && !queued) return null;
  const pct = percent(run);
  const glance = [h('span', { class: 'pill-icon', 'aria-hidden': 'true' }, '⇪'), h('span', { class: 'sr' }, t('ingest.pill.label')),
    run ? (pct == null ? t('ingest.pill.running') : `${pct}%`) : t('ingest.pill.waiting'),
    queued ? h('span', { class: 'badge', 'data-queued': String(queued) }, `+${queued}`) : null];
  const button = h('button', { type: 'button', class: 'pill-toggle', 'aria-expanded': String(expanded), onclick: toggle }, glance);
  if (!expanded) return button;
  return [button, h('div', { class: 'pill-panel card', role: 'region', 'aria-label': t('ingest.pill.label') },
    run ? jobBrief(b, run) : null,
    heldNote(b),
    link({ forest, console: 'ingest', params: run ? { job: run.id } : {} }, { class: 'pill-open' }, t('ingest.pill.open')))];
}

// jobBrief is the running job in a few lines.
function jobBrief(b, j) {
  return h('div', { 'data-pill-job': j.id },
    h('div', { class: 'row' }, h('strong', { class: 'grow' }, t(`ingest.mode.${j.mode}`)), h('span', { class: 'meta' }, `${j.done}/${j.total}`)),
    h('progress', { max: String(Math.max(j.total, 1)), value: String(j.done), 'aria-label': t('ingest.job.progress') }),
    j.current ? h('div', { class: 'meta pill-current' }, j.current) : null,
    j.errors ? h('div', { class: 'error' }, t('ingest.job.errors', { n: j.errors })) : null,
    h('button', { type: 'button', class: 'pill-cancel', disabled: b.cancelled.has(j.id), onclick: () => b.cancel(j.id).catch(() => {}) },
      b.cancelled.has(j.id) ? t('ingest.job.cancelAsked') : t('ingest.job.cancel')));
}

// heldNote says the queue waits for the operator, with "start next".
export function heldNote(b) {
  if (!b.queue.length) return null;
  if (!b.held) return h('p', { class: 'meta' }, t('ingest.queue.waiting', { n: b.queue.length }));
  const why = b.held.reason === 'cancelled' ? t('ingest.queue.heldCancelled') : t('ingest.queue.heldRefused', { message: b.held.message || '' });
  return h('div', { class: 'held', role: 'status' }, h('p', null, why),
    h('button', { type: 'button', class: 'start-next', onclick: () => b.startNext() }, t('ingest.queue.startNext')));
}
