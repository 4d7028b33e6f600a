// SPDX-License-Identifier: Apache-2.0
// The Gauntlet card (10 §6.9, §6.15): the dense layer's state as
// /v1/admin/canopy reports it, the forest's Gauntlet switch, build and
// refresh. Models and Health both show it; building is always a press,
// never a side effect of opening either.

import { h, mount } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { into, refusal } from './common.js';

// STATES are the layer's readiness states (K.4) and their sentences.
const STATES = { 'no-embedder': 'noEmbedder', 'no-index': 'noIndex', 'model-mismatch': 'mismatch', active: 'active' };

// canopyCard is the card's region; region.reload reads the status again
// (Models calls it when the embed binding changes).
export function canopyCard(ctx) {
  const region = h('div');
  region.reload = () => into(region, async () => view(ctx, region, await status(ctx)));
  region.reload();
  return region;
}

const status = async (ctx) => (await api('GET', `/v1/admin/canopy?forest=${encodeURIComponent(ctx.forest)}`)).data;

function view(ctx, region, st, done) {
  const msg = h('div', { 'aria-live': 'polite' });
  const send = async (btn, body) => {
    btn.disabled = true;
    mount(msg, h('p', { class: 'spinner', role: 'status' }, t('models.canopy.working')));
    try {
      await api('POST', '/v1/admin/canopy', { forest: ctx.forest, ...body });
      // The status is read again rather than pieced from the answer: a
      // build's answer carries no Gauntlet switch.
      const st2 = await status(ctx);
      mount(region, view(ctx, region, st2, body.enabled === undefined ? t('models.canopy.built', { n: st2.vectors }) : ''));
    } catch (e) {
      btn.disabled = false;
      mount(msg, refusal(e));
    }
  };
  const toggle = h('input', { type: 'checkbox', name: 'gauntlet', checked: st.enabled !== false,
    onchange: () => send(toggle, { enabled: toggle.checked }) });
  const build = h('button', { type: 'button', 'data-build': '', disabled: !st.query_model, title: st.query_model ? null : t('models.canopy.needsEmbed'),
    onclick: () => send(build, {}) }, t('models.canopy.build'));
  const refresh = h('button', { type: 'button', 'data-refresh': '', disabled: !st.active || !st.stale, onclick: () => send(refresh, { refresh: true }) }, t('models.canopy.refresh'));
  const key = STATES[st.state];
  return h('div', { class: 'card canopy-card', 'data-state': st.state }, h('h2', null, t('models.canopy')),
    h('p', { class: 'hint' }, t('models.canopy.lead')),
    h('p', null, h('span', { class: st.active ? 'badge ok' : 'badge' }, st.state), ' ', key ? t(`models.canopy.state.${key}`) : null),
    h('dl', { class: 'facts' },
      h('dt', null, t('models.canopy.embedder')), h('dd', null, st.query_model || t('models.canopy.none')),
      h('dt', null, t('models.canopy.index')), h('dd', null, st.index_model || t('models.canopy.none')),
      h('dt', null, t('models.canopy.vectors')), h('dd', { 'data-vectors': '' }, String(st.vectors)),
      h('dt', null, t('models.canopy.stale')), h('dd', null, String(st.stale))),
    done ? h('p', { class: 'ok', role: 'status' }, done) : null,
    h('label', { class: 'inline' }, toggle, t('models.canopy.enabled')),
    msg, h('div', { class: 'row' }, build, refresh));
}
