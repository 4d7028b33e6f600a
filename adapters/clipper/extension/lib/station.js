// SPDX-License-Identifier: Apache-2.0

// Requests to the paired Station. Only the service worker imports this:
// page scripts never talk to the Station, the popup asks the worker.

const PAIRING = 'pairing';

/** pairing is the stored {origin, key, principal}, or null. */
export async function pairing() {
  const got = await chrome.storage.local.get(PAIRING);
  return got[PAIRING] || null;
}

/** savePairing keeps exactly origin, key and principal: never a password. */
export async function savePairing(origin, key, principal) {
  await chrome.storage.local.set({ [PAIRING]: { origin, key, principal } });
}

/** forget discards the key; revocation itself lives in the Studio's People. */
export async function forget(reason) {
  await chrome.storage.session.set({ loggedOut: reason || '' }); // first: the popup reads it on the removal
  await chrome.storage.local.remove(PAIRING);
}

/** StationError carries the envelope's code, the HTTP status and the message. */
export class StationError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

/**
 * call sends one request. A network failure is StationError code
 * 'offline' (status 0), which the queue retries; every refusal carries
 * the envelope's code.
 */
export async function call(origin, key, path, method, body) {
  const headers = {};
  if (key) headers.Authorization = 'Bearer ' + key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let r;
  try {
    r = await fetch(origin + path, { method: method || 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new StationError(0, 'offline', String(e && e.message || e));
  }
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) {
    const env = (data && data.error) || {};
    throw new StationError(r.status, env.code || 'E_HTTP', env.message || ('HTTP ' + r.status));
  }
  return data;
}

/** api calls the paired Station with its key; a 401 clears the pairing. */
export async function api(path, method, body) {
  const p = await pairing();
  if (!p) throw new StationError(401, 'E_UNPAIRED', 'not paired');
  try {
    return await call(p.origin, p.key, path, method, body);
  } catch (e) {
    if (e.status === 401) await forget('revoked');
    throw e;
  }
}

/** forestPath is the address of a forest's route. */
export function forestPath(forest, rest) {
  return '/v1/forests/' + encodeURIComponent(forest) + rest;
}
