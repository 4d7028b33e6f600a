// SPDX-License-Identifier: Apache-2.0
// Access (10 §6.10, key `people`): the people of the forests this key
// administers and their tokens, read whole from GET /v1/admin/people;
// one form creates or edits a person in one POST, choosing a role from
// the Station's presets and branches from the forest's real tree, the
// grant restated in a sentence before it is saved (10 §1).

import { h, mount, field, uid } from '../dom.js';
import { api, call } from '../api.js';
import { t } from '../i18n.js';
import { adjust } from '../router.js';
import { into, heading, allowed, needsCap, refusal } from './common.js';

const TABS = ['people', 'tokens'];
const DAYS = [7, 30, 90, 365];
const WHOLE = '';

export function render(ctx) {
  if (!allowed(ctx, 'admin')) return needsCap('admin');
  const tab = TABS.includes(ctx.place.params.tab) ? ctx.place.params.tab : 'people';
  const notice = h('div', { 'aria-live': 'polite' });
  const body = h('div');
  const page = { ctx, tab, notice, body, data: null };
  page.reload = () => into(body, async () => {
    page.data = (await api('GET', '/v1/admin/people')).data;
    return listing(page);
  });
  page.reload();
  const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': t('access.tabs') }, TABS.map((x) =>
    h('button', { type: 'button', 'aria-pressed': String(x === tab), 'data-tab': x,
      onclick: () => adjust({ ...ctx.place, params: { ...ctx.place.params, tab: x === 'people' ? '' : x } }) }, t(`access.tab.${x}`))));
  return h('section', null, heading(t('shell.console.people')), tabs, notice, body);
}

function listing(page) {
  return page.tab === 'tokens' ? tokensTab(page) : peopleTab(page);
}

// caps are the capabilities a form offers, widest preset's order.
const capsOf = (roles) => [...new Set(roles.flatMap((r) => r.caps))];

// expand: admin implies every capability.
const expand = (caps, all) => (caps.includes('admin') ? all.slice() : caps.slice());

// roleOf names the preset whose caps equal these, else 'custom'.
function roleOf(caps, roles) {
  const all = capsOf(roles);
  const have = expand(caps, all).sort().join(',');
  const r = roles.find((x) => x.caps.slice().sort().join(',') === have);
  return r ? r.name : 'custom';
}

const roleLabel = (name) => t(`access.role.${name}`);

function scopeText(g) {
  if (!g.allow.length || g.allow.includes(WHOLE)) return t('shell.scope.whole');
  const deny = g.deny && g.deny.length ? ` ${t('access.scope.except', { list: g.deny.join(', ') })}` : '';
  return g.allow.join(', ') + deny;
}

// roleBadges: one badge and "N forests" when uniform, else one per forest.
function roleBadges(p, roles) {
  const names = p.grants.map((g) => roleOf(g.caps, roles));
  if (names.every((n) => n === names[0])) {
    return [h('span', { class: 'badge role' }, roleLabel(names[0])), p.grants.length > 1
      ? h('span', { class: 'meta', title: p.grants.map((g) => g.forest).join(', ') }, ` ${t('access.nForests', { n: p.grants.length })}`)
      : null];
  }
  return p.grants.map((g, i) => h('span', { class: 'badge role' }, `${g.forest}: ${roleLabel(names[i])}`));
}

function peopleTab(page) {
  const { ctx, data } = page;
  const me = ctx.me.principal;
  const rows = data.people.map((p) => h('tr', { 'data-person': p.id },
    h('th', { scope: 'row' }, p.id, p.id === me ? h('span', { class: 'badge you' }, t('access.you')) : null),
    h('td', null, roleBadges(p, data.roles)),
    h('td', null, p.grants.length === 1 ? scopeText(p.grants[0])
      : h('ul', { class: 'plain' }, p.grants.map((g) => h('li', null, `${g.forest}: ${scopeText(g)}`)))),
    h('td', null, p.has_password ? t('access.yes') : t('access.no')),
    h('td', null, String(p.live_tokens)),
    h('td', null, p.last_seen || t('access.never')),
    h('td', null, manageButton(page, p))));
  return h('div', null,
    h('div', { class: 'card' }, h('div', { class: 'row spread' }, h('h2', null, t('access.people')),
      h('button', { type: 'button', class: 'primary', 'data-new': '', onclick: () => openForm(page, null) }, t('access.new'))),
    data.people.length ? h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('access.people') }, h('table', { class: 'grid wide' },
      h('thead', null, h('tr', null, ['person', 'role', 'scope', 'signin', 'tokens', 'seen', 'manage'].map((c) =>
        h('th', { scope: 'col' }, t(`access.col.${c}`))))),
      h('tbody', null, rows))) : h('p', { class: 'hint' }, t('access.none'))),
    levels(data.roles));
}

