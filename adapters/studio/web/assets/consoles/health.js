// SPDX-License-Identifier: Apache-2.0
// Health (10 §6.15, J.13): the Ranger's report relayed as the host sent
// it (no sums made here), the link proposals a person votes on, the
// Gauntlet, snapshots and the writer lock. Opening it writes nothing:
// the report is read from a read-only instance, and every write here is
// a press.

import { h, mount, download } from '../dom.js';
import { api, hostBlob, forestGet } from '../api.js';
import { t } from '../i18n.js';
import { into, heading, allowed, needsCap, refusal, loading } from './common.js';
import { canopyCard } from './canopy.js';

// LISTS are the report's attention lists, in the order shown, with
// their catalogue keys; each is shown only when it holds something.
const LISTS = [['needs_split', 'needsSplit'], ['fat_nodes', 'fatNodes'], ['stale_passports', 'stalePassports'],
  ['needs_description', 'needsDescription'], ['orphans', 'orphans'], ['missing_payloads', 'missingPayloads'],
  ['payload_drift', 'payloadDrift'], ['changed_sources', 'changedSources']];

const enc = encodeURIComponent;

export function render(ctx) {
  if (!allowed(ctx, 'admin')) return needsCap('admin');
  const report = h('div');
  const load = async () => {
    mount(report, loading());
    try {
      mount(report, reportView(ctx, (await api('GET', `/v1/admin/health?forest=${enc(ctx.forest)}`)).data, load));
    } catch (e) {
      if (e.code === 'E_LOCKED') return mount(report, lockPanel(ctx, e, load));
      mount(report, e.status === 403 ? scopedCard(e) : refusal(e, load));
    }
  };
  load();
  const proposals = h('div');
  // A card reloads with the note of what was just done, kept across the redraw.
  const props = (note) => into(proposals, async () => proposalsCard(ctx, (await forestGet(ctx.forest, 'links')).data, props, note));
  props();
  const snaps = h('div');
  const snapshots = (note) => into(snaps, async () => snapshotsCard(ctx, (await api('GET', `/v1/admin/snapshots?forest=${enc(ctx.forest)}`)).data, snapshots, note));
  snapshots();
  return h('section', { class: 'health' }, heading(t('shell.console.health')), h('p', { class: 'hint' }, t('health.lead')),
    report, proposals, snaps, canopyCard(ctx));
}

// scopedCard explains a refusal of a key that administers part of the
// forest: the report covers all of it, so it is not filtered down.
function scopedCard(e) {
  return h('div', { class: 'card needs', 'data-scoped': '' }, h('h2', null, t('health.scoped.title')),
    h('p', null, t('health.scoped.why')), h('p', { class: 'meta' }, `${e.message} (${e.code})`));
}

function reportView(ctx, r, again) {
  const lint = r.lint || {};
  const count = (k, v) => [h('dt', null, t(`health.count.${k}`)), h('dd', { 'data-count': k }, String(v))];
  const lists = LISTS.filter(([f]) => (r[f] || []).length).map(([f, k]) => h('div', { class: 'attention', 'data-list': f },
    h('h3', null, t(`health.list.${k}`)), h('ul', { class: 'plain' }, r[f].map((id) => h('li', null, ctx.nodeLink(id))))));
  const broken = r.broken_wikilinks || [];
  if (broken.length) {
    lists.push(h('div', { class: 'attention', 'data-list': 'broken_wikilinks' }, h('h3', null, t('health.list.brokenWikilinks')),
      h('ul', { class: 'plain' }, broken.map((w) => h('li', null, ctx.nodeLink(w.id), ' → ', h('code', null, w.target))))));
  }
  const marks = Array.isArray(r.landmarks) ? r.landmarks : [];
  return h('div', null,
    h('div', { class: 'card' }, h('div', { class: 'row' }, h('h2', { class: 'grow' }, t('health.report')),
      h('button', { type: 'button', 'data-reload': '', onclick: again }, t('health.reload'))),
    h('dl', { class: 'facts counts' }, count('errors', lint.errors), count('warnings', lint.warnings),
      count('needsSplit', (r.needs_split || []).length), count('fatNodes', (r.fat_nodes || []).length),
      h('dt', null, t('health.lock')), h('dd', { 'data-lock': (r.lock || {}).state }, lockLine(r.lock || {})))),
    lists.length ? h('div', { class: 'card', 'data-attention': '' }, h('h2', null, t('health.attention')), h('div', { class: 'attention-lists' }, lists))
      : h('div', { class: 'card', 'data-clear': '' }, h('p', { class: 'ok' }, t('health.allClear'))),
    h('div', { class: 'cols two' }, uncertain(r.uncertain_links || {}), heat(r.heat || {})),
    marks.length ? h('div', { class: 'card' }, h('h2', null, t('health.landmarks')),
      h('ul', { class: 'plain' }, marks.map((m) => h('li', null, ctx.nodeLink(typeof m === 'string' ? m : m.id))))) : null);
}

