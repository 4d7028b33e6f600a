// SPDX-License-Identifier: Apache-2.0

// The Clipper's own UI strings: en, pt, es in i18n/<lang>.json, the
// person's choice stored with the extension (default: the browser's).
// Only manifest strings use the platform's _locales.

export const LANGS = ['en', 'pt', 'es'];
const KEY = 'lang';
let strings = {};
let fallback = {};

/** browserLang maps the browser's language onto en/pt/es. */
export function browserLang() {
  const l = (globalThis.navigator?.language || 'en').slice(0, 2).toLowerCase();
  return LANGS.includes(l) ? l : 'en';
}

/** currentLang is the stored choice, else the browser's. */
export async function currentLang() {
  const got = await chrome.storage.local.get(KEY);
  return LANGS.includes(got[KEY]) ? got[KEY] : browserLang();
}

/** setLang stores the person's choice. */
export async function setLang(lang) {
  if (LANGS.includes(lang)) await chrome.storage.local.set({ [KEY]: lang });
}

async function load(lang) {
  const r = await fetch(chrome.runtime.getURL('i18n/' + lang + '.json'));
  return r.json();
}

/** loadStrings reads the catalogue of the current language. */
export async function loadStrings(lang) {
  lang = lang || await currentLang();
  fallback = await load('en');
  strings = lang === 'en' ? fallback : await load(lang);
  return lang;
}

/** t looks a key up, filling {name} placeholders. */
export function t(key, vars) {
  let s = strings[key] ?? fallback[key] ?? key;
  for (const [k, v] of Object.entries(vars || {})) s = s.split('{' + k + '}').join(String(v));
  return s;
}
