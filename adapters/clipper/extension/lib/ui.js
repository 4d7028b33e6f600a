// SPDX-License-Identifier: Apache-2.0

// What the popup and the editor share: translating the page and asking
// the service worker.

import { loadStrings, setLang, t } from './i18n.js';

/** translate fills every data-i18n element and data-i18n-label attribute. */
export function translate(lang) {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
}

/** languages wires the language select: the choice is stored with the extension. */
export async function languages(sel, after) {
  const lang = await loadStrings();
  sel.value = lang;
  translate(lang);
  sel.addEventListener('change', async () => {
    await setLang(sel.value);
    translate(await loadStrings(sel.value));
    if (after) after();
  });
}

/** ask sends one message to the service worker. */
export function ask(op, args) {
  return chrome.runtime.sendMessage({ op, ...args });
}

/** $ is document.getElementById. */
export const $ = (id) => document.getElementById(id);

/** statusText renders the worker's progress record. */
export function statusText(s) {
  if (!s) return '';
  switch (s.state) {
    case 'working': return t('working');
    case 'queued': return t('queued');
    case 'done': return t('done');
    case 'error': return s.status === 429 ? t('wait_minute') : t('failed', { message: s.message || '' });
    default: return '';
  }
}

/** activeTab is the tab the person is looking at (not the Clipper's own). */
export async function activeTab() {
  const tabs = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  return tabs.find((x) => !String(x.url || '').startsWith(location.origin)) || null;
}
