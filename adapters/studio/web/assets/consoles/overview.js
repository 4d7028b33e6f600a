// SPDX-License-Identifier: Apache-2.0
// Overview (10 §6.1): counts over what the key reaches, the scope, what
// the grant can and cannot do, start actions.

import { h } from '../dom.js';
import { api, call } from '../api.js';
import { t } from '../i18n.js';
import { link } from '../router.js';
import { into, heading, allowed, refusal } from './common.js';

const CAPS = ['read', 'answer', 'query', 'write', 'tend', 'ingest', 'admin'];

export function render(ctx) {
  const facts = h('div');
  into(facts, () => counts(ctx));
  const recent = h('div');
  into(recent, () => activity(ctx));
  const health = h('div');
  if (allowed(ctx, 'admin')) into(health, () => healthSummary(ctx).catch((e) => refusal(e)));
  const start = (console, cap) => allowed(ctx, cap)
    ? link({ forest: ctx.forest, console, params: {} }, { class: 'button' }, t(`shell.console.${console}`))
    : h('button', { type: 'button', disabled: true }, t(`shell.console.${console}`));
  const whole = ctx.grant.roots.length === 1 && ctx.grant.roots[0] === '_index';
  return h('section', null, heading(t('overview.title', { forest: ctx.forest })),
    h('div', { class: 'card' }, h('p', null, t('overview.lead')), h('div', { class: 'row' }, start('ask', 'answer'), start('explore', 'read'), start('data', 'query'))),
    facts, recent, health,
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

// activity is calendar's count of nodes updated per month under each
// root, the last six months that hold any: what changed lately.
async function activity(ctx) {
  const months = new Map();
  await Promise.all(ctx.grant.roots.map(async (root) => {
    const args = { date_field: 'updated', granularity: 'month', limit: 6 };
    if (root !== '_index') args.scope = root;
    for (const b of (await call(ctx.forest, 'calendar', args)).data.buckets || []) months.set(b.period, (months.get(b.period) || 0) + b.nodes);
  }));
  const rows = [...months].sort((a, b) => b[0].localeCompare(a[0])).slice(0, 6);
  return h('div', { class: 'card' }, h('h2', null, t('overview.activity')), rows.length
    ? h('ul', null, rows.map(([period, n]) => h('li', null, t('overview.activity.row', { period, n }))))
    : h('p', { class: 'hint' }, t('overview.activity.none')));
}

// HEALTH are the report's lists Overview counts, relayed without arithmetic.
const HEALTH = ['needs_split', 'fat_nodes', 'stale_passports', 'needs_description'];

// healthSummary relays the Ranger's report (admins with the whole forest;
// a scoped admin gets the API's refusal, shown as is).
async function healthSummary(ctx) {
  const r = (await api('GET', `/v1/admin/health?forest=${encodeURIComponent(ctx.forest)}`)).data;
  const lint = r.lint || {};
  const lists = HEALTH.filter((k) => (r[k] || []).length);
  const clear = !lint.errors && !lint.warnings && !lists.length;
  return h('div', { class: 'card' }, h('h2', null, t('overview.health')), clear ? h('p', null, t('overview.health.clear')) : [
    h('dl', { class: 'facts' }, h('dt', null, t('overview.health.errors')), h('dd', null, String(lint.errors || 0)),
      h('dt', null, t('overview.health.warnings')), h('dd', null, String(lint.warnings || 0))),
    lists.map((k) => h('details', null, h('summary', null, t(`overview.health.${k}`, { n: r[k].length })),
      h('ul', null, r[k].slice(0, 10).map((id) => h('li', null, ctx.nodeLink(id, id))))))]);
}
