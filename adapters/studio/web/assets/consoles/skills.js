// SPDX-License-Identifier: Apache-2.0
// Skills (10 §6.13, J.5.12): the walkthrough that connects an agent to
// this forest — pair a key, connect over MCP, install the skill — and
// the skill itself, generated here in the browser from the key's caps:
// the Station gains no endpoint and no tool for it. Forests, blocks and
// assembly ride the address; the skill text is English content, the
// walkthrough around it is translated chrome.

import { h, download } from '../dom.js';
import { api, call } from '../api.js';
import { t } from '../i18n.js';
import { adjust } from '../router.js';
import { zip } from '../zip.js';
import { into, heading, allowed, needsCap } from './common.js';
import { BLOCKS, skillFiles, skillName, defaultBlocks } from './skills-text.js';

const ASSEMBLIES = ['folder', 'single'];
const NONE = 'none';

export function render(ctx) {
  if (!allowed(ctx, 'read')) return needsCap('read');
  const origin = window.location.origin;
  const body = h('div');
  into(body, async () => installCard(ctx, origin, await load(ctx, chosenForests(ctx))));
  return h('section', { class: 'skills' }, heading(t('shell.console.skills')),
    h('div', { class: 'card' }, h('h2', null, t('skills.what.title')), h('p', null, t('skills.what.lead')), h('p', null, t('skills.what.parts'))),
    step(1, t('skills.pair.title'), h('p', null, t('skills.pair.lead')), snippet('pair', pairSnippet(ctx, origin)), h('p', { class: 'hint' }, t('skills.pair.mask'))),
    step(2, t('skills.connect.title'), h('p', null, t('skills.connect.lead')), snippet('connect', connectSnippet(origin)), h('p', { class: 'hint' }, t('skills.connect.key'))),
    step(3, t('skills.install.title'), body),
    step(4, t('skills.other.title'), h('ul', null, h('li', null, t('skills.other.desktop')), h('li', null, t('skills.other.agents')),
      h('li', null, t('skills.other.http', { origin })))));
}

const readable = (f) => f.caps.includes('admin') || f.caps.includes('read');

// chosenForests reads ?forests= against the forests the key may read;
// the current forest when none is named or none is readable.
function chosenForests(ctx) {
  const named = (ctx.place.params.forests || '').split(',').filter(Boolean);
  const ok = ctx.forests.filter((f) => readable(f) && named.includes(f.id));
  return ok.length ? ok : [ctx.grant];
}

// load reads the station's version (the skill's staleness mark) and
// what each chosen forest holds (its routing line), both over routes
// any key already has.
async function load(ctx, forests) {
  const health = (await api('GET', '/v1/health', undefined, { key: '' })).data;
  const described = await Promise.all(forests.map(async (f) => {
    let branches = [];
    try {
      branches = ((await call(f.id, 'coverage', {})).data.roots || []).filter((r) => r.kind === 'branch').map((r) => r.title || r.id).slice(0, 8);
    } catch { /* the routing line says "see coverage" */ }
    return { id: f.id, caps: f.caps, branches };
  }));
  return { station: health.version, forests: described };
}

// options are the address's choices, each falling back to its default.
function options(ctx, forests) {
  const p = ctx.place.params;
  const blocks = p.blocks === NONE ? [] : p.blocks ? p.blocks.split(',').filter((b) => BLOCKS.some((x) => x.key === b)) : defaultBlocks(forests);
  return { blocks, assembly: ASSEMBLIES.includes(p.assembly) ? p.assembly : 'folder' };
}

// choose puts a choice in the address (adjusting: it replaces).
function choose(ctx, change) {
  adjust({ ...ctx.place, params: { ...ctx.place.params, ...change } });
}

function step(n, title, ...kids) {
  return h('div', { class: 'card step', 'data-step': String(n) }, h('h2', null, h('span', { class: 'step-n', 'aria-hidden': 'true' }, String(n)), title), kids);
}

// snippet is a copy-ready block with its copy button.
function snippet(name, text) {
  const said = h('span', { class: 'meta', 'aria-live': 'polite' });
  return h('div', { class: 'snippet' }, h('pre', { class: 'json', tabindex: '0', 'data-snippet': name }, text),
    h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => copy(text, said) }, t('skills.copy')), said));
}

async function copy(text, said) {
  try {
    await navigator.clipboard.writeText(text);
    said.textContent = t('skills.copied');
  } catch {
    said.textContent = t('skills.copyFailed');
  }
}