// uncertain lists the managed links per confidence, as counted by the host.
function uncertain(m) {
  const keys = Object.keys(m).sort((a, b) => Number(a) - Number(b));
  return h('div', { class: 'card' }, h('h2', null, t('health.uncertain')), h('p', { class: 'hint' }, t('health.uncertain.lead')),
    keys.length ? h('table', { class: 'grid' }, h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('health.confidence')), h('th', { scope: 'col' }, t('health.links')))),
      h('tbody', null, keys.map((k) => h('tr', { 'data-confidence': k }, h('td', null, k), h('td', null, String(m[k]))))))
      : h('p', { class: 'meta' }, t('health.uncertain.none')));
}

function heat(s) {
  return h('div', { class: 'card' }, h('h2', null, t('health.heat')), h('p', { class: 'hint' }, t('health.heat.lead')),
    h('dl', { class: 'facts' }, h('dt', null, t('health.heat.rows')), h('dd', { 'data-heat': 'rows' }, String(s.rows || 0)),
      h('dt', null, t('health.heat.max')), h('dd', null, String(s.max || 0)),
      h('dt', null, t('health.heat.mean')), h('dd', null, String(s.mean || 0))));
}

function lockLine(p) {
  const who = p.holder ? t('health.lock.holder', { pid: p.holder.pid || '?', host: p.holder.host || '?', since: p.holder.since || '?' }) : '';
  return [h('span', { class: 'badge' }, p.state || '?'), who ? ` ${who}` : ''];
}

// lockPanel is shown when the forest refused with E_LOCKED: the probe
// of its writer lock, and a release only where the API accepts one (an
// orphan, or a card it cannot verify); a live holder gets no button.
// The probe can be read again without retrying what was refused.
function lockPanel(ctx, refused, again) {
  const region = h('div', { class: 'card needs lock-panel', 'data-lock-panel': '' }, refusal(refused), loading());
  const draw = async () => {
    let p;
    try { p = (await api('GET', `/v1/admin/locks?forest=${enc(ctx.forest)}`)).data; } catch (e) { return mount(region, refusal(refused), refusal(e)); }
    const releasable = p.state === 'orphan' || p.verified === false;
    const msg = h('div', { 'aria-live': 'polite' });
    const release = async () => {
      try {
        await api('POST', '/v1/admin/unlock', { forest: ctx.forest });
        again();
      } catch (e) { mount(msg, refusal(e)); }
    };
    mount(region, h('h2', null, t('health.lock.title')), h('p', null, refused.message),
      h('dl', { class: 'facts' }, h('dt', null, t('health.lock.state')), h('dd', { 'data-lock': p.state }, p.state),
        p.holder ? [h('dt', null, t('health.lock.pid')), h('dd', null, String(p.holder.pid || '?')),
          h('dt', null, t('health.lock.host')), h('dd', null, p.holder.host || '?'),
          h('dt', null, t('health.lock.since')), h('dd', null, p.holder.since || '?')] : null),
      h('p', { class: 'hint' }, t(releasable ? 'health.lock.releasable' : p.state === 'free' ? 'health.lock.free' : 'health.lock.live')),
      msg, h('div', { class: 'row' }, releasable ? h('button', { type: 'button', class: 'primary', 'data-unlock': '', onclick: release }, t('health.lock.release')) : null,
        h('button', { type: 'button', 'data-probe': '', onclick: draw }, t('health.lock.probe')),
        h('button', { type: 'button', 'data-retry': '', onclick: again }, t('health.retry'))));
  };
  draw();
  return region;
}

