// SPDX-License-Identifier: Apache-2.0
// The console's only door to the host: documented REST routes, the
// person's own key (10 §1), refusals surfaced as their envelopes.

export const KEY = 'monkeyllm.station.key';

export function getKey() {
  try { return localStorage.getItem(KEY) || ''; } catch { return ''; }
}
export function setKey(k) {
  try { k ? localStorage.setItem(KEY, k) : localStorage.removeItem(KEY); } catch { /* storage off */ }
}

// ApiError is a refusal: the envelope's code, message and hint.
export class ApiError extends Error {
  constructor(status, env) {
    super(env && env.message ? env.message : `HTTP ${status}`);
    this.status = status;
    this.code = (env && env.code) || 'E_HTTP';
    this.hint = (env && env.hint) || '';
  }
}

// serverTiming reads the host's own figures (08 §10): name → ms.
function serverTiming(header) {
  const out = {};
  for (const part of (header || '').split(',')) {
    const m = part.trim().match(/^([\w-]+)(?:.*?;\s*dur=([\d.]+))?/);
    if (m && m[2]) out[m[1]] = Number(m[2]);
  }
  return out;
}

// bearer is the request headers carrying key, none when it is empty.
const bearer = (key) => (key ? { Authorization: `Bearer ${key}` } : {});

// api sends one request; it resolves {data, ms, timing, bytes} or
// throws ApiError.
export async function api(method, path, body, opts = {}) {
  const headers = bearer(opts.key !== undefined ? opts.key : getKey());
  headers.Accept = 'application/json';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const t0 = performance.now();
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: opts.signal });
  const text = await res.text();
  const ms = performance.now() - t0;
  let data = text;
  if ((res.headers.get('Content-Type') || '').includes('json')) {
    try { data = JSON.parse(text); } catch { /* leave text */ }
  }
  if (!res.ok) {
    // A refusal may carry more than its envelope (the per-step outcome
    // of POST /v1/admin/people): kept as data for the console to list.
    const e = new ApiError(res.status, data && data.error);
    e.data = data;
    throw e;
  }
  return { data, ms, timing: serverTiming(res.headers.get('Server-Timing')), bytes: text.length };
}

const enc = (s) => encodeURIComponent(s);
// nodePath keeps a node id's slashes as path separators.
export const nodePath = (id) => id.split('/').map(enc).join('/');

// call runs a primitive on a forest with its signature-table arguments.
export const call = (forest, name, args) => api('POST', `/v1/forests/${enc(forest)}/${name}`, args || {});
export const forestGet = (forest, rest) => api('GET', `/v1/forests/${enc(forest)}/${rest}`);

// forestBlob fetches bytes with the key (a payload, a zipped branch) and
// names them from Content-Disposition when the host sends one.
export const forestBlob = (forest, rest, fallback) => hostBlob(`/v1/forests/${enc(forest)}/${rest}`, fallback);

// hostBlob is forestBlob for any route (a snapshot file).
export async function hostBlob(path, fallback) {
  const res = await fetch(path, { headers: bearer(getKey()) });
  if (!res.ok) {
    let env = null;
    try { env = (await res.json()).error; } catch { /* not JSON */ }
    throw new ApiError(res.status, env);
  }
  const m = (res.headers.get('Content-Disposition') || '').match(/filename="?([^";]+)"?/);
  return { blob: await res.blob(), name: m ? m[1] : fallback };
}
