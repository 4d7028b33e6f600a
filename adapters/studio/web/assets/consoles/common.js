// SPDX-License-Identifier: Apache-2.0
// What every console renders the same way (10 §6): the loading state,
// the refusal with retry, the "needs capability" guard.

import { h, mount } from '../dom.js';
import { ApiError } from '../api.js';
import { t } from '../i18n.js';

// allowed is the console's own guard: an address reaches a hidden
// console, so hiding the menu entry is never the control.
export const allowed = (ctx, cap) => !cap || ctx.caps.includes('admin') || ctx.caps.includes(cap);

export function needsCap(cap) {
  return h('div', { class: 'card needs', role: 'status' }, h('strong', null, t('shell.needsCap', { cap })));
}

export const loading = () => h('p', { class: 'spinner', role: 'status' }, t('shell.loading'));

export function refusal(e, retry) {
  const msg = e instanceof ApiError ? `${e.message} (${e.code})` : String(e && e.message || e);
  return h('div', { class: 'card', role: 'alert' }, h('p', { class: 'error' }, msg),
    e && e.hint ? h('p', { class: 'hint' }, e.hint) : null,
    retry ? h('button', { type: 'button', onclick: retry }, t('shell.retry')) : null);
}

// into runs an async load into a region, with loading and error states.
export async function into(region, load) {
  const run = async () => {
    mount(region, loading());
    try { mount(region, await load()); } catch (e) { mount(region, refusal(e, run)); }
  };
  return run();
}

export function heading(text) { return h('h1', null, text); }

export function json(v) { return h('pre', { class: 'json', tabindex: '0' }, JSON.stringify(v, null, 2)); }

// resultList renders search hits as node links with their scent.
export function resultList(ctx, results) {
  if (!results || !results.length) return h('p', { class: 'hint' }, t('shell.noResults'));
  return h('ol', { class: 'plain results' }, results.map((r) => h('li', null,
    ctx.nodeLink(r.id, r.title || r.id), ' ', h('span', { class: 'badge' }, r.type || r.kind || ''),
    h('div', { class: 'meta' }, r.id), r.summary ? h('div', null, r.summary) : null,
    r.matches ? h('ul', { class: 'meta' }, r.matches.map((m) => h('li', null, `${m.section}: ${m.snippet}`))) : null)));
}

// timing states the host's engine figure, the rest as transport (08 §10).
export function timing(r) {
  const v = r.timing.vine;
  return h('p', { class: 'meta' }, v != null ? t('shell.timing', { vine: v.toFixed(1), transport: Math.max(0, r.ms - (r.timing.host || v)).toFixed(1) }) : t('shell.timing.client', { ms: r.ms.toFixed(0) }));
}
