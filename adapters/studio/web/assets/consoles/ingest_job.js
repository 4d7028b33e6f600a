// SPDX-License-Identifier: Apache-2.0
// The job card of Ingest (10 §6.8): the job ?job= names, drawn from the
// board while it runs (done/total, current file, the stage bar, errors,
// cancel), then its finished report. An id the host no longer knows is
// said, with the audit log as the place to look.

import { h, mount } from '../dom.js';
import { t } from '../i18n.js';
import { follow, CADENCE } from '../board.js';
import { refusal } from './common.js';

const STAGES = ['convert', 'curate', 'plant'];

// jobCard follows job id on the board; dismiss takes it out of the
// address once it has settled.
export function jobCard(ctx, b, id, dismiss) {
  const el = h('div', { class: 'card job', 'data-job': id, 'aria-live': 'polite' }, h('p', { class: 'spinner' }, t('shell.loading')));
  let asked = false;
  const paint = () => {
    const j = b.find(id);
    if (j) return mount(el, jobView(ctx, b, j), j.state === 'running' ? null : close(dismiss));
    if (!b.loaded || asked) return null;
    asked = true; // the list lacks it: ask for the one job, once
    return b.fetch(id).then((found) => mount(el, found ? jobView(ctx, b, found) : unknown(id), close(dismiss)), (e) => mount(el, refusal(e)));
  };
  follow(b, el, CADENCE.open, paint);
  Promise.resolve().then(paint);
  return el;
}

// close takes the job out of the address (replace), leaving the card.
const close = (dismiss) => h('button', { type: 'button', class: 'job-close', onclick: dismiss }, t('ingest.job.close'));

function unknown(id) {
  return h('div', { 'data-job-state': 'unknown' }, h('h2', null, t('ingest.job.title', { id })),
    h('p', { role: 'status' }, t('ingest.job.unknown')));
}

function jobView(ctx, b, j) {
  return h('div', { 'data-job-state': j.state },
    h('div', { class: 'row' }, h('h2', { class: 'grow' }, t('ingest.job.title', { id: j.id })),
      h('span', { class: `badge state-${j.state}` }, t(`ingest.state.${j.state}`))),
    h('p', { class: 'meta' }, t(`ingest.mode.${j.mode}`), ' · ', j.started),
    h('div', { class: 'row' }, h('progress', { class: 'grow', max: String(Math.max(j.total, 1)), value: String(j.done), 'aria-label': t('ingest.job.progress') }),
      h('span', { 'data-done': '' }, t('ingest.job.done', { done: j.done, total: j.total }))),
    j.state === 'running' ? running(b, j) : finished(ctx, j));
}

function running(b, j) {
  const at = STAGES.indexOf(j.stage || '');
  return h('div', null,
    h('ol', { class: 'stages', 'aria-label': t('ingest.job.stages') }, STAGES.map((s, i) =>
      h('li', { class: i < at ? 'past' : i === at ? 'now' : '', 'aria-current': i === at ? 'step' : null }, t(`ingest.stage.${s}`)))),
    j.current ? h('p', null, t('ingest.job.current'), ' ', h('code', null, j.current)) : null,
    j.errors ? h('p', { class: 'error' }, t('ingest.job.errors', { n: j.errors })) : null,
    h('button', { type: 'button', class: 'job-cancel', disabled: b.cancelled.has(j.id), onclick: () => b.cancel(j.id).catch(() => {}) },
      b.cancelled.has(j.id) ? t('ingest.job.cancelAsked') : t('ingest.job.cancel')));
}

// LISTS are the report's lists, in the order a person reads them.
const LISTS = ['planted', 'branches', 'updated', 'unchanged', 'unsupported', 'errors'];

function finished(ctx, j) {
  const rep = j.report || {};
  const note = j.state === 'cancelled' ? t('ingest.job.cancelled') : j.state === 'error' ? t('ingest.job.failed') : null;
  return h('div', { class: 'report' },
    note ? h('p', { role: 'status' }, note) : null,
    j.error ? h('p', { class: 'error' }, `${j.error.message} (${j.error.code})`) : null,
    h('ul', { class: 'plain tally' }, LISTS.map((k) => h('li', null, t(`ingest.report.${k}`), ' ', h('strong', { 'data-count': k }, String((rep[k] || []).length))))),
    LISTS.filter((k) => (rep[k] || []).length).map((k) => h('details', { class: 'report-list', open: rep[k].length <= 10 || k === 'errors' ? true : null },
      h('summary', null, t(`ingest.report.${k}`)),
      h('ul', { class: k === 'errors' ? 'error' : 'plain' }, rep[k].map((x) => h('li', null,
        k === 'errors' || k === 'unsupported' ? x : ctx.nodeLink(x, x)))))),
    curation(rep));
}

// curation states what the model did; a bound model that skipped every
// document with no fallback or retry needed nothing, not a rejection.
function curation(rep) {
  const c = rep.curation;
  if (!c || !rep.bound) return h('p', { class: 'meta' }, t('ingest.curation.unbound'));
  if (!c.llm_summaries && !c.fallbacks && !c.retries && !c.transport_errors) return h('p', { class: 'meta' }, t('ingest.curation.notNeeded'));
  return h('p', { class: 'meta' }, t('ingest.curation.stats', { summaries: c.llm_summaries, fallbacks: c.fallbacks, retries: c.retries, links: c.links_proposed }));
}
