// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/sqlguard"
)

// LookOptions are the wire parameters of look besides the id.
type LookOptions struct {
	// Fields, when non-empty, keeps only the listed digest keys plus id,
	// payload_missing and the truncation keys. Unknown names are ignored.
	// It is the cost lever: unwanted extras are never computed.
	Fields []string

	// Gauntlet false opts the call out of goal-ordered edges; nil or true
	// means on when the dense layer is ready (an embedder is bound and an
	// index of its model exists, K.1). Ranked edges are ordered by
	// proximity to the goal before the cap and the budget, and the digest
	// carries a frontier. Otherwise edges are heat-ordered and the digest
	// is byte for byte what a forest without the layer answers.
	Gauntlet *bool

	// Toward overrides the session goal (the latest locate query) for this
	// call's Gauntlet.
	Toward string
}

// Digest is look's answer (C.2): a node's passport, edges, outline or
// children, and for datasets and media their notes and payload facts,
// within 500 tokens. Which keys it carries depends on the node and on
// LookOptions.Fields; Has and Keys tell, and the JSON form emits exactly
// those keys in the specification's order.
//
// When the digest is over budget, lists are cut from the tail in the
// declared order outline, children, edges_in, edges_out, then sample_rows
// is dropped; every key cut is named in TruncatedFields (a clipped notes
// text is named "notes"). Stats.Degree stays exact whatever is cut.
type Digest struct {
	ID          string
	Type        string
	Title       string
	Summary     string
	Tags        []string
	Aliases     []string
	Confidence  float64
	Created     string // day precision, "" when absent
	Updated     string
	Source      string // "" is null on the wire
	Origin      string
	Lang        string
	Outline     []string        // leaves: H2 and H3 headers in body order
	Children    []DigestChild   // branches: direct children in id order
	CrossTrails []string        // branches: the Cross trails lines as written
	Coverage    *DigestCoverage // branches with a parseable coverage
	EdgesOut    []DigestEdgeOut
	EdgesIn     []DigestEdgeIn
	Frontier    *Frontier // set when the Gauntlet ordered the edges

	QueryManual    *DigestQueryManual // sqlite datasets with a reachable payload
	SampleRows     *DigestSampleRows
	Notes          string // datasets and media: the ## Notes text, ≤ 200 tokens
	PayloadMissing bool
	PayloadType    string // media
	PayloadBytes   int64  // media with a local file

	Stats DigestStats

	Truncated       bool
	TruncatedFields []string

	keys digestKeySet
}

// DigestChild is one direct child of a branch; the summary is clipped to
// 25 tokens.
type DigestChild struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

// DigestCoverage is a branch's coverage as numbers.
type DigestCoverage struct {
	Notes    int `json:"notes"`
	Branches int `json:"branches"`
}

// DigestEdgeOut is one declared link of the node; TargetSummary is the
// target's summary clipped to 25 tokens, "" for a dangling target.
type DigestEdgeOut struct {
	Rel           string `json:"rel"`
	Target        string `json:"target"`
	TargetSummary string `json:"target_summary"`
}

// DigestEdgeIn is one link declared by another node toward this one, its
// rel shown as the dialect's inverse.
type DigestEdgeIn struct {
	Rel    string `json:"rel"`
	Source string `json:"source"`
}

// DigestQueryManual is a dataset's map for query: its tables with their
// columns, and up to three example queries from the body's Query manual.
type DigestQueryManual struct {
	Tables         map[string][]string `json:"tables"`
	ExampleQueries []string            `json:"example_queries"`
}

// DigestSampleRows are up to three rows of the dataset's first table (by
// name).
type DigestSampleRows struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// DigestStats are the node's size, its true degree (edges out plus in
// before any cap or cut) and its heat.
type DigestStats struct {
	BodyTokens int     `json:"body_tokens"`
	Degree     int     `json:"degree"`
	Heat       float64 `json:"heat"`
}

// digestKey indexes digestKeys; the order is the wire order.
type digestKey uint

const (
	dkID digestKey = iota
	dkType
	dkTitle
	dkSummary
	dkTags
	dkAliases
	dkConfidence
	dkCreated
	dkUpdated
	dkSource
	dkOrigin
	dkLang
	dkOutline
	dkChildren
	dkCrossTrails
	dkCoverage
	dkEdgesOut
	dkEdgesIn
	dkFrontier
	dkQueryManual
	dkSampleRows
	dkNotes
	dkPayloadMissing
	dkPayloadType
	dkPayloadBytes
	dkStats
	dkTruncated
	dkTruncatedFields
	dkCount
)

