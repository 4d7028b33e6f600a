// SPDX-License-Identifier: Apache-2.0
// MCP / API / Integrations (10 §6.14): the manual of this deployment,
// every snippet built on window.location.origin, the MCP tools read from
// the served catalogue (tools/list with the viewer's key, so the list is
// what this deployment serves, not a constant), the routes from the
// served OpenAPI document. A page nav tracks the section in view.

import { h } from '../dom.js';
import { api, getKey } from '../api.js';
import { t } from '../i18n.js';
import { link } from '../router.js';
import { into, heading, allowed, needsCap, refusal } from './common.js';

const SECTIONS = ['overview', 'clients', 'install', 'deploy', 'mcp', 'api', 'clipper', 'keys', 'environment'];

// capOf labels a served tool with the capability it needs, by the
// engine's own rule (vine's capOf, 08 §7.2): a few names carry their own
// cap, any other read-only tool needs read and the rest write. The tools
// and their read-only hints come from the server.
function capOf(tool) {
  const own = { forests: 'key', query: 'query', tend: 'tend', answer: 'answer', ingest: 'ingest', close_session: 'read' };
  if (own[tool.name]) return own[tool.name];
  return tool.annotations && tool.annotations.readOnlyHint ? 'read' : 'write';
}

// ENV is 09 §14 as this build reads it: variable, default, meaning key.
const ENV = [
  ['MONKEYLLM_STATION_ROOT', '/forests', 'root'], ['MONKEYLLM_STATION_REGISTRY', '/registry/station.db', 'registry'],
  ['MONKEYLLM_STATION_ADMIN, MONKEYLLM_STATION_PASSWORD', '—', 'breakGlass'], ['MONKEYLLM_STATION_BOOTSTRAP_KEY', 'off', 'bootstrap'],
  ['MONKEYLLM_STATION_ALLOWED_HOSTS', 'localhost, 127.0.0.1', 'hosts'], ['MONKEYLLM_STATION_TRUSTED_PROXIES', '—', 'proxies'],
  ['MONKEYLLM_STATION_WARM', '—', 'warm'], ['MONKEYLLM_STATION_READERS', '4', 'readers'], ['MONKEYLLM_STATION_MODEL_CONCURRENCY', '8', 'model'],
  ['MONKEYLLM_STATION_AUDIT_DAYS', '—', 'audit'], ['MONKEYLLM_INGEST_ROOTS', '—', 'ingestRoots'],
  ['MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE', 'off', 'private'], ['MONKEYLLM_LLM_*, MONKEYLLM_EMBED_*, MONKEYLLM_VISION_*', '—', 'providers'],
];

export function render(ctx) {
  if (!allowed(ctx, 'admin')) return needsCap('admin');
  const body = h('div');
  into(body, async () => manual(ctx, await load()));
  return h('section', { class: 'integrations' }, heading(t('shell.console.integrations')), body);
}

// load reads what the manual states about this deployment: health, the
// tools MCP serves to this key, the REST routes.
async function load() {
  const [health, tools, routes] = await Promise.all([
    api('GET', '/v1/health', undefined, { key: '' }).then((r) => r.data),
    mcpTools().catch((e) => e),
    api('GET', '/v1/openapi.json').then((r) => r.data).catch((e) => e),
  ]);
  return { health, tools, routes };
}

