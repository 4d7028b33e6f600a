// SPDX-License-Identifier: Apache-2.0

// Pure helpers shared by the popup, the editor and the service worker:
// no chrome.* call here, so the browser test can check them directly.

/** The tracking parameters a clipped address loses (10 §11). */
const TRACKING = [/^utm_/i, /^fbclid$/i, /^gclid$/i];

/**
 * normalizeOrigin reduces what a person typed to scheme://host[:port],
 * https assumed; it throws on anything that is not an http(s) address.
 */
export function normalizeOrigin(typed) {
  let s = String(typed || '').trim();
  if (!s) throw new Error('empty');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) s = 'https://' + s;
  const u = new URL(s);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
  if (!u.hostname || u.username || u.password) throw new Error('host');
  return u.origin;
}

/** originPattern is the host permission for an origin: ports are not in patterns. */
export function originPattern(origin) {
  const u = new URL(origin);
  return u.protocol + '//' + u.hostname + '/*';
}

/** stripTracking removes utm_*, fbclid and gclid from an address. */
export function stripTracking(url) {
  let u;
  try { u = new URL(url); } catch { return url; }
  for (const k of [...u.searchParams.keys()]) {
    if (TRACKING.some((re) => re.test(k))) u.searchParams.delete(k);
  }
  return u.toString();
}

/** sourceURL is what an upload may declare: http(s), at most 2048 characters, else ''. */
export function sourceURL(url) {
  const s = stripTracking(url || '');
  if (!/^https?:\/\//i.test(s) || s.length > 2048 || /[\u0000-\u0020\u007f]/.test(s)) return '';
  return s;
}

/** ymd is the UTC calendar day of a date, YYYY-MM-DD. */
export function ymd(d) {
  return d.toISOString().slice(0, 10);
}

/** provenance is the footer every compose ends with (English: it is content). */
export function provenance(url, d) {
  const where = url ? stripTracking(url) + ' ' : '';
  return '\n\n---\n\nSource: ' + where + '(clipped ' + ymd(d) + ')';
}

/** slug is a lowercase a-z0-9 run joined by dashes, at most n characters. */
export function slug(s, n) {
  const out = String(s || '').toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return out.slice(0, n).replace(/-+$/, '');
}

/**
 * shotName names a screenshot <title slug ≤40>--<host slug ≤30>-<YYYYMMDDHHMM>.jpg,
 * so the media stub the server writes quotes the page and its host.
 */
export function shotName(title, url, d) {
  let host = '';
  try { host = new URL(url).hostname; } catch { /* no host */ }
  const stamp = d.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return (slug(title, 40) || 'page') + '--' + (slug(host, 30) || 'local') + '-' + stamp + '.jpg';
}

/** composeText ends a clip's markdown with its provenance footer. */
export function composeText(markdown, url, d) {
  return String(markdown || '').replace(/\s+$/, '') + provenance(url, d);
}

/** title240 keeps a title short enough for the engine's title bound. */
export function shortTitle(s, fallback) {
  const t = String(s || '').replace(/\s+/g, ' ').trim();
  return (t || fallback || 'Clip').slice(0, 200);
}
