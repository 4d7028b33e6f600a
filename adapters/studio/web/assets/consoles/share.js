// SPDX-License-Identifier: Apache-2.0
// The Read console's share panel (10 §6.4, J.17): a link that expires,
// shown once when made, and this node's live shares with revoke.

import { h, mount } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { refusal } from './common.js';

export function sharePanel(ctx, id) {
  const base = `/v1/forests/${encodeURIComponent(ctx.forest)}`;
  const days = h('select', { name: 'days', 'aria-label': t('read.share.days') }, [7, 30, 90].map((d) =>
    h('option', { value: d }, t('read.share.daysN', { n: d }))));
  const made = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  const refresh = async () => {
    try {
      const live = ((await api('GET', `${base}/shares`)).data.shares || []).filter((s) => s.node === id);
      mount(list, live.length ? h('ul', { class: 'plain' }, live.map((s) => h('li', { class: 'row' },
        h('code', null, s.id), h('span', { class: 'meta' }, t('read.share.expires', { date: s.expires })),
        h('button', { type: 'button', 'data-revoke': s.id, onclick: () => revoke(s.id) }, t('read.share.revoke'))))) : h('p', { class: 'hint' }, t('read.share.none')));
    } catch (e) { mount(list, refusal(e)); }
  };
  const revoke = async (sid) => {
    try { await api('DELETE', `${base}/shares/${encodeURIComponent(sid)}`, {}); } catch (e) { mount(made, refusal(e)); }
    refresh();
  };
  const create = async () => {
    try {
      const r = await api('POST', `${base}/share`, { node: id, days: Number(days.value) });
      const url = new URL(r.data.url, location.origin).href;
      mount(made, h('p', null, t('read.share.once')), h('div', { class: 'row' }, h('code', { class: 'share-url' }, url),
        h('button', { type: 'button', onclick: () => navigator.clipboard && navigator.clipboard.writeText(url) }, t('read.share.copy'))));
    } catch (e) { mount(made, refusal(e)); }
    refresh();
  };
  refresh();
  return h('div', { class: 'card' }, h('h2', null, t('read.share')),
    h('div', { class: 'row' }, days, h('button', { type: 'button', class: 'share-create', onclick: create }, t('read.share.create'))), made, list);
}
