// SPDX-License-Identifier: Apache-2.0
// Optimize (10 §6.8): refresh from the recorded source (a sync batch,
// through the board) and, for admins, the maintenance acts the caller
// waits for: rebuild the catalog, the dense layer, re-derive aliases.

import { h, mount } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { allowed, refusal } from './common.js';
import { submitBatch, submitButton } from './ingest.js';

// optimizeTab is the sync card and, for admins, the maintenance cards.
export function optimizeTab(ctx, b, status) {
  return h('div', { class: 'optimize' }, syncCard(b, status),
    allowed(ctx, 'admin') ? [reindexCard(ctx), canopyCard(ctx), recurateCard(ctx)] : null);
}

// act runs one call behind a button, its answer said in out.
function act(button, out, run) {
  return async () => {
    button.disabled = true;
    mount(out, h('p', { class: 'spinner', role: 'status' }, t('shell.loading')));
    try { mount(out, await run()); } catch (e) { mount(out, refusal(e)); }
    button.disabled = false;
  };
}

function syncCard(b, status) {
  const out = h('div', { 'aria-live': 'polite' });
  const say = !status.source ? t('ingest.sync.none') : status.can_sync ? t('ingest.sync.source', { source: status.source }) : t('ingest.sync.blocked', { source: status.source });
  const button = submitButton(b, { type: 'button', class: 'sync', disabled: !status.can_sync }, t('ingest.sync.run'));
  button.addEventListener('click', async () => {
    button.disabled = true;
    await submitBatch(b, t('ingest.queue.sync'), { mode: 'sync' }, out);
    button.disabled = false;
  });
  return h('div', { class: 'card', 'data-card': 'sync' }, h('h2', null, t('ingest.sync.title')), h('p', null, say), button, out);
}

function reindexCard(ctx) {
  const out = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'reindex' }, t('ingest.reindex.run'));
  button.addEventListener('click', act(button, out, async () => {
    const r = (await api('POST', '/v1/admin/reindex', { forest: ctx.forest })).data;
    return h('p', { role: 'status', 'data-nodes': String(r.nodes) }, t('ingest.reindex.done', { n: r.nodes, ms: r.ms }));
  }));
  return h('div', { class: 'card', 'data-card': 'reindex' }, h('h2', null, t('ingest.reindex.title')), h('p', { class: 'hint' }, t('ingest.reindex.lead')), button, out);
}

// canopyCard shows the dense layer's state and refreshes or builds it.
function canopyCard(ctx) {
  const state = h('div', { 'aria-live': 'polite' });
  const buttons = [];
  // Without an embedder both acts would be refused: they wait for one.
  const show = (s) => {
    for (const b of buttons) b.disabled = !s.query_model;
    return h('div', null, h('p', { 'data-canopy': s.state }, t('ingest.canopy.state', { state: s.state, vectors: s.vectors, stale: s.stale }),
      s.query_model ? h('span', { class: 'meta' }, ' · ', s.query_model) : null),
    s.query_model ? null : h('p', { class: 'hint' }, t('ingest.canopy.noEmbedder')));
  };
  const load = async () => mount(state, show((await api('GET', `/v1/admin/canopy?forest=${encodeURIComponent(ctx.forest)}`)).data));
  const out = h('div', { 'aria-live': 'polite' });
  const run = (refresh) => {
    const button = h('button', { type: 'button', disabled: true }, refresh ? t('ingest.canopy.refresh') : t('ingest.canopy.build'));
    buttons.push(button);
    button.addEventListener('click', act(button, out, async () => {
      const r = (await api('POST', '/v1/admin/canopy', { forest: ctx.forest, refresh })).data;
      await load();
      return h('p', { role: 'status' }, t(refresh ? 'ingest.canopy.refreshed' : 'ingest.canopy.built', { n: refresh ? r.refreshed : r.vectors }));
    }));
    return button;
  };
  const row = h('div', { class: 'row' }, run(true), run(false));
  load().catch((e) => mount(state, refusal(e)));
  return h('div', { class: 'card', 'data-card': 'canopy' }, h('h2', null, t('ingest.canopy.title')), state, row, out);
}

function recurateCard(ctx) {
  const out = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'recurate' }, t('ingest.recurate.run'));
  button.addEventListener('click', act(button, out, async () => {
    const r = (await api('POST', '/v1/admin/recurate', { forest: ctx.forest, derive: ['aliases'] })).data;
    return h('p', { role: 'status' }, t('ingest.recurate.done', { n: (r.updated || []).length }));
  }));
  return h('div', { class: 'card', 'data-card': 'recurate' }, h('h2', null, t('ingest.recurate.title')), h('p', { class: 'hint' }, t('ingest.recurate.lead')), button, out);
}