function pairSnippet(ctx, origin) {
  return `curl -s -X POST ${origin}/v1/auth/pair \\\n  -H 'Content-Type: application/json' \\\n` +
    `  -d '{"username": "${ctx.me.principal}", "password": "…", "label": "claude-code"}'`;
}

const connectSnippet = (origin) => `claude mcp add --transport http monkeyllm ${origin}/mcp/ --header "Authorization: Bearer mk_…"`;

// installCard is the skill's choices, its files and the two ways out.
function installCard(ctx, origin, data) {
  const opt = options(ctx, data.forests);
  const files = skillFiles({ origin, station: data.station, forests: data.forests, blocks: opt.blocks });
  const name = skillName(data.forests.map((f) => f.id));
  const single = opt.assembly === 'single';
  const joined = files.map((f, i) => (i ? `\n\n<!-- ${f.path} -->\n\n` : '') + f.text).join('');
  const said = h('span', { class: 'meta', 'aria-live': 'polite' });
  const save = () => (single ? download(`${name}.md`, joined) : download(`${name}.zip`, zip(files.map((f) => ({ path: `${name}/${f.path}`, text: f.text })))));
  return h('div', null, h('p', null, t('skills.install.lead')),
    h('div', { class: 'cols skill-choices' }, forestChoice(ctx, data.forests), blockChoice(ctx, data.forests, opt)),
    assemblyChoice(ctx, opt),
    h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary', 'data-download': single ? 'md' : 'zip', onclick: save },
      single ? t('skills.download.single', { name }) : t('skills.download.zip', { name })),
    h('button', { type: 'button', 'data-copy': 'skill', onclick: () => copy(joined, said) }, t('skills.copySkill')), said),
    h('p', { class: 'hint' }, single ? t('skills.install.single') : t('skills.install.folder', { name })),
    snippet('install', single ? `mkdir -p ~/.claude/skills/${name} && mv ${name}.md ~/.claude/skills/${name}/SKILL.md` : `unzip ${name}.zip -d ~/.claude/skills/`),
    h('h3', null, t('skills.files', { n: files.length })),
    files.map((f, i) => h('details', { class: 'skill-file', open: i === 0 ? true : null, 'data-file': f.path },
      h('summary', null, h('code', null, single ? `${name}.md` + (i ? ` · ${f.path}` : '') : `${name}/${f.path}`)),
      h('pre', { class: 'json', tabindex: '0', lang: 'en' }, f.text))));
}

function forestChoice(ctx, chosen) {
  const ids = chosen.map((f) => f.id);
  const toggle = (id) => (e) => {
    const next = e.target.checked ? [...ids, id] : ids.filter((x) => x !== id);
    choose(ctx, { forests: next.length && !(next.length === 1 && next[0] === ctx.forest) ? next.sort().join(',') : '' });
  };
  return h('fieldset', null, h('legend', null, t('skills.forests')),
    ctx.forests.filter(readable).map((f) => h('label', { class: 'inline' },
      h('input', { type: 'checkbox', name: 'forest', value: f.id, checked: ids.includes(f.id), disabled: ids.length === 1 && ids[0] === f.id, onchange: toggle(f.id) }), f.id)));
}

function blockChoice(ctx, forests, opt) {
  const held = (cap) => forests.some((f) => f.caps.includes('admin') || f.caps.includes(cap));
  const toggle = (key) => (e) => {
    const next = BLOCKS.map((b) => b.key).filter((k) => (k === key ? e.target.checked : opt.blocks.includes(k)));
    const same = next.join(',') === defaultBlocks(forests).join(',');
    choose(ctx, { blocks: same ? '' : next.length ? next.join(',') : NONE });
  };
  return h('fieldset', null, h('legend', null, t('skills.blocks')),
    BLOCKS.map((b) => h('label', { class: 'inline block-choice' },
      h('input', { type: 'checkbox', name: 'block', value: b.key, checked: opt.blocks.includes(b.key), onchange: toggle(b.key) }),
      t(`skills.block.${b.key}`), ' ', h('span', { class: held(b.cap) ? 'badge' : 'badge beyond', title: held(b.cap) ? null : t('skills.beyond', { cap: b.cap }) }, b.cap))),
    h('p', { class: 'hint' }, held('answer') ? t('skills.answer.held') : t('skills.answer.not')));
}

function assemblyChoice(ctx, opt) {
  return h('fieldset', null, h('legend', null, t('skills.assembly')), ASSEMBLIES.map((a) => h('label', { class: 'inline' },
    h('input', { type: 'radio', name: 'assembly', value: a, checked: a === opt.assembly, onchange: () => choose(ctx, { assembly: a === 'folder' ? '' : a }) }),
    t(`skills.assembly.${a}`))));
}
