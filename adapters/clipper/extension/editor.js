// SPDX-License-Identifier: Apache-2.0

// The editor tab: a markdown textarea (not a rich editor) with a draft
// autosaved per forest; saving is one compose through the worker.

import { t } from './lib/i18n.js';
import { $, ask, languages, statusText } from './lib/ui.js';

const params = new URLSearchParams(location.search);
const forest = params.get('forest') || '';
const dest = params.get('dest') || '';
const url = params.get('url') || '';

async function drafts() {
  return (await chrome.storage.local.get('drafts')).drafts || {};
}

let timer = 0;
function autosave() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    const all = await drafts();
    all[forest] = { title: $('title').value, text: $('text').value };
    await chrome.storage.local.set({ drafts: all });
    $('saved').textContent = t('draft_saved');
  }, 400);
}

async function save() {
  const text = $('text').value.trim();
  if (!text) return;
  await ask('note', { forest, dest, url, title: $('title').value.trim(), text });
  const all = await drafts();
  delete all[forest];
  await chrome.storage.local.set({ drafts: all });
}

async function boot() {
  await languages($('lang'), () => { $('where').textContent = t('editor_where', { forest, dest: dest || '/' }); });
  $('where').textContent = t('editor_where', { forest, dest: dest || '/' });
  const d = (await drafts())[forest];
  if (d) { $('title').value = d.title || ''; $('text').value = d.text || ''; }
  $('title').addEventListener('input', autosave);
  $('text').addEventListener('input', autosave);
  $('save').addEventListener('click', save);
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'session' && changes.status) {
      $('status').textContent = statusText(changes.status.newValue);
      if (changes.status.newValue.state === 'done') { $('title').value = ''; $('text').value = ''; }
    }
  });
}

boot();