// digestKeys are the wire names and values of the digest keys, in order.
var digestKeys = [dkCount]struct {
	name  string
	value func(d *Digest) any
}{
	{"id", func(d *Digest) any { return d.ID }},
	{"type", func(d *Digest) any { return d.Type }},
	{"title", func(d *Digest) any { return d.Title }},
	{"summary", func(d *Digest) any { return d.Summary }},
	{"tags", func(d *Digest) any { return listOrEmpty(d.Tags) }},
	{"aliases", func(d *Digest) any { return listOrEmpty(d.Aliases) }},
	{"confidence", func(d *Digest) any { return d.Confidence }},
	{"created", func(d *Digest) any { return d.Created }},
	{"updated", func(d *Digest) any { return d.Updated }},
	{"source", func(d *Digest) any {
		if d.Source == "" {
			return nil
		}
		return d.Source
	}},
	{"origin", func(d *Digest) any { return d.Origin }},
	{"lang", func(d *Digest) any { return d.Lang }},
	{"outline", func(d *Digest) any { return listOrEmpty(d.Outline) }},
	{"children", func(d *Digest) any { return listOrEmpty(d.Children) }},
	{"cross_trails", func(d *Digest) any { return listOrEmpty(d.CrossTrails) }},
	{"coverage", func(d *Digest) any { return d.Coverage }},
	{"edges_out", func(d *Digest) any { return listOrEmpty(d.EdgesOut) }},
	{"edges_in", func(d *Digest) any { return listOrEmpty(d.EdgesIn) }},
	{"frontier", func(d *Digest) any { return d.Frontier }},
	{"query_manual", func(d *Digest) any { return d.QueryManual }},
	{"sample_rows", func(d *Digest) any { return d.SampleRows }},
	{"notes", func(d *Digest) any { return d.Notes }},
	{"payload_missing", func(d *Digest) any { return d.PayloadMissing }},
	{"payload_type", func(d *Digest) any { return d.PayloadType }},
	{"payload_bytes", func(d *Digest) any { return d.PayloadBytes }},
	{"stats", func(d *Digest) any { return d.Stats }},
	{"truncated", func(d *Digest) any { return d.Truncated }},
	{"truncated_fields", func(d *Digest) any { return listOrEmpty(d.TruncatedFields) }},
}

// digestKeySet is the set of keys a digest carries.
type digestKeySet uint32

func (s *digestKeySet) add(k digestKey)     { *s |= 1 << k }
func (s *digestKeySet) drop(k digestKey)    { *s &^= 1 << k }
func (s digestKeySet) has(k digestKey) bool { return s&(1<<k) != 0 }

// listOrEmpty renders a nil list as [] rather than null.
func listOrEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

func digestKeyOf(name string) (digestKey, bool) {
	for i := range digestKeys {
		if digestKeys[i].name == name {
			return digestKey(i), true
		}
	}
	return 0, false
}

// Has reports whether the digest carries the wire key name.
func (d *Digest) Has(name string) bool {
	k, ok := digestKeyOf(name)
	return ok && d.keys.has(k)
}

// Keys lists the wire keys the digest carries, in wire order.
func (d *Digest) Keys() []string {
	var out []string
	for i := range digestKeys {
		if d.keys.has(digestKey(i)) {
			out = append(out, digestKeys[i].name)
		}
	}
	return out
}

// MarshalJSON emits the keys the digest carries in the specification's
// order.
func (d Digest) MarshalJSON() ([]byte, error) {
	o := newWireObject()
	for i := range digestKeys {
		if !d.keys.has(digestKey(i)) {
			continue
		}
		if err := o.add(digestKeys[i].name, digestKeys[i].value(&d)); err != nil {
			return nil, err
		}
	}
	return o.bytes(), nil
}

func (d *Digest) nodeIDs() []string { return []string{d.ID} }

// lookClipKeys are the keys the budget may cut, in the declared order
// (C.2 v0.57): outline, children, edges_in and edges_out are shortened
// from the tail, then sample_rows is dropped whole.
var lookClipKeys = []string{"outline", "children", "edges_in", "edges_out", "sample_rows"}

