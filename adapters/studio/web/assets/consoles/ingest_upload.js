// SPDX-License-Identifier: Apache-2.0
// Upload and adopt (10 §6.8). Upload takes files by drop, by picking
// files or by picking a folder; what the forest cannot ingest (its
// formats, from the status) or what is over 25 MB is refused here with
// the reason, before anything is sent. Text travels as text, anything
// else as base64. Adopt names a host folder, for operators only.

import { h, field, mount } from '../dom.js';
import { t } from '../i18n.js';
import { branches } from './data_create.js';
import { refusal } from './common.js';
import { newBranch } from './ingest_branch.js';
import { submitBatch, submitButton } from './ingest.js';

const MAX_BYTES = 25 << 20;

const extOf = (name) => ((name.match(/\.[^./]+$/) || [''])[0]).toLowerCase();

// destField is the destination: a select of the branches the key
// reaches, the first root chosen, and New branch, which selects what it
// planted. It returns the select and what to show.
export function destField(ctx) {
  const sel = h('select', { name: 'dest' }, ctx.grant.roots.map((r) => h('option', { value: r }, r)));
  branches(ctx).then((list) => {
    const keep = sel.value;
    mount(sel, list.map((b) => h('option', { value: b }, b)));
    sel.value = list.includes(keep) ? keep : ctx.grant.roots[0];
  }).catch(() => {});
  const made = (id) => {
    if (![...sel.options].some((o) => o.value === id)) sel.append(h('option', { value: id }, id));
    sel.value = id;
  };
  return { sel, el: [field(t('ingest.dest'), sel), newBranch(ctx, made)] };
}

// encode reads a file as an upload entry: UTF-8 text without NUL as
// text, anything else as b64.
export async function encode(name, file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!bytes.includes(0)) {
    try { return { name, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }; } catch { /* binary */ }
  }
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { name, b64: btoa(s) };
}

// walk reads a dropped directory entry into [path, File] pairs.
async function walk(entry, out) {
  if (entry.isFile) {
    out.push([entry.fullPath.replace(/^\//, ''), await new Promise((ok, no) => entry.file(ok, no))]);
    return;
  }
  const reader = entry.createReader();
  for (;;) {
    const batch = await new Promise((ok, no) => reader.readEntries(ok, no));
    if (!batch.length) return;
    for (const e of batch) await walk(e, out);
  }
}

// uploadTab is the upload form: files in, refused ones listed with their
// cause, one batch out.
export function uploadTab(ctx, b, status, adoptable) {
  const chosen = new Map(); // path → File
  const skipped = [];       // {name, cause}
  const accept = () => new Set((status.formats || []).map((f) => f.extension));
  const list = h('div', { class: 'chosen' });
  const go = submitButton(b);
  const msg = h('div', { 'aria-live': 'polite' });
  const add = (pairs) => {
    const ok = accept();
    for (const [path, file] of pairs) {
      if (!ok.has(extOf(path))) skipped.push({ name: path, cause: t('ingest.upload.unsupported', { ext: extOf(path) || '—' }) });
      else if (file.size > MAX_BYTES) skipped.push({ name: path, cause: t('ingest.upload.tooBig', { mb: (file.size / 1048576).toFixed(1) }) });
      else chosen.set(path, file);
    }
    paint();
  };
  const paint = () => { go.disabled = !chosen.size; return draw(); };
  const draw = () => mount(list,
    chosen.size ? h('ul', { class: 'plain files', 'aria-label': t('ingest.upload.chosen') }, [...chosen].map(([path, f]) => h('li', { class: 'row', 'data-file': path },
      h('span', { class: 'grow' }, path), h('span', { class: 'meta' }, `${Math.ceil(f.size / 1024)} KB`),
      h('button', { type: 'button', 'aria-label': t('ingest.upload.removeOne', { name: path }), onclick: () => { chosen.delete(path); paint(); } }, '✕')))) : null,
    skipped.length ? h('div', { class: 'skipped', role: 'status' }, h('h3', null, t('ingest.upload.skipped')),
      h('ul', null, skipped.map((s) => h('li', { 'data-skipped': s.name }, h('code', null, s.name), ' — ', s.cause)))) : null,
    go);
  const files = h('input', { type: 'file', multiple: true, name: 'files', class: 'sr', accept: [...accept()].join(','), onchange: (e) => { add([...e.target.files].map((f) => [f.name, f])); e.target.value = ''; } });
  const folder = h('input', { type: 'file', multiple: true, webkitdirectory: true, name: 'folder', class: 'sr',
    onchange: (e) => { add([...e.target.files].map((f) => [f.webkitRelativePath || f.name, f])); e.target.value = ''; } });
  const drop = h('div', { class: 'drop-zone', 'data-drop': '',
    ondragover: (e) => { e.preventDefault(); e.currentTarget.classList.add('over'); },
    ondragleave: (e) => e.currentTarget.classList.remove('over'),
    ondrop: async (e) => {
      e.preventDefault();
      e.currentTarget.classList.remove('over');
      const out = [];
      for (const it of [...e.dataTransfer.items]) {
        const entry = it.webkitGetAsEntry && it.webkitGetAsEntry();
        if (entry) await walk(entry, out);
        else if (it.getAsFile()) out.push([it.getAsFile().name, it.getAsFile()]);
      }
      add(out);
    } },
  h('p', null, t('ingest.upload.drop')),
  h('div', { class: 'row' }, h('label', { class: 'button' }, files, t('ingest.upload.files')), h('label', { class: 'button' }, folder, t('ingest.upload.folder'))),
  h('p', { class: 'hint' }, t('ingest.upload.accepts', { formats: [...accept()].join(' ') || '—' })));
  const { sel: dest, el: destEl } = destField(ctx);
  const submit = async (e) => {
    e.preventDefault();
    if (!chosen.size) return;
    let entries;
    try {
      entries = await Promise.all([...chosen].map(([path, f]) => encode(path, f)));
    } catch (err) {
      return mount(msg, refusal(err)); // a file unreadable since it was chosen
    }
    const label = t('ingest.queue.upload', { n: entries.length, dest: dest.value });
    // A refused batch keeps its files in the form, to send again.
    if (!await submitBatch(b, label, { mode: 'upload', files: entries, dest: dest.value }, msg)) return;
    chosen.clear();
    skipped.length = 0;
    paint();
  };
  paint();
  return h('form', { class: 'card upload', onsubmit: submit },
    adoptable ? null : h('p', { class: 'hint' }, t('ingest.upload.noHostPaths')),
    drop, destEl, list, msg);
}

// adoptTab names a host folder for the Station to mirror (admins, and
// only where the host serves paths).
export function adoptTab(ctx, b) {
  const path = h('input', { name: 'path', required: true, placeholder: '/srv/docs' });
  const { sel: dest, el: destEl } = destField(ctx);
  const msg = h('div', { 'aria-live': 'polite' });
  const submit = async (e) => {
    e.preventDefault();
    await submitBatch(b, t('ingest.queue.adopt', { path: path.value }), { mode: 'adopt', path: path.value.trim(), dest: dest.value }, msg);
  };
  return h('form', { class: 'card adopt', onsubmit: submit }, h('p', { class: 'hint' }, t('ingest.adopt.lead')),
    field(t('ingest.adopt.path'), path), destEl,
    submitButton(b), msg);
}
