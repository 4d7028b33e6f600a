// SPDX-License-Identifier: Apache-2.0
// Overview (10 §6.1): counts over what the key reaches, the scope, what
// the grant can and cannot do, start actions.

import { h } from '../dom.js';
import { call } from '../api.js';
import { t } from '../i18n.js';
import { link } from '../router.js';
import { into, heading, allowed } from './common.js';

const CAPS = ['read', 'answer', 'query', 'write', 'tend', 'ingest', 'admin'];

export function render(ctx) {
  const facts = h('div');
  into(facts, () => counts(ctx));
  const start = (console, cap) => allowed(ctx, cap)
    ? link({ forest: ctx.forest, console, params: {} }, { class: 'button' }, t(`shell.console.${console}`))
    : h('button', { type: 'button', disabled: true }, t(`shell.console.${console}`));
  const whole = ctx.grant.roots.length === 1 && ctx.grant.roots[0] === '_index';
  return h('section', null, heading(t('overview.title', { forest: ctx.forest })),
    h('div', { class: 'card' }, h('p', null, t('overview.lead')), h('div', { class: 'row' }, start('ask', 'answer'), start('explore', 'read'), start('data', 'query'))),
    facts,
    h('div', { class: 'card' }, h('h2', null, t('overview.scope')),
      h('p', null, whole ? t('shell.scope.whole') : t('shell.scope.branches', { n: ctx.grant.roots.length })),
      h('ul', null, ctx.grant.roots.map((r) => h('li', null, ctx.nodeLink(r, r))))),
    h('div', { class: 'card' }, h('h2', null, t('overview.can')),
      h('ul', null, CAPS.filter((c) => allowed(ctx, c)).map((c) => h('li', null, t(`overview.cap.${c}`)))),
      CAPS.some((c) => !allowed(ctx, c)) ? [h('h2', null, t('overview.cannot')),
        h('ul', null, CAPS.filter((c) => !allowed(ctx, c)).map((c) => h('li', null, t(`overview.cap.${c}`))))] : null,
      h('p', { class: 'meta' }, `${ctx.me.principal} · ${ctx.forest}`)));
}

// counts asks scan for the totals under each of the grant's roots (scan's
// total counts every match, whatever the page size): what the key
// reaches, never the forest's true size. A '+' when a root failed.
async function counts(ctx) {
  const sum = { nodes: 0, branches: 0, datasets: 0 };
  let partial = false;
  const total = async (root, filter) => (await call(ctx.forest, 'scan', { parent_id: root, recursive: true, limit: 1, ...(filter ? { filter } : {}) })).data.total || 0;
  await Promise.all(ctx.grant.roots.map(async (root) => {
    try {
      const [n, b, d] = await Promise.all([total(root), total(root, { type: 'branch' }), total(root, { type: 'dataset' })]);
      sum.nodes += n; sum.branches += b; sum.datasets += d;
    } catch { partial = true; }
  }));
  const plus = partial ? '+' : '';
  return h('div', { class: 'card' }, h('h2', null, t('overview.facts')), h('dl', { class: 'facts' },
    h('dt', null, t('overview.nodes')), h('dd', { 'data-count': 'nodes' }, `${sum.nodes}${plus}`),
    h('dt', null, t('overview.branches')), h('dd', null, `${sum.branches}${plus}`),
    h('dt', null, t('overview.datasets')), h('dd', null, `${sum.datasets}${plus}`)));
}
