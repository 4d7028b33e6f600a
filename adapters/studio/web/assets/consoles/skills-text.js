// SPDX-License-Identifier: Apache-2.0
// The skill an agent installs (10 §6.13, v0.60): SKILL.md, the core, and
// one reference file per block, generated in the browser from what the
// key may do. The body is English whatever the console's language (it is
// content, not chrome). Templates hold {{origin}}, {{forest}},
// {{station}} placeholders and no ${} interpolation, so a Go test reads
// every call they teach — name({...}) over MCP, POST /v1/forests/… over
// REST — and checks it against the served signature table.

// BLOCKS are the reference files, in the order the core names them: the
// capability each teaches under, and when an agent should open it.
export const BLOCKS = [
  { key: 'saving', cap: 'ingest', trigger: 'the user asks you to remember, save or file something, or hands you a document' },
  { key: 'writing', cap: 'write', trigger: 'a node must be created, corrected, linked, moved or removed' },
  { key: 'time', cap: 'read', trigger: 'the question names a period, asks what changed, or how a node evolved' },
  { key: 'datasets', cap: 'query', trigger: 'the answer is in a table (a node of type dataset)' },
  { key: 'sharing', cap: 'read', trigger: 'the user wants a node as a file, a link to hand on, or an image a result names' },
];