// Look returns the digest of one node (C.2), at most 500 tokens. The id is
// read exactly; a transplanted id answers E_MOVED with moved_to, an absent
// one E_NOT_FOUND. The catalog serves every field but cross_trails, notes
// and example_queries, which only the node's body holds, and the dataset
// map, which only its payload holds; those are read only when wanted.
//
// When the Gauntlet applies (see LookOptions), edges_out and edges_in are
// ordered by proximity to the goal and the digest carries frontier.
func (v *Vine) Look(ctx context.Context, id string, opt LookOptions) (*Digest, error) {
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	return buildDigest(withLookGauntlet(ctx, opt), v, rec, newLookWant(opt.Fields))
}

// lookGauntlet carries a look call's Gauntlet options to every digest it
// builds (one for a single id, up to ten for a list), and resolves the
// goal once for all of them.
type lookGauntlet struct {
	off    *bool
	toward string
	once   sync.Once
	g      *gauntlet
}

type lookGauntletKey struct{}

// withLookGauntlet returns a context carrying opt's Gauntlet options.
func withLookGauntlet(ctx context.Context, opt LookOptions) context.Context {
	return context.WithValue(ctx, lookGauntletKey{}, &lookGauntlet{off: opt.Gauntlet, toward: opt.Toward})
}

// ranking is the Gauntlet of the digest, nil when it does not apply. A
// digest consults it only when its fields include a frontier (none given,
// or edges_out, edges_in or frontier): look(fields=["summary"]) costs no
// embedding. A digest built without look options in its context ranks by
// the defaults: on when ready, toward the session goal.
func (b *digestBuilder) ranking(ctx context.Context) *gauntlet {
	v, want := b.v, b.want
	if !want.has("edges_out") && !want.has("edges_in") && !want.has("frontier") {
		return nil
	}
	lg, _ := ctx.Value(lookGauntletKey{}).(*lookGauntlet)
	if lg == nil {
		return gauntletFor(ctx, v.canopy, nil, "")
	}
	lg.once.Do(func() { lg.g = gauntletFor(ctx, v.canopy, lg.off, lg.toward) })
	return lg.g
}

// lookWant is the fields filter: nil keeps everything.
type lookWant map[string]bool

func newLookWant(fields []string) lookWant {
	if len(fields) == 0 {
		return nil
	}
	w := lookWant{}
	for _, f := range fields {
		w[f] = true
	}
	return w
}

func (w lookWant) has(key string) bool { return w == nil || w[key] }

// digestBuilder is one digest under construction: the record it shows,
// the fields wanted, the body read at most once, and where it reads
// neighbours (nb) and the rest (the Vine: Gauntlet, payload, grants).
type digestBuilder struct {
	v    *Vine
	nb   neighbors
	rec  catalog.Record
	want lookWant
	d    *Digest
	body *lazyBody
}

// buildDigest builds the digest of a resolved record and fits it to budget.
func buildDigest(ctx context.Context, v *Vine, rec catalog.Record, want lookWant) (*Digest, error) {
	b := &digestBuilder{v: v, nb: neighborsOf(v), rec: rec, want: want,
		d: &Digest{ID: rec.ID}, body: &lazyBody{files: v.files, rec: rec}}
	d := b.d
	d.keys.add(dkID)
	d.passport(rec, want)
	if sc := scopeOf(ctx); sc.restricted() {
		d.Aliases = sc.visibleAliases(d.Aliases, rec.MovedFrom)
	}
	if err := b.edges(ctx); err != nil {
		return nil, err
	}
	if rec.Kind == "branch" {
		if err := b.branch(ctx); err != nil {
			return nil, err
		}
	} else if want.has("outline") {
		d.Outline = listOrEmpty(slices.Clone(rec.Outline))
		d.keys.add(dkOutline)
	}
	notesClipped := false
	if rec.Type == "dataset" || rec.Type == "media" {
		var err error
		if notesClipped, err = b.payload(ctx); err != nil {
			return nil, err
		}
	}
	d.fit(notesClipped)
	return d, nil
}

