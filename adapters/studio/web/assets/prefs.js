// SPDX-License-Identifier: Apache-2.0
// Theme and the remembered place (10 §5, §9). The inline script in
// index.html applies the theme before first paint; this keeps it.

const THEME = 'monkeyllm.studio.theme';
const PLACE = 'monkeyllm.studio.place';

export const theme = () => document.documentElement.dataset.theme || 'light';

export function setTheme(t) {
  document.documentElement.dataset.theme = t;
  try { localStorage.setItem(THEME, t); } catch { /* storage off */ }
}

export function rememberPlace(forest, console) {
  try { localStorage.setItem(PLACE, JSON.stringify({ forest, console })); } catch { /* storage off */ }
}

export function lastPlace() {
  try { return JSON.parse(localStorage.getItem(PLACE) || 'null'); } catch { return null; }
}
