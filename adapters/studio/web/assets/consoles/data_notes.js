// SPDX-License-Identifier: Apache-2.0
// The Data console's notes tab (10 §6.7): the dataset's `## Notes`
// section read whole through pick (never look's clipped digest), edited
// as markdown by a key with write, saved as one graft. The heading is a
// contract token: it is never translated.

import { h, field, mount } from '../dom.js';
import { call, ApiError } from '../api.js';
import { t } from '../i18n.js';
import { render as markdown } from '../markdown.js';
import { into, allowed, refusal } from './common.js';

const HEADER = 'Notes';

export function notesTab(ctx, id) {
  const region = h('div');
  into(region, () => notes(ctx, id, region));
  return region;
}

async function notes(ctx, id, region) {
  let text = '';
  let exists = true;
  try {
    text = (await call(ctx.forest, 'pick', { id, section: HEADER })).data.body || '';
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 'E_NOT_FOUND' || !/section/.test(e.message)) throw e;
    exists = false; // no section yet: the first save appends it
  }
  const shown = h('div', { class: 'card md notes-body' }, text.trim() ? markdown(text, { forest: ctx.forest, nodeLink: ctx.nodeLink }) : h('p', { class: 'hint' }, t('data.notes.none')));
  if (!allowed(ctx, 'write')) return shown;
  const area = h('textarea', { name: 'notes', rows: '10', class: 'notes', value: text.trim() });
  const msg = h('div', { 'aria-live': 'polite' });
  const save = async (e) => {
    e.preventDefault();
    const patch = exists ? { replace_section: { header: HEADER, body: area.value } } : { append_section: { header: HEADER, body: area.value } };
    try {
      await call(ctx.forest, 'graft', { id, patch });
      into(region, () => notes(ctx, id, region));
    } catch (err) {
      mount(msg, refusal(err));
    }
  };
  return h('div', null, shown, h('form', { class: 'card', onsubmit: save },
    field(t('data.notes.edit'), area, t('data.notes.hint')), h('button', { class: 'primary', type: 'submit' }, t('data.notes.save')), msg));
}
