// SPDX-License-Identifier: Apache-2.0
// Ask's run history (10 §6.2, J.5.9): every submission kept in this
// browser only (IndexedDB monkeyllm.studio, store runs), per principal
// and forest, at most 50 runs and 20 MiB each, oldest dropped first.
// Restoring reads the store and sends nothing; sign-out deletes it all.

const DB = 'monkeyllm.studio';
const MAX_RUNS = 50;
const MAX_BYTES = 20 << 20;

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore('runs', { keyPath: 'id', autoIncrement: true }).createIndex('scope', 'scope');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error); });
}

const scopeOf = (principal, forest) => `${principal}\u0000${forest}`;

// list returns a scope's runs, newest first.
export async function list(principal, forest) {
  const db = await open();
  try {
    const req = db.transaction('runs').objectStore('runs').index('scope').getAll(scopeOf(principal, forest));
    const runs = await new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); req.onerror = () => reject(req.error); });
    return runs.sort((a, b) => b.id - a.id);
  } finally { db.close(); }
}

// save keeps a run, then drops the scope's oldest past the bounds.
export async function save(principal, forest, run) {
  const size = JSON.stringify(run).length;
  const db = await open();
  try {
    const tx = db.transaction('runs', 'readwrite');
    tx.objectStore('runs').add({ ...run, scope: scopeOf(principal, forest), size });
    await done(tx);
  } finally { db.close(); }
  const runs = await list(principal, forest);
  let bytes = 0;
  const drop = runs.filter((r, i) => { bytes += r.size; return i >= MAX_RUNS || bytes > MAX_BYTES; });
  if (drop.length) await remove(drop.map((r) => r.id));
}

async function remove(ids) {
  const db = await open();
  try {
    const tx = db.transaction('runs', 'readwrite');
    for (const id of ids) tx.objectStore('runs').delete(id);
    await done(tx);
  } finally { db.close(); }
}

// clear empties one scope.
export async function clear(principal, forest) {
  await remove((await list(principal, forest)).map((r) => r.id));
}

// forgetAll deletes every kept run: sign-out.
export function forgetAll() {
  return new Promise((resolve) => {
    const req = indexedDB.deleteDatabase(DB);
    req.onsuccess = req.onerror = req.onblocked = () => resolve();
  });
}

export const bounds = { runs: MAX_RUNS, mib: MAX_BYTES >> 20 };
