// SPDX-License-Identifier: Apache-2.0
// English, Portuguese and Spanish, complete (10 §5): catalogues are
// locales/<namespace>/<lang>.json with flat dotted keys, the namespace
// being the key's first segment. An unknown key renders as itself, loud.

export const LANGS = ['en', 'pt', 'es'];
export const NAMESPACES = ['shell', 'overview', 'ask', 'explore', 'read', 'playground', 'data', 'access', 'audit', 'webhooks', 'ingest', 'skills', 'integrations', 'models', 'health', 'extensions'];
const STORE = 'monkeyllm.studio.lang';

let catalogue = {};
export let lang = 'en';

// detect: an explicit choice, else the browser's first known language.
export function detect() {
  try {
    const kept = localStorage.getItem(STORE);
    if (LANGS.includes(kept)) return kept;
  } catch { /* storage off */ }
  for (const l of navigator.languages || []) {
    const two = l.slice(0, 2).toLowerCase();
    if (LANGS.includes(two)) return two;
  }
  return 'en';
}

// load fetches every namespace of a language and makes it current.
export async function load(l) {
  const parts = await Promise.all(NAMESPACES.map(async (ns) => {
    const res = await fetch(new URL(`./locales/${ns}/${l}.json`, import.meta.url));
    return res.ok ? res.json() : {};
  }));
  catalogue = Object.assign({}, ...parts);
  lang = l;
  document.documentElement.lang = l;
}

// choose persists an explicit choice.
export async function choose(l) {
  try { localStorage.setItem(STORE, l); } catch { /* storage off */ }
  await load(l);
}

// t translates a key, filling {name} placeholders.
export function t(key, vars) {
  const s = catalogue[key];
  if (s == null) return key;
  return vars ? s.replace(/\{(\w+)\}/g, (m, n) => (n in vars ? String(vars[n]) : m)) : s;
}