// passport copies the catalog's passport fields (C.2 §2.2).
func (d *Digest) passport(rec catalog.Record, want lookWant) {
	d.Type, d.Title, d.Summary = rec.Type, rec.Title, rec.Summary
	d.Tags, d.Aliases, d.Confidence = listOrEmpty(rec.Tags), rec.Aliases, rec.Confidence
	d.Created, d.Updated = passportDay(rec.Created), passportDay(rec.Updated)
	d.Source, d.Origin, d.Lang = rec.Source, rec.Origin, rec.Lang
	for _, k := range []digestKey{dkType, dkTitle, dkSummary, dkTags, dkConfidence, dkCreated, dkUpdated, dkSource} {
		if want.has(digestKeys[k].name) {
			d.keys.add(k)
		}
	}
	// Conditional keys: present only when set (v0.56, v0.57, v0.75).
	if len(rec.Aliases) > 0 && want.has("aliases") { // may empty under a policy: still "[]"
		d.keys.add(dkAliases)
	}
	if rec.Origin != "" && want.has("origin") {
		d.keys.add(dkOrigin)
	}
	if rec.Lang != "" && want.has("lang") {
		d.keys.add(dkLang)
	}
}

// passportDay keeps the day of a passport date ("2026-03-02T10:00:00" →
// "2026-03-02"); anything else is shown as stored.
func passportDay(s string) string {
	if len(s) > 10 && s[4] == '-' && s[7] == '-' {
		return s[:10]
	}
	return s
}

// edges fills edges_out, edges_in and stats (C.2 §2.3): lists ordered
// by neighbour heat, stable over catalog order, capped at 12; the degree
// counts every edge before the cap.
//
// When the Gauntlet applies the lists are ordered by goal proximity, heat
// breaking near-ties, before the cap, and the digest carries frontier
// (kept whatever fields says: it explains the order, spec 02 §10 item 21).
func (b *digestBuilder) edges(ctx context.Context) error {
	rec, d, want := b.rec, b.d, b.want
	g := b.ranking(ctx)
	if g != nil {
		d.Frontier = frontierOf(g)
		d.keys.add(dkFrontier)
	}
	wantOut, wantIn, wantStats := want.has("edges_out"), want.has("edges_in"), want.has("stats")
	if !wantOut && !wantIn && !wantStats {
		return nil
	}
	var ins []catalog.InEdge
	inDegree := 0
	if wantIn || wantStats {
		var err error
		if ins, inDegree, err = b.nb.inEdges(ctx, rec.ID, g == nil, MaxEdgesShown); err != nil {
			return err
		}
	}
	rec.Edges = visibleEdges(scopeOf(ctx), rec.Edges) // hidden targets: not shown, not counted
	ids := []string{rec.ID}
	if wantOut {
		for _, e := range rec.Edges {
			ids = append(ids, e.Dst)
		}
	}
	if wantIn {
		for _, e := range ins {
			ids = append(ids, e.Src)
		}
	}
	heat := b.nb.heat.read(ctx, ids)
	if wantOut {
		if err := b.edgesOut(ctx, rec.Edges, heat, g); err != nil {
			return err
		}
	}
	if wantIn {
		d.EdgesIn = digestEdgesIn(b.v.Dialect(), ins, heat, g)
		d.keys.add(dkEdgesIn)
	}
	if wantStats {
		d.Stats = DigestStats{BodyTokens: rec.BodyTokens, Degree: len(rec.Edges) + inDegree, Heat: readHeatRound(heat[rec.ID])}
		d.keys.add(dkStats)
	}
	return nil
}

// edgesOut fills edges_out from the record's visible out-edges.
func (b *digestBuilder) edgesOut(ctx context.Context, edges []catalog.Edge, heat map[string]float64, g *gauntlet) error {
	d := b.d
	sorted := slices.Clone(edges)
	if g != nil {
		gauntletOrder(g, sorted, func(e catalog.Edge) string { return e.Dst },
			func(e catalog.Edge) float64 { return heat[e.Dst] })
	} else {
		slices.SortStableFunc(sorted, func(a, b catalog.Edge) int { return byHeatDesc(heat[a.Dst], heat[b.Dst]) })
	}
	sorted = sorted[:min(len(sorted), MaxEdgesShown)]
	ids := make([]string, len(sorted))
	for i, e := range sorted {
		ids[i] = e.Dst
	}
	rows, err := b.nb.rows(ctx, ids)
	if err != nil {
		return err
	}
	d.EdgesOut = make([]DigestEdgeOut, len(sorted))
	for i, e := range sorted {
		d.EdgesOut[i] = DigestEdgeOut{Rel: e.Rel, Target: e.Dst,
			TargetSummary: budget.TruncateText(rows[e.Dst].summary, NeighborSummaryMax)}
	}
	d.keys.add(dkEdgesOut)
	return nil
}

