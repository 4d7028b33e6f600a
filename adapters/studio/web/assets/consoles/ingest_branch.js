// SPDX-License-Identifier: Apache-2.0
// New branch (10 §6.3, J.5.7, shared with Ingest): the parent picked
// from the branches the key reaches, never typed; the name's slug gives
// the id, shown before submit; the summary's budget shown, the engine
// judging it; exactly one plant of a branch, which is then selected.

import { h, field, mount } from '../dom.js';
import { call } from '../api.js';
import { t } from '../i18n.js';
import { allowed, refusal } from './common.js';
import { branches, slugify, leafID } from './data_create.js';
import { tokens } from './ingest_compose.js';

// branchID is where a branch named slug under parent lives.
export const branchID = (parent, slug) => `${leafID(parent, slug)}/_index`;

// branchBody is the skeleton every branch index starts from (J.5.7).
export const branchBody = (title, summary) => `# ${title}\n\n> ${summary}\n\n## Sub-branches\n\n## Direct bananas\n\n## Cross trails\n`;

// newBranch is the form inside a disclosure; made(id) selects the new
// branch wherever the form was opened from. Without write it is absent.
export function newBranch(ctx, made) {
  if (!allowed(ctx, 'write')) return null;
  const parent = h('select', { name: 'branch-parent' }, ctx.grant.roots.map((r) => h('option', { value: r }, r)));
  branches(ctx).then((list) => mount(parent, list.map((b) => h('option', { value: b }, b)))).catch(() => {});
  const title = h('input', { name: 'branch-title' });
  const summary = h('textarea', { name: 'branch-summary', rows: '2' });
  const id = h('code', { 'data-branch-id': '' });
  const budget = h('span', { class: 'meta' });
  const paint = () => {
    const slug = slugify(title.value);
    mount(id, slug ? branchID(parent.value, slug) : '…');
    mount(budget, t('ingest.compose.tokens', { n: tokens(summary.value.trim()), max: 60 }));
  };
  for (const el of [title, summary, parent]) el.addEventListener(el === parent ? 'change' : 'input', paint);
  const msg = h('div', { 'aria-live': 'polite' });
  const box = h('details', { class: 'new-branch' });
  const plant = async () => {
    const slug = slugify(title.value);
    if (!slug || !summary.value.trim()) return mount(msg, h('p', { class: 'error', role: 'alert' }, t('ingest.branch.incomplete')));
    const node = { id: branchID(parent.value, slug), type: 'branch', parent: parent.value, title: title.value.trim(),
      summary: summary.value.trim(), source: 'manual', body: branchBody(title.value.trim(), summary.value.trim()) };
    try {
      await call(ctx.forest, 'plant', { node });
      mount(msg);
      title.value = '';
      summary.value = '';
      paint();
      box.open = false;
      made(node.id);
    } catch (e) {
      mount(msg, refusal(e));
    }
  };
  paint();
  // A fieldset, not a form: it sits inside the batch's own form.
  return mount(box, h('summary', null, t('ingest.branch.new')),
    h('fieldset', { class: 'plain-fieldset' }, h('legend', { class: 'sr' }, t('ingest.branch.new')),
      field(t('ingest.branch.parent'), parent), field(t('ingest.branch.title'), title),
      h('p', { class: 'meta' }, t('ingest.branch.id'), ' ', id),
      field(t('ingest.branch.summary'), summary), budget,
      h('div', null, h('button', { type: 'button', class: 'plant-branch', onclick: plant }, t('ingest.branch.plant'))), msg));
}