// fill puts the values into a template's placeholders.
export function fill(tpl, vars) {
  return tpl.replace(/\{\{(\w+)\}\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

// NAME_MAX is the longest skill name runtimes accept (Claude: 64,
// lowercase letters, digits and hyphens).
const NAME_MAX = 64;

// fnv1a is a short stable digest for names too long to spell out.
function fnv1a(s) {
  let x = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) x = Math.imul(x ^ b, 0x01000193) >>> 0;
  return x.toString(16).padStart(8, '0');
}

// skillName derives the folder and archive name from the sorted forest
// ids, hashed when the spelled name would be too long, so the same
// forests always give the same name.
export function skillName(ids) {
  const sorted = [...ids].sort();
  const spelled = ('monkeyllm-' + sorted.join('-')).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-').replace(/-$/, '');
  return spelled.length <= NAME_MAX ? spelled : `monkeyllm-${fnv1a(sorted.join('\n'))}`;
}

const FRONTMATTER = `---
name: {{name}}
description: Recall and cite the MonkeyLLM knowledge {{kind}} {{forests}} served by {{origin}} before answering from memory; use whenever a question may touch what {{holds}}.
station: "{{station}}"
---
`;

const CORE = `# MonkeyLLM {{kind}}: {{forests}}

{{origin}} (MCP endpoint {{origin}}/mcp/) serves the {{kind}} named above:
markdown nodes in a tree the user keeps. Treat it as the user's memory: it
outranks what you remember from training about their work. Every call
carries \`forest\`.

## Recall before answering
1. \`locate({"forest": "{{forest}}", "query": "storm surge on the north coast", "k": 5})\` ranks nodes by
   meaning for a question in words.
2. \`sniff({"forest": "{{forest}}", "terms": ["surge", "north coast"]})\` finds exact words, names, codes
   and numbers that meaning-search blurs. Use locate for what a thing is about,
   sniff for how it is spelled; run both when unsure.
3. \`look({"forest": "{{forest}}", "id": "concepts/tide"})\` reads one node's summary, links and
   children (up to 10 ids at once); \`pick({"forest": "{{forest}}", "id": "concepts/tide", "section": "Causes"})\`
   reads only the sections you need.
4. \`harvest({"forest": "{{forest}}", "query": "why tides differ between harbours", "k": 3})\` gathers a
   small reading of several nodes' content in one call.
5. \`move({"forest": "{{forest}}", "id": "concepts/tide", "direction": "out"})\` follows links;
   \`scan({"forest": "{{forest}}", "parent_id": "_index"})\` lists a branch's children.

## Before trusting a silence
An empty result is not "the forest does not know". Call
\`coverage({"forest": "{{forest}}"})\` to see what the forest holds at all (its branches, their
dates, the types of node) and say which part you searched. If the topic is
outside it, say so plainly rather than guessing.

## Cite node ids
Name the node id behind every claim you take from the forest, for example
(concepts/tide). Never invent an id; quote only ids a call returned.

## Refusals
- \`E_NOT_FOUND\`: no such node, or one your key may not see; the two look
  the same on purpose. Do not retry with guesses.
- \`E_FORBIDDEN\`: the key lacks the capability the error names; tell the
  user instead of working around it.
- \`E_SCHEMA\`: a parameter was wrong; the message names it and the hint
  lists what is accepted. Fix it and retry once.
- \`E_MOVED\`: the node moved; read \`moved_to\` and continue there.
- \`E_LOCKED\`: another writer holds the forest; wait and retry later.

## Staying current
This skill was generated for station {{station}}. \`forests()\` answers with
the station's version; when it is newer than this one, tell the user to
download the skill again from the Studio's Skills console.
`;

const CORE_ANSWER = `
## Asking the forest
Your key may ask the forest's own model:
\`answer({"forest": "{{forest}}", "question": "How often do tides rise here?", "min_evidence": 1, "min_score": 0.2})\`.
\`min_evidence: 1\` refuses to answer without a source; \`min_score\` drops weak
matches. The reply cites node ids; an id starting \`media:\` is an image:
read it with \`view({"forest": "{{forest}}", "id": "media:harbour-chart"})\`.
`;

const CORE_VIEW = `
## Images
An id starting \`media:\` is an image node:
\`view({"forest": "{{forest}}", "id": "media:harbour-chart"})\` returns it.
`;

const REFERENCES_HEAD = `
## Reference files
Open a file only when its trigger holds:
`;

// REFS are the reference bodies; each starts with its title line.
const REFS = {
  saving: `# Saving into the forest

Your key needs \`ingest\` on the forest. The forest's gardener reads what you
send, writes the summary and links, and files it under \`dest\`.

Text you wrote or were given:
\`ingest({"forest": "{{forest}}", "files": [{"name": "storm-2026-03.md", "text": "# Storm of March 2026\\n\\nThe surge reached the quay at 04:10."}], "dest": "events"})\`

Any bytes (PDF, image, spreadsheet) go base64:
\`ingest({"forest": "{{forest}}", "files": [{"name": "chart.png", "b64": "iVBORw0KGgo="}]})\`

Say where it came from and what it is, so the gardener keeps your curation:
\`ingest({"forest": "{{forest}}", "files": [{"name": "tide-table.md", "text": "...", "source_url": "https://example.org/tides", "passport": {"title": "Tide table 2026", "summary": "High and low water for the harbour, 2026.", "tags": ["tide"]}}]})\`

Over MCP ingest waits for the batch and answers the job with what was
planted. Over HTTP, one authored document can be composed, reviewed and
accepted: \`POST {{origin}}/v1/forests/{{forest}}/ingest {"mode": "compose", "title": "Storm of March 2026", "text": "The surge reached the quay.", "stage": true}\`
previews the draft; send it back as \`draft\` to plant it.
`,
  writing: `# Writing nodes

Only with \`write\` on the forest (\`forests()\` lists your caps per forest); a
key without it is refused, so do not offer edits it cannot make.

Anatomy of a node, before you plant one:
- Read \`look({"forest": "{{forest}}", "id": "_meta/schema"})\` first: it declares the types and
  link rels this forest accepts.
- The id decides the parent: \`concepts/tide\` lives under \`concepts/_index\`;
  a branch is \`<folder>/_index\`.
- \`summary\` is at most 60 tokens and says what the node is; \`aliases\`
  are other names people search for.
- \`look\` with \`fields\` returns only what you need:
  \`look({"forest": "{{forest}}", "id": "concepts/tide", "fields": ["summary", "edges_out"]})\`.

Plant, after a dry run that reports every problem and writes nothing:
\`plant({"forest": "{{forest}}", "node": {"id": "concepts/neap-tide", "parent": "concepts/_index", "type": "concept", "title": "Neap tide", "summary": "The smallest tidal range, at the quarter moons.", "aliases": ["neaps"]}, "dry_run": true})\`
then the same call without \`dry_run\`. A list of up to 20 nodes is one batch
and one commit. \`"if_absent": true\` skips a node that exists; to change one
that exists, graft it:
\`graft({"forest": "{{forest}}", "id": "concepts/tide", "patch": {"append_section": {"header": "Notes", "body": "Seen at the quay."}}})\`

Links: \`supersedes\` means the new node replaces the old one (searches then
prefer the new); \`succeeds\` only orders two moments and replaces nothing:
\`graft({"forest": "{{forest}}", "id": "events/storm-2026", "patch": {"add_links": [{"rel": "succeeds", "target": "events/storm-2025"}]}})\`

Move a node with its links: \`transplant({"forest": "{{forest}}", "id": "concepts/neap-tide", "new_id": "tides/neap-tide"})\`.
Remove one: \`prune({"forest": "{{forest}}", "id": "concepts/neap-tide"})\` (refused while other nodes
link to it unless \`force\`). Every write is a commit:
\`history({"forest": "{{forest}}", "id": "concepts/tide"})\` shows them.
`,
  time: `# Time

Filter any search by date: \`since\` and \`until\` (YYYY-MM-DD) over
\`date_field\` created (default) or updated:
\`locate({"forest": "{{forest}}", "query": "storms", "since": "2026-01-01", "until": "2026-03-31"})\`

What happened when: \`calendar({"forest": "{{forest}}", "granularity": "month", "date_field": "updated"})\`
counts nodes per period; \`coverage({"forest": "{{forest}}", "date_field": "updated"})\` gives each
branch's first and last date, so you know whether a period is covered at all.

How a node changed: \`history({"forest": "{{forest}}", "id": "concepts/tide", "limit": 10})\` lists its
commits, newest first.
`,
  datasets: `# Datasets

A node of type \`dataset\` holds SQLite tables. Read its node first
(\`look({"forest": "{{forest}}", "id": "finance/ledger-2026"})\`: tables, columns, notes), then query
it, with \`query\` on the forest:
\`query({"forest": "{{forest}}", "id": "finance/ledger-2026", "sql": "SELECT month, SUM(amount) FROM entries GROUP BY month"})\`

Reads only; \`E_QUERY_INVALID\` means fix the SQL, \`E_QUERY_FORBIDDEN\` means
the key may not read that table: do not retry it.
`,
  datasets_tend: `
Changing rows needs \`tend\` on the forest, and only then:
\`tend({"forest": "{{forest}}", "id": "finance/ledger-2026", "sql": "UPDATE entries SET amount = 120 WHERE id = 7"})\`
`,
  sharing: `# Sharing and files

A node as markdown: GET {{origin}}/v1/forests/{{forest}}/export/concepts/tide
with the key; a whole branch as a zip: add \`?recursive=true\` to a branch id.

A link anyone can open until it expires:
\`POST {{origin}}/v1/forests/{{forest}}/share {"node": "concepts/tide", "days": 7}\`
answers the link; the user can revoke it in the Studio.

Images: an id starting \`media:\` is read with
\`view({"forest": "{{forest}}", "id": "media:harbour-chart"})\`.
`,
};

// headed prefixes a block chosen beyond the key's caps with the cap it
// needs, as its first line.
const beyond = (cap) => `> Needs the \`${cap}\` capability, which this key does not hold: skip this file unless the user gives you another key.\n\n`;

// routing is the table an agent reads to pick a forest when there are
// several: each forest's caps and the branches coverage reported.
function routing(forests) {
  const rows = forests.map((f) => `| ${f.id} | ${f.caps.join(', ')} | ${(f.branches || []).join('; ') || '(see coverage)'} |`);
  return `
## Which forest
| forest | your key may | what it holds |
|---|---|---|
${rows.join('\n')}

Pick the forest whose branches fit the question; when unsure, call
\`coverage\` on each (with its \`forest\`) and search the likeliest first.
`;
}

// has reports whether some chosen forest grants a cap (admin implies all).
const has = (forests, cap) => forests.some((f) => f.caps.includes('admin') || f.caps.includes(cap));

// skillFiles builds the skill: [{path, text}] with SKILL.md first. opts:
// origin, station, forests [{id, caps, branches}], blocks (keys).
export function skillFiles(opts) {
  const { origin, station, forests, blocks } = opts;
  const ids = forests.map((f) => f.id);
  const vars = { origin, station, forest: ids[0], forests: ids.join(', '), kind: ids.length > 1 ? 'forests' : 'forest', holds: ids.length > 1 ? 'they hold' : 'it holds', name: skillName(ids) };
  const chosen = BLOCKS.filter((b) => blocks.includes(b.key));
  let core = fill(FRONTMATTER, vars) + '\n' + fill(CORE, vars);
  core += has(forests, 'answer') ? fill(CORE_ANSWER, vars) : fill(CORE_VIEW, vars);
  if (forests.length > 1) core += routing(forests);
  if (chosen.length) {
    core += REFERENCES_HEAD + chosen.map((b) => `- \`references/${b.key}.md\`: when ${b.trigger}.`).join('\n') + '\n';
  }
  const files = [{ path: 'SKILL.md', text: core }];
  for (const b of chosen) {
    let text = fill(REFS[b.key], vars);
    if (b.key === 'datasets' && has(forests, 'tend')) text += fill(REFS.datasets_tend, vars);
    files.push({ path: `references/${b.key}.md`, text: (has(forests, b.cap) ? '' : beyond(b.cap)) + text });
  }
  return files;
}

// defaultBlocks are the blocks the key's caps allow.
export const defaultBlocks = (forests) => BLOCKS.filter((b) => has(forests, b.cap)).map((b) => b.key);