func digestEdgesIn(dialect *forest.Dialect, ins []catalog.InEdge, heat map[string]float64, g *gauntlet) []DigestEdgeIn {
	sorted := slices.Clone(ins)
	if g != nil {
		gauntletOrder(g, sorted, func(e catalog.InEdge) string { return e.Src },
			func(e catalog.InEdge) float64 { return heat[e.Src] })
	} else {
		slices.SortStableFunc(sorted, func(a, b catalog.InEdge) int { return byHeatDesc(heat[a.Src], heat[b.Src]) })
	}
	sorted = sorted[:min(len(sorted), MaxEdgesShown)]
	out := make([]DigestEdgeIn, len(sorted))
	for i, e := range sorted {
		out[i] = DigestEdgeIn{Rel: dialect.Inverse(e.Rel), Source: e.Src}
	}
	return out
}

// byHeatDesc orders hotter first; a stable sort keeps ties in catalog order.
func byHeatDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// branch fills children, cross_trails and coverage (C.2 §2.4).
func (b *digestBuilder) branch(ctx context.Context) error {
	rec, d, want := b.rec, b.d, b.want
	if want.has("children") {
		rows, err := b.nb.children(ctx, rec.ID)
		if err != nil {
			return err
		}
		d.Children = make([]DigestChild, len(rows))
		for i, r := range rows {
			d.Children[i] = DigestChild{ID: r.id, Summary: budget.TruncateText(r.summary, NeighborSummaryMax)}
		}
		d.keys.add(dkChildren)
	}
	if want.has("cross_trails") {
		// Cross trails are hand-written prose in the index body; no
		// catalog column holds them, so this is the one file a branch
		// digest opens.
		body, err := b.body.get()
		if err != nil {
			return err
		}
		if trails := visibleTrails(scopeOf(ctx), forest.CrossTrails(body)); len(trails) > 0 {
			d.CrossTrails = trails
			d.keys.add(dkCrossTrails)
		}
	}
	if want.has("coverage") {
		n, m, ok := forest.ParseCoverage(rec.Coverage)
		if ok && scopeOf(ctx).restricted() {
			// The declared numbers count hidden children too: recount
			// what the caller can see.
			var err error
			if n, m, err = b.v.visibleCoverage(ctx, rec.ID); err != nil {
				return err
			}
		}
		if ok {
			d.Coverage = &DigestCoverage{Notes: n, Branches: m}
			d.keys.add(dkCoverage)
		}
	}
	return nil
}

// payload fills the dataset and media extras (C.2.1, C.2.2) and
// reports whether the notes were clipped to their own budget.
func (b *digestBuilder) payload(ctx context.Context) (notesClipped bool, err error) {
	v, rec, d, want := b.v, b.rec, b.d, b.want
	if want.has("notes") {
		// Notes are operator prose kept only in the body (C.2.1 r4: no
		// side store), so the node file is read for them.
		body, err := b.body.get()
		if err != nil {
			return false, err
		}
		if notes := digestSectionText(body, "Notes"); notes != "" {
			d.Notes = budget.TruncateText(notes, BudgetNotes)
			notesClipped = d.Notes != notes
			d.keys.add(dkNotes)
		}
	}
	facts := v.place.Stat(payloadScope(ctx), rec.ID, rec.Payload)
	if facts.Missing() {
		d.PayloadMissing = true
		d.keys.add(dkPayloadMissing) // survives fields: it explains an absent field
		return notesClipped, nil
	}
	if rec.Type == "media" {
		if want.has("payload_type") && rec.PayloadType != "" {
			d.PayloadType = rec.PayloadType
			d.keys.add(dkPayloadType)
		}
		if want.has("payload_bytes") && facts.Present {
			d.PayloadBytes = facts.Size
			d.keys.add(dkPayloadBytes)
		}
		return notesClipped, nil
	}
	wantQM, wantRows := want.has("query_manual"), want.has("sample_rows")
	if rec.PayloadType != "sqlite" || (!wantQM && !wantRows) {
		return notesClipped, nil
	}
	file := v.place.Local(payloadScope(ctx), "look", rec, facts)
	if file == "" {
		return notesClipped, nil
	}
	return notesClipped, b.dataset(ctx, file, wantQM, wantRows)
}