function manageButton(page, p) {
  if (p.manageable) return h('button', { type: 'button', 'data-manage': p.id, onclick: () => openForm(page, p) }, t('access.manage'));
  const why = uid('why');
  return h('span', null, h('button', { type: 'button', disabled: true, 'aria-describedby': why }, t('access.manage')),
    h('div', { class: 'meta', id: why }, t('access.notManageable')));
}

// levels is the table of presets: what each can and cannot do.
function levels(roles) {
  const all = capsOf(roles);
  return h('div', { class: 'card' }, h('h2', null, t('access.levels')), h('p', { class: 'hint' }, t('access.levels.owner')),
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('access.levels') }, h('table', { class: 'grid wide' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('access.col.role')), h('th', { scope: 'col' }, t('access.can')),
        h('th', { scope: 'col' }, t('access.cannot')))),
      h('tbody', null, roles.map((r) => h('tr', null, h('th', { scope: 'row' }, roleLabel(r.name)),
        h('td', null, all.filter((c) => r.caps.includes(c)).map((c) => t(`overview.cap.${c}`)).join('; ')),
        h('td', null, all.filter((c) => !r.caps.includes(c)).map((c) => t(`overview.cap.${c}`)).join('; ') || '—')))))));
}

function tokensTab(page) {
  const tokens = page.data.people.flatMap((p) => p.tokens);
  if (!tokens.length) return h('p', { class: 'card hint' }, t('access.tokens.none'));
  const revoke = async (k) => {
    try {
      await api('POST', '/v1/admin/people', { principal: k.principal, revoke_keys: [k.id] });
      mount(page.notice, h('p', { class: 'card', role: 'status' }, t('access.tokens.revoked', { prefix: k.prefix })));
    } catch (e) { mount(page.notice, refusal(e)); }
    page.reload();
  };
  return h('div', { class: 'card' }, h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': t('access.tab.tokens') },
    h('table', { class: 'grid wide' },
      h('thead', null, h('tr', null, ['label', 'principal', 'prefix', 'expires', 'used', 'status', 'revoke'].map((c) =>
        h('th', { scope: 'col' }, t(`access.tcol.${c}`))))),
      h('tbody', null, tokens.map((k) => h('tr', { 'data-token': k.prefix },
        h('td', null, k.label || '—'), h('td', null, k.principal), h('td', null, h('code', null, k.prefix)),
        h('td', null, k.expires_at), h('td', null, k.last_used_at || t('access.never')),
        h('td', null, h('span', { class: `badge status-${k.status}` }, t(`access.status.${k.status}`))),
        h('td', null, k.status === 'active' ? h('button', { type: 'button', 'data-revoke': k.prefix, onclick: () => revoke(k) }, t('access.revoke')) : null)))))));
}

// openForm replaces the listing with the person form; Cancel restores it.
function openForm(page, person) {
  mount(page.notice);
  mount(page.body, personForm(page, person));
  const first = page.body.querySelector('input, select');
  if (first) first.focus();
}

// branchesOf lists a forest's branch prefixes from its tree (scan),
// a few pages deep: the picker offers only what exists.
const branchCache = new Map();
async function branchesOf(forest) {
  if (branchCache.has(forest)) return branchCache.get(forest);
  const out = [];
  let after = '';
  for (let i = 0; i < 8; i++) {
    const r = (await call(forest, 'scan', { parent_id: '_index', recursive: true, limit: 50, after, fields: ['id', 'title'], filter: { type: 'branch' } })).data;
    for (const n of r.nodes || []) {
      if (n.id === '_index' || !n.id.endsWith('/_index')) continue;
      out.push({ prefix: n.id.slice(0, -'_index'.length), title: n.title || '' });
    }
    if (!r.next) break;
    after = r.next;
  }
  out.sort((a, b) => a.prefix.localeCompare(b.prefix));
  branchCache.set(forest, out);
  return out;
}

