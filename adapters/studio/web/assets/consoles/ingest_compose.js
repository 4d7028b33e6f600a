// SPDX-License-Identifier: Apache-2.0
// Compose (10 §6.8, J.8.1): one authored document, answered in place.
// Review stages it (stage: true, nothing written) and shows the draft to
// correct; Publish sends the same call with the reviewed draft; Discard
// drops it. Compose never queues; while a batch runs it waits for the
// board to show the forest free.

import { h, field, mount } from '../dom.js';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { refusal } from './common.js';
import { destField } from './ingest_upload.js';

const SUMMARY_TOKENS = 60;

// tokens counts as the engine does: about four code points a token.
export const tokens = (s) => (s ? Math.max(1, Math.ceil([...s].length / 4)) : 0);

// idle resolves once the board shows no running batch.
function idle(b) {
  if (!b.running()) return Promise.resolve();
  return new Promise((ok) => { const off = b.subscribe((bd) => { if (!bd.running()) { off(); ok(); } }); });
}

// composeTab is the document form; the draft card appears under it.
export function composeTab(ctx, b) {
  const title = h('input', { name: 'title', required: true });
  const text = h('textarea', { name: 'text', rows: '8', class: 'compose-text', required: true });
  const { sel: dest, el: destEl } = destField(ctx);
  const out = h('div', { 'aria-live': 'polite' });
  const post = async (extra) => {
    if (b.running()) mount(out, h('p', { role: 'status', class: 'hint' }, t('ingest.compose.waiting')));
    await idle(b);
    return (await api('POST', `/v1/forests/${encodeURIComponent(ctx.forest)}/ingest`,
      { mode: 'compose', title: title.value.trim(), text: text.value, dest: dest.value, ...extra })).data;
  };
  const review = async (e) => {
    e.preventDefault();
    try {
      const r = await post({ stage: true });
      const d = (r.drafts || [])[0];
      mount(out, d ? draftCard(ctx, d, post, out) : h('p', { class: 'hint' }, t('ingest.compose.noDraft')));
    } catch (err) {
      mount(out, refusal(err));
    }
  };
  return h('div', null, h('form', { class: 'card compose', onsubmit: review },
    field(t('ingest.compose.title'), title), field(t('ingest.compose.text'), text, t('ingest.compose.textHint')),
    destEl,
    h('button', { class: 'primary', type: 'submit' }, t('ingest.compose.review'))), out);
}

// draftCard is the staged draft to correct: summary with its counter,
// tags, and the proposed links to keep, named by their target's title.
function draftCard(ctx, d, post, out) {
  const summary = h('textarea', { name: 'summary', rows: '3' }, '');
  summary.value = d.summary;
  const counter = h('span', { class: 'meta', 'data-tokens': '' });
  const count = () => {
    const n = tokens(summary.value);
    mount(counter, t('ingest.compose.tokens', { n, max: SUMMARY_TOKENS }));
    counter.classList.toggle('error', n > SUMMARY_TOKENS);
  };
  summary.addEventListener('input', count);
  count();
  const tags = h('input', { name: 'tags', value: (d.tags || []).join(', ') });
  const links = (d.links || []).map((l) => ({ l, box: h('input', { type: 'checkbox', checked: true, name: 'link', value: l.target }) }));
  const publish = async () => {
    const draft = { title: d.title, summary: summary.value.trim(), tags: tags.value.split(',').map((x) => x.trim()).filter(Boolean),
      links: links.filter((x) => x.box.checked).map((x) => ({ target: x.l.target, rel: x.l.rel, note: x.l.note || '' })) };
    try {
      const r = await post({ draft });
      mount(out, h('div', { class: 'card', role: 'status', 'data-published': '' }, h('p', null, t('ingest.compose.published')),
        h('ul', { class: 'plain' }, [...(r.planted || []), ...(r.updated || [])].map((id) => h('li', null, ctx.nodeLink(id, id)))),
        (r.errors || []).length ? h('ul', { class: 'error' }, r.errors.map((x) => h('li', null, x))) : null));
    } catch (err) {
      mount(out, refusal(err));
    }
  };
  return h('div', { class: 'card draft-card', 'data-draft': d.id },
    h('h2', null, d.title),
    h('dl', { class: 'counts' }, h('dt', null, t('ingest.compose.id')), h('dd', null, h('code', null, d.id)),
      h('dt', null, t('ingest.compose.parent')), h('dd', null, h('code', null, d.parent)),
      h('dt', null, t('ingest.compose.type')), h('dd', null, d.type)),
    field(t('ingest.compose.summary'), summary), counter,
    field(t('ingest.compose.tags'), tags, t('ingest.compose.tagsHint')),
    links.length ? h('fieldset', null, h('legend', null, t('ingest.compose.links')), links.map(({ l, box }) =>
      h('label', { class: 'inline' }, box, l.target_title || l.target))) : h('p', { class: 'hint' }, t('ingest.compose.noLinks')),
    h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary publish', onclick: publish }, t('ingest.compose.publish')),
      h('button', { type: 'button', class: 'discard', onclick: () => mount(out) }, t('ingest.compose.discard'))));
}