// dataset reads the dataset map from the payload file.
func (b *digestBuilder) dataset(ctx context.Context, file string, wantQM, wantRows bool) error {
	v, rec, d := b.v, b.rec, b.d
	m, err := datasetMaps.get(file, rec.PayloadHash)
	if err == nil {
		m, err = m.granted(file, withGrants(ctx, v.place, sqlHost{}, rec).tables)
	}
	if err != nil {
		// An unreadable payload is not the caller's mistake and must not
		// hide the rest of the digest; query reports the detail.
		v.log.Warn("look: dataset payload unreadable", "id", rec.ID, "err", err)
		return nil
	}
	if wantQM {
		body, err := b.body.get()
		if err != nil {
			return err
		}
		d.QueryManual = &DigestQueryManual{Tables: m.tables, ExampleQueries: m.permittedQueries(exampleQueries(body))}
		d.keys.add(dkQueryManual)
	}
	if wantRows && m.sample != nil {
		d.SampleRows = m.sample
		d.keys.add(dkSampleRows)
	}
	return nil
}

// exampleQueryRE is a backticked SELECT snippet of a Query manual.
var exampleQueryRE = regexp.MustCompile("(?is)`\\s*(select\\b[^`]*)`")

// exampleQueries returns up to three backticked SELECT snippets of the
// body's Query manual section.
func exampleQueries(body string) []string {
	out := []string{}
	for _, m := range exampleQueryRE.FindAllStringSubmatch(digestSectionText(body, "Query manual"), -1) {
		if len(out) == 3 {
			break
		}
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

// digestSectionText returns the text under the header whose text is exactly name
// (case-insensitive, any level), without the header line, trimmed; "" when
// there is no such header.
func digestSectionText(body, name string) string {
	start, end, ok := forest.FindSection(body, name)
	if !ok {
		return ""
	}
	head, rest, _ := strings.Cut(body[start:end], "\n")
	if !strings.EqualFold(atxHeaderText(head), name) {
		return "" // a prefix match names another section
	}
	return strings.TrimSpace(rest)
}

// atxHeaderText is the text of an ATX header line.
func atxHeaderText(line string) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
}

// lazyBody reads a resolved node's body at most once, on first need.
type lazyBody struct {
	files nodeFiles
	rec   catalog.Record
	node  *forest.Node
	err   error
	done  bool
}

func (b *lazyBody) get() (string, error) {
	if !b.done {
		b.node, b.err = b.files.node(b.rec)
		b.done = true
	}
	if b.err != nil {
		return "", b.err
	}
	return b.node.Body, nil
}

// fit brings the digest within BudgetLook (C.2 §2.8). The flags are put in
// at their largest size before anything is cut, so fixing their final
// value never pushes the digest back over.
func (d *Digest) fit(notesClipped bool) {
	var named []string
	if notesClipped {
		named = append(named, "notes")
		d.setTruncated(named)
	}
	if d.tokens() <= BudgetLook {
		return
	}
	d.setTruncated(append(slices.Clone(named), lookClipKeys...))
	over := func() bool { return d.tokens() > BudgetLook }
	render := func() any { return d }
	// ShrinkTail checks the budget itself and cuts nothing when it fits.
	cut := func(name string, k digestKey, shrink func() int) {
		if d.keys.has(k) && shrink() > 0 {
			named = append(named, name)
		}
	}
	cut("outline", dkOutline, func() int { return budget.ShrinkTail(&d.Outline, BudgetLook, render) })
	cut("children", dkChildren, func() int { return budget.ShrinkTail(&d.Children, BudgetLook, render) })
	cut("edges_in", dkEdgesIn, func() int { return budget.ShrinkTail(&d.EdgesIn, BudgetLook, render) })
	cut("edges_out", dkEdgesOut, func() int { return budget.ShrinkTail(&d.EdgesOut, BudgetLook, render) })
	cut("sample_rows", dkSampleRows, func() int {
		if !over() {
			return 0
		}
		d.keys.drop(dkSampleRows)
		d.SampleRows = nil
		return 1
	})
	// Beyond the declared order (spec 02 §10 item 20, residual overflow):
	// cross trails are unbounded prose re-readable through pick.
	cut("cross_trails", dkCrossTrails, func() int { return budget.ShrinkTail(&d.CrossTrails, BudgetLook, render) })
	if len(named) > 0 {
		d.TruncatedFields = named
		return
	}
	d.keys.drop(dkTruncatedFields)
	d.TruncatedFields = nil
	if !over() {
		d.keys.drop(dkTruncated)
		d.Truncated = false
	}
}

func (d *Digest) setTruncated(fields []string) {
	d.Truncated, d.TruncatedFields = true, fields
	d.keys.add(dkTruncated)
	d.keys.add(dkTruncatedFields)
}

func (d *Digest) tokens() int { return budget.EstimatePayloadTokens(d) }

// lookSignature is look's row in the signature table.
var lookSignature = Signature{
	Name: "look",
	Doc: "Digest of one node, or of up to 10 (a list of ids): passport, edges with neighbour summaries, " +
		"outline (leaves) or children and cross trails (branches), dataset map and notes, within 500 tokens " +
		"(a list: 2000 in all). Pass fields=[...] to ask only for what you need (the cheapest lever); keys cut " +
		"to fit are named in truncated_fields. Read the body with pick.",
	Budget: BudgetLook,
	Params: []Param{
		{Name: "id", Type: TStringOrList, Required: true,
			Doc: "node id (exact path without .md), or a list of 1 to 10 ids"},
		{Name: "fields", Type: TStringList,
			Doc: "digest keys to return (id always comes back); empty or absent means all"},
		{Name: "gauntlet", Type: TBoolean, Doc: "false: do not order edges by the session goal (they are ordered by it when the forest has a ready vector layer)"},
		{Name: "toward", Type: TString, Doc: "goal text overriding the session goal for this call"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: lookSignature, run: runLook}) }

func runLook(ctx context.Context, v *Vine, a Args) (any, error) {
	opt := LookOptions{Fields: a.Strings("fields"), Toward: a.String("toward")}
	if a.Has("gauntlet") {
		g := a.Bool("gauntlet")
		opt.Gauntlet = &g
	}
	if a.IsList("id") {
		return v.LookBatch(ctx, a.Strings("id"), opt)
	}
	return v.Look(ctx, a.String("id"), opt)
}

// errBatchSize refuses an empty or over-cap id list, naming the parameter.
func errBatchSize(primitive string, n, limit int) error {
	if n == 0 {
		return envelope.Errorf(envelope.Schema,
			"%s: parameter 'id' got an empty list; expected 1 to %d ids", primitive, limit).
			WithHint("pass one id as a string, or a list of up to " + strconv.Itoa(limit) + " ids")
	}
	return envelope.Errorf(envelope.Schema,
		"%s: parameter 'id' lists %d ids; a batch takes at most %d", primitive, n, limit).
		WithHint("split the list into calls of at most " + strconv.Itoa(limit) + " ids")
}

// datasetMap is what look reads from a SQLite payload.
type datasetMap struct {
	tables      map[string][]string
	sample      *DigestSampleRows // nil when there is no table
	sampleTable string            // the table sampled
	withheld    []string          // tables a grant's allow-list removed
}

// clone copies the map so a digest never aliases the cache.
func (m datasetMap) clone() datasetMap {
	out := datasetMap{tables: make(map[string][]string, len(m.tables)), sampleTable: m.sampleTable}
	for t, cols := range m.tables {
		out.tables[t] = slices.Clone(cols)
	}
	if m.sample != nil {
		rows := make([][]any, len(m.sample.Rows))
		for i, r := range m.sample.Rows {
			rows[i] = slices.Clone(r)
		}
		out.sample = &DigestSampleRows{Columns: slices.Clone(m.sample.Columns), Rows: rows}
	}
	return out
}

// granted is the map a caller under a table allow-list may see (C.5.3):
// withheld tables and their columns are left out, and the sample rows come
// from the first permitted table, read from file, since the cached sample
// may be of a withheld one. Without a list the map is unchanged.
func (m datasetMap) granted(file string, allow []string) (datasetMap, error) {
	if allow == nil {
		return m, nil
	}
	auth := sqlguard.NewAuthorizer(false, allow)
	var first string
	for _, t := range slices.Sorted(maps.Keys(m.tables)) {
		if !auth.Permits(t) {
			delete(m.tables, t)
			m.withheld = append(m.withheld, t)
		} else if first == "" {
			first = t
		}
	}
	if m.sampleTable == "" || auth.Permits(m.sampleTable) {
		return m, nil
	}
	m.sample, m.sampleTable = nil, first
	if first == "" {
		return m, nil
	}
	conn, err := openPayload(file, false, sqlLimits{})
	if err != nil {
		return m, err
	}
	defer conn.Close()
	err = withinMemory(conn, func() (err error) {
		m.sample, err = sqliteSample(conn, first)
		return err
	})
	return m, err
}

// permittedQueries drops the example queries that name a withheld table:
// the manual must not point a caller at what its grant refuses.
func (m datasetMap) permittedQueries(qs []string) []string {
	if len(m.withheld) == 0 {
		return qs
	}
	return slices.DeleteFunc(qs, func(q string) bool {
		words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
			return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
		})
		return slices.ContainsFunc(m.withheld, func(t string) bool { return slices.Contains(words, strings.ToLower(t)) })
	})
}

