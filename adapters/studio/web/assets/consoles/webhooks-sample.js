// SPDX-License-Identifier: Apache-2.0
// What the Webhooks console shows of a delivery before one exists: the
// body each catalogue event POSTs (09 §10, rationed as 08 §11: ids,
// types, counts, commits, never text) with sample values, and the
// receiver's verification code. Content, never translated.

const COMMIT = '4f1c2e9b7a0d3c5e8f6a1b2c3d4e5f60718293a4';
const NODE = { node: 'notes/tides/spring-tide', type: 'note', parent: 'notes/tides/_index', source: 'mcp', commit: COMMIT };
const JOB = { job: 'job-7c2a19e0', mode: 'upload' };

// SAMPLES are each event's data as the Station builds it.
const SAMPLES = {
  'node.planted': NODE,
  'branch.created': { ...NODE, node: 'notes/tides/_index', type: 'branch', parent: 'notes/_index' },
  'dataset.created': { ...NODE, node: 'data/tide-tables', type: 'dataset', parent: 'data/_index' },
  'node.grafted': { node: NODE.node, operations: ['append_section', 'add_links'], commit: COMMIT },
  'node.pruned': { node: NODE.node, backlinks_removed: 2, commit: COMMIT },
  'node.transplanted': { node: 'notes/coast/spring-tide', moved_from: NODE.node, backlinks_rewritten: 3, commit: COMMIT },
  'dataset.changed': { node: 'data/tide-tables', rows_affected: 12, commit: COMMIT },
  'ingest.started': { ...JOB, done: 0, total: 4 },
  'ingest.finished': { ...JOB, done: 4, total: 4, commit: COMMIT, planted: 4, failed: 0 },
  'ingest.failed': { ...JOB, done: 1, total: 4, code: 'E_CONVERT' },
  'ingest.cancelled': { ...JOB, done: 2, total: 4 },
  'ingest.document.failed': { job: JOB.job, document: 'tides-2026.pdf', index: 2, total: 4, code: 'E_CONVERT' },
  'answer.served': { mode: 'answer', cached: false, evidence: 5, cost: 0.0031 },
  'answer.failed': { code: 'E_MODEL' },
  'access.denied': { primitive: 'query', code: 'E_QUERY_FORBIDDEN' },
  'grant.changed': { principal: 'rui', caps: ['read', 'answer'], branches: 2 },
  'model.bound': { role: 'answer', provider: 'local', model: 'qwen2.5-7b', removed: false },
  'snapshot.created': { snapshot: 'forest-20261204T101500Z.tar', bytes: 2483211 },
  'canopy.built': { nodes: 412, ms: 5210 },
  'reindex.finished': { nodes: 412, ms: 840 },
  'auth.login.succeeded': { username: 'rui', host: '203.0.113.7' },
  'auth.login.failed': { username: 'rui', host: '203.0.113.7' },
  'pair.issued': { principal: 'rui', caps: ['read'], prefix: 'mk_3fa9', expires_in_days: 30 },
  'key.issued': { principal: 'rui', label: 'laptop', prefix: 'mk_3fa9', expires_in_days: 90 },
  'key.revoked': { principal: 'rui', prefix: 'mk_3fa9' },
  'provider.changed': { name: 'local', endpoint: 'http://models.internal:8080/v1', removed: false, key_supplied: true },
  'forest.created': { forest: 'field-notes', title: 'Field notes', seed: 'empty', commit: COMMIT },
};

// DEPLOYMENT events belong to no forest: their body names "-".
const DEPLOYMENT = new Set(['auth.login.succeeded', 'auth.login.failed', 'pair.issued', 'key.issued', 'key.revoked', 'provider.changed', 'forest.created']);
// WITH_META are the events whose act held a title and summary.
const WITH_META = new Set(['node.planted', 'branch.created', 'dataset.created']);

// sampleBody is the body an event POSTs, fields in the order sent.
export function sampleBody(event, scope, forest, principal, includeMetadata) {
  const data = { ...(SAMPLES[event] || {}) };
  if (includeMetadata && WITH_META.has(event)) {
    data.title = 'Spring tide';
    data.summary = 'The larger tidal range near new and full moon.';
  }
  return { id: 'whd-0a1b2c3d4e5f', event, forest: DEPLOYMENT.has(event) ? '-' : forest, at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    principal, data };
}

// NODE_SNIPPET verifies a delivery in Node.js (express with a raw body).
export const NODE_SNIPPET = `const crypto = require('node:crypto');

// secret: the whsec_… value shown once; rawBody: the request's bytes, unparsed.
function verify(headers, rawBody, secret) {
  const ts = headers['x-monkeyllm-timestamp'] || '';
  const sig = headers['x-monkeyllm-signature'] || '';
  if (!/^\\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false; // too old: reject
  const want = 'sha256=' + crypto.createHmac('sha256', secret).update(ts + '.').update(rawBody).digest('hex');
  return sig.length === want.length && crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(want));
}

// app.post('/hooks/monkeyllm', express.raw({ type: 'application/json' }), (req, res) => {
//   if (!verify(req.headers, req.body, process.env.MONKEYLLM_WEBHOOK_SECRET)) return res.sendStatus(401);
//   const event = JSON.parse(req.body); // dedupe by event.id: retries resend the same body
//   res.sendStatus(204);
// });`;

// PYTHON_SNIPPET verifies a delivery in Python (standard library only).
export const PYTHON_SNIPPET = `import hashlib, hmac, time

# secret: the whsec_… value shown once; raw_body: the request's bytes, unparsed.
def verify(headers, raw_body: bytes, secret: str) -> bool:
    ts = headers.get("X-MonkeyLLM-Timestamp", "")
    sig = headers.get("X-MonkeyLLM-Signature", "")
    if not ts.isdigit() or abs(time.time() - int(ts)) > 300:
        return False  # too old: reject
    mac = hmac.new(secret.encode(), ts.encode() + b"." + raw_body, hashlib.sha256)
    return hmac.compare_digest(sig, "sha256=" + mac.hexdigest())

# Flask: verify(request.headers, request.get_data(), os.environ["MONKEYLLM_WEBHOOK_SECRET"])
# then json.loads(raw_body); dedupe by its "id": retries resend the same body.`;