// mcpTools asks the mount for its catalogue as a client would.
async function mcpTools() {
  const res = await fetch('/mcp/', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2025-06-18', Authorization: `Bearer ${getKey()}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
  const data = await res.json();
  if (!data.result) throw new Error((data.error && data.error.message) || `HTTP ${res.status}`);
  return data.result.tools;
}

function manual(ctx, data) {
  const origin = window.location.origin;
  const o = { ctx, data, origin, forest: ctx.forest };
  const sections = SECTIONS.map((id) => h('section', { class: 'card', id: `int-${id}`, 'data-section': id, 'aria-labelledby': `int-${id}-h` },
    h('h2', { id: `int-${id}-h` }, t(`integrations.${id}.title`)), BUILD[id](o)));
  const nav = h('nav', { class: 'page-nav', 'aria-label': t('integrations.nav') }, h('ul', { class: 'plain' },
    SECTIONS.map((id, i) => h('li', null, h('a', { href: `#int-${id}`, 'data-nav': id, 'aria-current': i === 0 ? 'true' : null, onclick: toSection }, t(`integrations.${id}.title`))))));
  track(nav, sections);
  return h('div', { class: 'manual' }, h('div', { class: 'manual-body' }, sections), nav);
}

// toSection scrolls without touching the address (the router owns it).
function toSection(e) {
  const el = document.getElementById(e.currentTarget.getAttribute('href').slice(1));
  if (!el) return;
  e.preventDefault();
  el.scrollIntoView();
}

// track marks the nav entry of the section being read: the last one
// whose top has passed a third of the view, or the last of all once the
// page is scrolled to its end. The listener leaves with the page.
function track(nav, sections) {
  let queued = false;
  const mark = () => {
    queued = false;
    if (!nav.isConnected) return removeEventListener('scroll', onScroll);
    const line = innerHeight / 3;
    const end = innerHeight + scrollY >= document.documentElement.scrollHeight - 2;
    const current = end ? sections[sections.length - 1] : sections.filter((s) => s.getBoundingClientRect().top <= line).pop() || sections[0];
    for (const a of nav.querySelectorAll('a')) a.setAttribute('aria-current', String(a.dataset.nav === current.dataset.section));
  };
  const onScroll = () => {
    if (!queued) { queued = true; requestAnimationFrame(mark); }
  };
  addEventListener('scroll', onScroll, { passive: true });
}

function code(name, text) {
  const said = h('span', { class: 'meta', 'aria-live': 'polite' });
  const copy = async () => {
    try { await navigator.clipboard.writeText(text); said.textContent = t('integrations.copied'); } catch { said.textContent = t('integrations.copyFailed'); }
  };
  return h('div', { class: 'snippet' }, h('pre', { class: 'json', tabindex: '0', 'data-snippet': name }, text),
    h('div', { class: 'row' }, h('button', { type: 'button', onclick: copy }, t('integrations.copy')), said));
}

const p = (key, vars) => h('p', null, t(key, vars));
const KEY = 'mk_…';

const BUILD = {
  overview: (o) => [p('integrations.overview.lead'), h('dl', { class: 'facts' },
    h('dt', null, t('integrations.overview.origin')), h('dd', { 'data-origin': '' }, o.origin),
    h('dt', null, t('integrations.overview.version')), h('dd', null, o.data.health.version || '—'),
    h('dt', null, t('integrations.overview.writable')), h('dd', null, t(o.data.health.writable ? 'integrations.yes' : 'integrations.no')),
    h('dt', null, t('integrations.overview.mcp')), h('dd', null, `${o.origin}/mcp/`),
    h('dt', null, t('integrations.overview.forest')), h('dd', null, o.forest))],
  clients: (o) => [p('integrations.clients.lead'),
    h('h3', null, 'Claude Desktop'), p('integrations.clients.desktop'), code('claude-desktop', JSON.stringify({ mcpServers: { monkeyllm: {
      command: 'npx', args: ['-y', 'mcp-remote', `${o.origin}/mcp/`, '--header', `Authorization: Bearer ${KEY}`] } } }, null, 2)),
    h('h3', null, 'Claude Code'), code('claude-code', `claude mcp add --transport http monkeyllm ${o.origin}/mcp/ --header "Authorization: Bearer ${KEY}"`),
    h('h3', null, 'Cursor'), p('integrations.clients.cursor'), code('cursor', JSON.stringify({ mcpServers: { monkeyllm: {
      url: `${o.origin}/mcp/`, headers: { Authorization: `Bearer ${KEY}` } } } }, null, 2)),
    h('h3', null, 'HTTP'), code('http', `curl -s -X POST ${o.origin}/v1/forests/${o.forest}/locate \\\n  -H 'Authorization: Bearer ${KEY}' -H 'Content-Type: application/json' \\\n  -d '{"query": "what changed this week", "k": 5}'`),
    p('integrations.clients.skills')],
  install: () => [p('integrations.install.lead'), code('install', 'go install github.com/monkeyllm/vine/adapters/cli/vine@latest\nvine station serve --root ./forests --registry ./registry/station.db --writable'),
    p('integrations.install.setup')],
  deploy: (o) => [p('integrations.deploy.lead'), code('deploy', `docker build -t vine .\ndocker run -d -p 8800:8800 -v forests:/forests -v registry:/registry \\\n  vine station serve --host 0.0.0.0 --writable --allow-host ${new URL(o.origin).host}`),
    p('integrations.deploy.hosts'), p('integrations.deploy.readonly')],
  mcp: (o) => [p('integrations.mcp.lead', { endpoint: `${o.origin}/mcp/` }), code('mcp-header', `Authorization: Bearer ${KEY}`), p('integrations.mcp.tools'), tools(o)],
  api: (o) => [p('integrations.api.lead'), code('api-call', `POST ${o.origin}/v1/forests/{forest}/{name}\nAuthorization: Bearer ${KEY}\nContent-Type: application/json\n\n{"id": "_index"}`),
    p('integrations.api.examples'), code('api-look', `curl -s -X POST ${o.origin}/v1/forests/${o.forest}/look \\\n  -H 'Authorization: Bearer ${KEY}' -d '{"id": "_index"}'`),
    p('integrations.api.envelope'), code('envelope', JSON.stringify({ error: { code: 'E_NOT_FOUND', message: 'node not found: concepts/nope', hint: 'Use locate() to find entry points.' } }, null, 2)),
    routes(o)],
  clipper: (o) => [p('integrations.clipper.lead'), h('p', null, h('a', { href: '/clipper.zip', download: 'monkeyllm-clipper.zip' }, t('integrations.clipper.download'))),
    p('integrations.clipper.origin', { origin: o.origin }), code('pair', `curl -s -X POST ${o.origin}/v1/auth/pair -H 'Content-Type: application/json' \\\n  -d '{"username": "${o.ctx.me.principal}", "password": "…", "label": "clipper"}'`)],
  keys: (o) => [p('integrations.keys.lead'), p('integrations.keys.mask'),
    h('p', null, link({ forest: o.forest, console: 'people', params: { tab: 'tokens' } }, null, t('integrations.keys.open')))],
  environment: () => [p('integrations.environment.lead'), h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('integrations.environment.title') },
    h('table', { class: 'grid wide' }, h('thead', null, h('tr', null, ['variable', 'default', 'meaning'].map((c) => h('th', { scope: 'col' }, t(`integrations.env.col.${c}`))))),
      h('tbody', null, ENV.map(([v, d, k]) => h('tr', null, h('td', null, h('code', null, v)), h('td', null, d), h('td', null, t(`integrations.env.${k}`)))))))],
};