// datasetMaps remembers the maps of payloads look has read. Opening a
// SQLite file costs about a millisecond; a dataset's tables change only
// when its payload file does, which the key (size, modification time and
// passport hash) notices.
var datasetMaps = &datasetMapCache{entries: map[datasetMapKey]datasetMap{}}

const datasetMapCacheSize = 64

type datasetMapKey struct {
	path, hash string
	size       int64
	mtime      int64
}

type datasetMapCache struct {
	mu      sync.Mutex
	entries map[datasetMapKey]datasetMap
}

// get returns the map of the payload file, reading it on a miss.
func (c *datasetMapCache) get(file, hash string) (datasetMap, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return datasetMap{}, err
	}
	key := datasetMapKey{path: file, hash: hash, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	c.mu.Lock()
	m, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return m.clone(), nil
	}
	m, err = readDatasetMap(file)
	if err != nil {
		return datasetMap{}, err
	}
	c.mu.Lock()
	for k := range c.entries {
		if k.path == file {
			delete(c.entries, k) // a stale version of this file
		}
	}
	for k := range c.entries {
		if len(c.entries) < datasetMapCacheSize {
			break
		}
		delete(c.entries, k)
	}
	c.entries[key] = m
	c.mu.Unlock()
	return m.clone(), nil
}