// proposalsCard lists the proposed links a person may vote on; each vote
// names its link (there is no accept-all).
function proposalsCard(ctx, d, again, note) {
  const links = d.links || [];
  const msg = h('div', { 'aria-live': 'polite' }, note);
  const vote = async (btn, l, v) => {
    for (const b of btn.closest('tr').querySelectorAll('button')) b.disabled = true;
    try {
      const r = (await api('POST', `/v1/forests/${enc(ctx.forest)}/links/vote`, { votes: [{ id: l.id, rel: l.rel, target: l.target, vote: v }] })).data;
      const res = (r.votes || [])[0] || {};
      again(h('p', { class: 'ok', role: 'status', 'data-voted': res.result }, t('health.voted', { result: res.result, id: l.id, target: l.target })));
    } catch (e) { mount(msg, refusal(e)); }
  };
  const row = (l) => h('tr', { 'data-proposal': `${l.id} ${l.rel} ${l.target}` },
    h('td', null, ctx.nodeLink(l.id)), h('td', null, h('code', null, l.rel)), h('td', null, ctx.nodeLink(l.target)), h('td', null, String(l.confidence)),
    h('td', null, h('div', { class: 'row' },
      h('button', { type: 'button', 'data-vote': 'accept', 'aria-label': t('health.accept.label', { id: l.id, target: l.target }), onclick: (e) => vote(e.currentTarget, l, 'accept') }, t('health.accept')),
      h('button', { type: 'button', 'data-vote': 'reject', 'aria-label': t('health.reject.label', { id: l.id, target: l.target }), onclick: (e) => vote(e.currentTarget, l, 'reject') }, t('health.reject')))));
  return h('div', { class: 'card proposals' }, h('h2', null, t('health.proposals')), h('p', { class: 'hint' }, t('health.proposals.lead')), msg,
    links.length ? h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('health.proposals') }, h('table', { class: 'grid' },
      h('thead', null, h('tr', null, ['from', 'rel', 'to', 'confidence', 'vote'].map((c) => h('th', { scope: 'col' }, t(`health.col.${c}`))))),
      h('tbody', null, links.map(row)))) : h('p', { class: 'meta', 'data-none': '' }, t('health.proposals.none')),
    d.truncated ? h('p', { class: 'hint' }, t('health.proposals.truncated')) : null);
}

const size = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

// snapshotsCard: the host's snapshot files, take one (payloads by
// default), download one (the owner alone, fetched with the key).
function snapshotsCard(ctx, d, again, note) {
  const list = d.snapshots || [];
  const owner = !!ctx.me.owner;
  const msg = h('div', { 'aria-live': 'polite' }, note);
  const payloads = h('input', { type: 'checkbox', name: 'with_payloads', checked: true });
  const take = h('button', { type: 'button', class: 'primary', 'data-take': '', onclick: async () => {
    take.disabled = true;
    mount(msg, h('p', { class: 'spinner', role: 'status' }, t('health.snap.taking')));
    try {
      const r = (await api('POST', '/v1/admin/snapshots', { forest: ctx.forest, with_payloads: payloads.checked })).data;
      again(h('p', { class: 'ok', role: 'status', 'data-taken': r.name }, t('health.snap.taken', { name: r.name, size: size(r.bytes), n: r.payloads })));
    } catch (e) {
      take.disabled = false;
      mount(msg, e.code === 'E_LOCKED' ? lockPanel(ctx, e, () => again()) : refusal(e));
    }
  } }, t('health.snap.take'));
  const fetchOne = async (btn, name) => {
    btn.disabled = true;
    try {
      const f = await hostBlob(`/v1/admin/snapshots/${enc(ctx.forest)}/${enc(name)}`, name);
      download(f.name, f.blob);
    } catch (e) { mount(msg, refusal(e)); }
    btn.disabled = false;
  };
  const row = (s) => h('tr', { 'data-snapshot': s.name }, h('td', { class: 'endpoint' }, s.name), h('td', null, size(s.bytes)), h('td', null, s.created),
    h('td', null, h('button', { type: 'button', 'data-download': s.name, disabled: !owner, title: owner ? null : t('health.snap.ownerOnly'),
      'aria-label': t('health.snap.download.label', { name: s.name }), onclick: (e) => fetchOne(e.currentTarget, s.name) }, t('health.snap.download'))));
  return h('div', { class: 'card snapshots' }, h('h2', null, t('health.snap')), h('p', { class: 'hint' }, t('health.snap.lead')),
    list.length ? h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('health.snap') }, h('table', { class: 'grid' },
      h('thead', null, h('tr', null, ['name', 'size', 'created', 'download'].map((c) => h('th', { scope: 'col' }, t(`health.snap.col.${c}`))))),
      h('tbody', null, list.map(row)))) : h('p', { class: 'meta', 'data-none': '' }, t('health.snap.none')),
    owner ? null : h('p', { class: 'hint' }, t('health.snap.ownerOnly')),
    h('div', { class: 'row' }, h('label', { class: 'inline' }, payloads, t('health.snap.payloads')), take), msg);
}