function personForm(page, person) {
  const { data } = page;
  const roles = data.roles;
  const all = capsOf(roles);
  const held = person ? person.grants : [];
  const s = {
    forests: new Set(person ? held.map((g) => g.forest) : (data.forests.length === 1 ? data.forests : [])),
    caps: new Set(held.length ? expand(held[0].caps, all) : roles[0].caps),
    scope: held.length === 1 && !held[0].allow.includes(WHOLE) ? 'branches' : 'whole',
    picked: new Set(held.length === 1 && !held[0].allow.includes(WHOLE) ? held[0].allow : []),
    branches: null, // {forest, list} once loaded
  };
  const principal = h('input', { name: 'principal', autocomplete: 'off', required: true });
  const sentence = h('p', { class: 'sentence', 'aria-live': 'polite', 'data-sentence': '' });
  const save = h('button', { type: 'submit', class: 'primary' }, t('access.save'));
  const saveWhy = h('div', { class: 'meta', id: uid('savewhy') });
  const roleSel = h('select', { name: 'role' }, roles.map((r) => h('option', { value: r.name }, roleLabel(r.name))),
    h('option', { value: 'custom' }, roleLabel('custom')));
  const chips = h('div', { class: 'chips', role: 'group', 'aria-label': t('access.caps') });
  const scopeBox = h('div');
  const pw = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', minlength: 12, disabled: true });
  const pwOn = h('input', { type: 'checkbox', name: 'set_password' });
  const keyOn = h('input', { type: 'checkbox', name: 'issue_key', checked: !person });
  const keyLabel = h('input', { name: 'key_label', autocomplete: 'off', value: person ? '' : 'studio' });
  const keyDays = h('select', { name: 'key_days' }, DAYS.map((d) => h('option', { value: d, selected: d === 90 }, t('access.days', { n: d }))));
  const outcome = h('div', { 'aria-live': 'polite' });

  const who = () => (person ? person.id : principal.value.trim());
  const single = () => (s.forests.size === 1 ? [...s.forests][0] : '');
  const role = () => roleOf([...s.caps], roles);

  const drawChips = () => mount(chips, all.map((c) => h('label', { class: 'chip' },
    h('input', { type: 'checkbox', value: c, checked: s.caps.has(c), onchange: (e) => {
      if (e.target.checked) s.caps.add(c); else s.caps.delete(c);
      if (s.caps.has('admin')) all.forEach((x) => s.caps.add(x));
      roleSel.value = role();
      drawChips();
      update();
    } }), c)));
  roleSel.value = role();
  roleSel.addEventListener('change', () => {
    const r = roles.find((x) => x.name === roleSel.value);
    if (r) s.caps = new Set(r.caps);
    drawChips();
    update();
  });

  const drawScope = async () => {
    const f = single();
    if (!f) {
      mount(scopeBox, h('p', { class: 'hint' }, s.forests.size ? t('access.scope.eachWhole') : t('access.scope.noForest')));
      return update();
    }
    if (s.branches && s.branches.forest !== f) { s.branches = null; s.picked.clear(); }
    const name = uid('scope');
    const radio = (v) => h('label', { class: 'inline' }, h('input', { type: 'radio', name, value: v, checked: s.scope === v,
      onchange: () => { s.scope = v; drawScope(); } }), t(`access.scope.${v}`));
    const picker = h('div');
    mount(scopeBox, h('fieldset', null, h('legend', null, t('access.scope')), radio('whole'), radio('branches'), picker));
    update();
    if (s.scope !== 'branches') return;
    await into(picker, async () => {
      const list = await branchesOf(f);
      s.branches = { forest: f, list };
      if (!list.length) return h('p', { class: 'hint' }, t('access.scope.noBranches'));
      return h('div', { class: 'checklist', role: 'group', 'aria-label': t('access.scope.pick') }, list.map((b) => h('label', {
        class: `inline d${Math.min(b.prefix.split('/').length - 1, 4)}` },
      h('input', { type: 'checkbox', value: b.prefix, 'data-branch': b.prefix, checked: s.picked.has(b.prefix), onchange: (e) => {
        if (e.target.checked) s.picked.add(b.prefix); else s.picked.delete(b.prefix);
        update();
      } }), b.prefix, b.title ? h('span', { class: 'meta' }, ` ${b.title}`) : null)));
    });
    update();
  };

  const forestFilter = h('input', { type: 'search', name: 'forest_filter', 'aria-label': t('access.forests.filter'), placeholder: t('access.forests.filter') });
  const forestList = h('div', { class: 'checklist', role: 'group', 'aria-label': t('access.forests') });
  const drawForests = () => {
    const q = forestFilter.value.trim().toLowerCase();
    mount(forestList, data.forests.filter((f) => !q || f.toLowerCase().includes(q)).map((f) => h('label', { class: 'inline' },
      h('input', { type: 'checkbox', value: f, 'data-forest-pick': f, checked: s.forests.has(f), onchange: (e) => {
        if (e.target.checked) s.forests.add(f); else s.forests.delete(f);
        drawScope();
      } }), f)));
  };
  forestFilter.addEventListener('input', drawForests);
  const setAll = (on) => { data.forests.forEach((f) => (on ? s.forests.add(f) : s.forests.delete(f))); drawForests(); drawScope(); };

  pwOn.addEventListener('change', () => { pw.disabled = !pwOn.checked; update(); });
  pw.addEventListener('input', update);
  principal.addEventListener('input', update);
  const keyOpts = h('div', { class: 'row' }, field(t('access.key.label'), keyLabel), field(t('access.key.days'), keyDays));
  keyOn.addEventListener('change', () => { keyOpts.hidden = !keyOn.checked; update(); });
  keyDays.addEventListener('change', update);

  // update restates the grant and says why Save is unavailable, if it is.
  function update() {
    mount(sentence, restate(s, who(), role(), all, held, {
      password: pwOn.checked, key: keyOn.checked ? Number(keyDays.value) : 0 }));
    let why = '';
    if (!who()) why = t('access.why.principal');
    else if (!s.forests.size && !held.length) why = t('access.why.forest');
    else if (s.forests.size && !s.caps.size) why = t('access.why.caps');
    else if (single() && s.scope === 'branches' && !s.picked.size) why = t('access.why.branch');
    else if (pwOn.checked && pw.value.length < 12) why = t('access.why.password');
    save.disabled = !!why;
    saveWhy.textContent = why;
    if (why) save.setAttribute('aria-describedby', saveWhy.id); else save.removeAttribute('aria-describedby');
  }

  const submit = async (e) => {
    e.preventDefault();
    const body = { principal: who() };
    const f = single();
    if (s.forests.size) {
      body.grant = { forests: [...s.forests], caps: all.filter((c) => s.caps.has(c)) };
      if (f && s.scope === 'branches') body.grant.allow = [...s.picked];
      const was = held.find((g) => g.forest === f);
      if (f && was && was.deny && was.deny.length) body.grant.deny = was.deny;
    }
    const dropped = held.map((g) => g.forest).filter((x) => !s.forests.has(x));
    if (dropped.length) body.revoke_access = dropped;
    if (pwOn.checked) body.password = pw.value;
    if (keyOn.checked) body.issue_key = { label: keyLabel.value.trim(), expires_in_days: Number(keyDays.value) };
    await send(page, body, outcome);
  };

  drawChips();
  drawForests();
  const form = h('form', { class: 'person-form', onsubmit: submit },
    h('div', { class: 'card' }, h('h2', null, person ? t('access.edit', { who: person.id }) : t('access.new')),
      person ? null : field(t('access.principal'), principal, t('access.principal.hint')),
      h('fieldset', null, h('legend', null, t('access.forests')),
        h('div', { class: 'row' }, forestFilter, h('button', { type: 'button', onclick: () => setAll(true) }, t('access.forests.all')),
          h('button', { type: 'button', onclick: () => setAll(false) }, t('access.forests.none'))), forestList,
        held.length ? h('p', { class: 'hint' }, t('access.forests.untick')) : null),
      field(t('access.role'), roleSel),
      h('details', { class: 'advanced' }, h('summary', null, t('access.advanced')), h('p', { class: 'hint' }, t('access.advanced.hint')), chips),
      scopeBox,
      h('fieldset', null, h('legend', null, t('access.signin')),
        h('label', { class: 'inline' }, pwOn, person && person.has_password ? t('access.password.replace') : t('access.password.set')),
        field(t('shell.password'), pw, t('access.password.hint')),
        h('label', { class: 'inline' }, keyOn, t('access.key.issue')), keyOpts)),
    h('aside', { class: 'card restated' }, h('h2', null, t('access.sentence.title')), sentence,
      h('div', { class: 'row' }, save, h('button', { type: 'button', onclick: () => { mount(page.notice); page.reload(); } }, t('access.cancel'))),
      saveWhy, outcome));
  drawScope();
  return h('div', null, form, person ? dangerZone(page, person) : null);
}