// readDatasetMap opens a payload read-only and lists its tables (by name,
// sqlite_* excluded) with their columns, and the first three rows of the
// first table.
//
// The file is a payload anyone may have planted, so it is opened as query
// opens it (read-only, defensive, schema untrusted) under the default SQL
// limits: a bomb view or a huge cell costs look an error, not the heap.
func readDatasetMap(file string) (m datasetMap, err error) {
	m = datasetMap{tables: map[string][]string{}}
	conn, err := openPayload(file, false, sqlLimits{})
	if err != nil {
		return m, err
	}
	defer conn.Close()
	err = withinMemory(conn, func() error { return fillDatasetMap(conn, &m) })
	return m, err
}

// fillDatasetMap reads the tables, their columns and the first table's
// sample rows.
func fillDatasetMap(conn *sqlite3.Conn, m *datasetMap) error {
	names, err := sqlColumn(conn, `SELECT name FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name`, "")
	if err != nil {
		return err
	}
	for _, name := range names {
		cols, err := sqlColumn(conn, `SELECT name FROM pragma_table_info(?)`, name)
		if err != nil {
			return err
		}
		m.tables[name] = listOrEmpty(cols)
	}
	if len(names) > 0 {
		if m.sample, err = sqliteSample(conn, names[0]); err != nil {
			return err
		}
		m.sampleTable = names[0]
	}
	return nil
}

// sqliteReadOnlyURI renders a file path as a read-only SQLite URI; escaping
// keeps '?', '#' and '%' in names from being read as URI syntax.
func sqliteReadOnlyURI(file string) string {
	p := filepath.ToSlash(file)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file:" + (&url.URL{Path: p}).EscapedPath() + "?mode=ro"
}

// sqliteSample reads the first three rows of a table.
func sqliteSample(conn *sqlite3.Conn, table string) (*DigestSampleRows, error) {
	st, _, err := conn.Prepare(`SELECT * FROM "` + strings.ReplaceAll(table, `"`, `""`) + `" LIMIT 3`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	s := &DigestSampleRows{Columns: make([]string, st.ColumnCount()), Rows: [][]any{}}
	for i := range s.Columns {
		s.Columns[i] = st.ColumnName(i)
	}
	for st.Step() {
		row := make([]any, len(s.Columns))
		for i := range row {
			row[i] = resultCell(st, i)
		}
		s.Rows = append(s.Rows, row)
	}
	return s, st.Err()
}