function tools(o) {
  if (o.data.tools instanceof Error) return refusal(o.data.tools);
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('integrations.mcp.toolsLabel') },
    h('table', { class: 'grid wide tools' }, h('thead', null, h('tr', null, ['tool', 'cap', 'about'].map((c) => h('th', { scope: 'col' }, t(`integrations.mcp.col.${c}`))))),
      h('tbody', null, o.data.tools.map((tl) => h('tr', { 'data-tool': tl.name }, h('td', null, h('code', null, tl.name)),
        h('td', null, h('span', { class: 'badge' }, capOf(tl))), h('td', null, firstSentence(tl.description)))))));
}

// who says who may call a route: the document marks the open ones; the
// rest need a key, the admin routes and webhooks one with admin (09 §15).
function who(r) {
  if (Array.isArray(r.op.security) && !r.op.security.length) return 'integrations.api.open';
  if (r.path === '/v1/me' || r.path === '/v1/forests') return 'integrations.api.anyKey';
  if (r.path.startsWith('/v1/admin/') || r.path.includes('/webhooks')) return 'integrations.api.admin';
  return 'integrations.api.key';
}

const firstSentence = (s) => String(s || '').split(/(?<=\.)\s/)[0];

// routes lists the served REST routes, saying which need a key.
function routes(o) {
  if (o.data.routes instanceof Error) return refusal(o.data.routes);
  const rows = [];
  for (const [path, item] of Object.entries(o.data.routes.paths || {}).sort((a, b) => a[0].localeCompare(b[0]))) {
    for (const [method, op] of Object.entries(item)) rows.push({ path, method: method.toUpperCase(), op });
  }
  return h('details', { class: 'routes' }, h('summary', null, t('integrations.api.routes', { n: rows.length })),
    h('table', { class: 'grid wide' }, h('thead', null, h('tr', null, ['route', 'who', 'about'].map((c) => h('th', { scope: 'col' }, t(`integrations.api.col.${c}`))))),
      h('tbody', null, rows.map((r) => h('tr', null, h('td', null, h('code', null, `${r.method} ${r.path}`)),
        h('td', null, t(who(r))),
        h('td', null, r.op.summary || ''))))));
}