// restate is the grant in one sentence (10 §1): who, which branches of
// how many, what they can and cannot do, and how they will sign in.
function restate(s, who, role, all, held, how) {
  const name = who || t('access.sentence.someone');
  const parts = [];
  if (!s.forests.size) {
    parts.push(held.length ? t('access.sentence.revokeAll', { who: name }) : t('access.sentence.nothing', { who: name }));
    return parts.join(' ');
  }
  parts.push(t('access.sentence.role', { who: name, role: roleLabel(role), forests: [...s.forests].join(', ') }));
  if (s.forests.size > 1) parts.push(t('access.sentence.eachWhole'));
  else if (s.scope === 'branches') {
    const total = s.branches ? s.branches.list.length : '…';
    parts.push(s.picked.size ? t('access.sentence.branches', { n: s.picked.size, total, list: [...s.picked].join(', ') })
      : t('access.sentence.noBranch'));
  } else parts.push(t('access.sentence.whole'));
  const can = all.filter((c) => s.caps.has(c)).map((c) => t(`overview.cap.${c}`));
  const cannot = all.filter((c) => !s.caps.has(c)).map((c) => t(`overview.cap.${c}`));
  if (can.length) parts.push(t('access.sentence.can', { list: can.join(', ') }));
  if (cannot.length) parts.push(t('access.sentence.cannot', { list: cannot.join(', ') }));
  const dropped = held.map((g) => g.forest).filter((x) => !s.forests.has(x));
  if (dropped.length) parts.push(t('access.sentence.dropped', { list: dropped.join(', ') }));
  if (how.password) parts.push(t('access.sentence.password'));
  if (how.key) parts.push(t('access.sentence.key', { n: how.key }));
  return parts.join(' ');
}

// send posts one change and lists what landed and what was refused; a
// new key is shown once, in a modal that says so.
async function send(page, body, outcome) {
  let res;
  try {
    res = (await api('POST', '/v1/admin/people', body)).data;
  } catch (e) {
    if (!e.data || !e.data.refused) return mount(outcome, refusal(e));
    res = e.data;
  }
  const report = h('div', { class: 'card', role: 'status', 'data-outcome': '' },
    res.applied.length ? h('p', null, t('access.applied', { list: res.applied.join(', ') })) : null,
    res.refused.length ? h('ul', { class: 'error' }, res.refused.map((r) => h('li', null,
      `${r.step}${r.forest ? ` (${r.forest})` : ''}: ${r.message}`, r.hint ? h('div', { class: 'hint' }, r.hint) : null))) : null);
  if (!res.applied.length) return mount(outcome, report);
  mount(page.notice, report);
  const done = () => page.reload();
  if (res.api_key) showKeyOnce(res.principal, res.api_key, done);
  else done();
}

function showKeyOnce(principal, key, done) {
  const dlg = h('dialog', { class: 'card once', 'aria-labelledby': 'once-h' },
    h('h2', { id: 'once-h' }, t('access.once.title', { who: principal })),
    h('p', null, t('access.once.lead')),
    h('code', { class: 'key', 'data-key': '' }, key),
    h('form', { method: 'dialog', class: 'row' },
      h('button', { type: 'button', onclick: () => navigator.clipboard && navigator.clipboard.writeText(key) }, t('access.once.copy')),
      h('button', { class: 'primary', type: 'submit' }, t('access.once.done'))));
  dlg.addEventListener('close', () => { dlg.remove(); done(); });
  document.body.append(dlg);
  dlg.showModal();
}

// dangerZone: the row actions, each a second click away from happening.
function dangerZone(page, person) {
  const out = h('div', { 'aria-live': 'polite' });
  const act = (key, body) => {
    const b = h('button', { type: 'button', 'data-action': key, onclick: async () => {
      if (b.dataset.armed !== '1') {
        b.dataset.armed = '1';
        b.textContent = t('access.action.confirm', { what: t(`access.action.${key}`) });
        return;
      }
      await send(page, { principal: person.id, ...body }, out);
    } }, t(`access.action.${key}`));
    return b;
  };
  return h('div', { class: 'card danger' }, h('h2', null, t('access.actions')), h('p', { class: 'hint' }, t('access.actions.hint')),
    h('div', { class: 'row' },
      person.has_password ? act('clearPassword', { password: '' }) : null,
      act('revokeKeys', { revoke_keys: true }),
      act('revokeAccess', { revoke_access: person.grants.map((g) => g.forest) })), out);
}
