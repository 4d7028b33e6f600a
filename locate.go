// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/scent"
	"github.com/monkeyllm/vine/internal/terms"
	"github.com/monkeyllm/vine/internal/window"
)

// Constants of locate (C.1, table 0.1).
const (
	locateBudget   = 800 // tokens, whole response
	locateDefaultK = 5
	locateMinPool  = 25  // candidate pool: max(5k, 25) FTS rows
	locateAlpha    = 0.3 // heat weight in the score; 0 disables heat
	locateRRF      = 60  // reciprocal rank fusion constant of the hybrid leg

	// locateMaxRawTerms caps the raw-word fallback. Derivation keeps at
	// most 8 terms; the fallback of a long run of short words would
	// otherwise OR thousands of phrases (40,000 took half a minute).
	locateMaxRawTerms = 32
)

// locateMissHint is the hint of an empty locate (C.1.1): it names the
// primitive that searches bodies and nothing of the forest's content.
const locateMissHint = "Nothing in titles, aliases, tags or summaries matched. Bodies are searched by sniff(terms)."

// LocateOptions are the parameters of Locate besides the query.
type LocateOptions struct {
	// K is how many results to return; 0 means 5. No upper cap: the
	// 800-token budget is the wall.
	K int
	// Scope filters by kind: "all" (also ""), "branches" or "notes"
	// ("bananas" is the deprecated alias of "notes"). Anything else is
	// refused, never widened to "all".
	Scope string
	// TypeFilter keeps only nodes of exactly this type; it is not checked
	// against the dialect, so an unknown type simply matches nothing.
	TypeFilter string
	// Include asks for extras per result; the only one is "outline".
	Include []string
	// Since, Until and DateField window the search (C.13.1): bounds as
	// YYYY, YYYY-MM or YYYY-MM-DD over "created" (default) or "updated".
	Since, Until, DateField string
	// Hybrid fuses the dense (vector) leg into the ranking for this call
	// only, when the forest's dense layer is ready (K.3).
	Hybrid bool
}

// locateSeam overrides parts of locate's engine for this package's
// tests: the heat weight (nil: locateAlpha) and the dense layer (nil: the
// forest's canopy.Layer). It travels in the context, never in
// LocateOptions, so no caller or wire argument can reach it.
type locateSeam struct {
	alpha *float64
	dense denseRanker
}

type locateSeamKey struct{}

func locateSeamOf(ctx context.Context) locateSeam {
	s, _ := ctx.Value(locateSeamKey{}).(locateSeam)
	return s
}

// LocateResult is the answer of Locate. Results and Truncated are always
// present; the other keys only where C.1 says so.
type LocateResult struct {
	Results   []LocateHit `json:"results"`
	Truncated bool        `json:"truncated"`
	// Window echoes the normalized window of a windowed call.
	Window *WindowEcho `json:"window,omitempty"`
	// UndatedExcluded counts nodes no window can hold (windowed, > 0 only).
	UndatedExcluded int `json:"undated_excluded,omitempty"`
	// Searched, MatchedWindow and Hint explain an empty answer only.
	Searched      *int   `json:"searched,omitempty"`
	MatchedWindow *int   `json:"matched_window,omitempty"`
	Hint          string `json:"hint,omitempty"`
	// Hybrid and HybridReason echo a call that asked for hybrid: whether
	// fusion ran, and the dense layer's state (K.4).
	Hybrid       *bool  `json:"hybrid,omitempty"`
	HybridReason string `json:"hybrid_reason,omitempty"`
}

// LocateHit is one ranked node: its catalog passport, where it sits, how
// it scored and how big its body is. No file is opened to build it.
type LocateHit struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"` // "note" or "branch"
	Type    string   `json:"type"`
	Title   string   `json:"title"`
	Summary string   `json:"summary"`
	Trail   []string `json:"trail"` // ancestor indexes, root first, the node excluded
	// Score is strength × (1 + alpha × heat), 4 decimals; strength is the
	// BM25 rank over the best rank of the call (the top hit is 1).
	Score float64 `json:"score"`
	Heat  float64 `json:"heat"`
	// BodyTokens is the body's size, equal to look's stats.body_tokens.
	BodyTokens int `json:"body_tokens"`
	// Coverage is a branch's declared size, when its passport states one
	// that parses.
	Coverage *BranchCoverage `json:"coverage,omitempty"`
	// Outline is the body's H2/H3 headers, present (possibly empty) only
	// when the call included "outline".
	Outline []string `json:"outline,omitzero"`
}

// BranchCoverage is a branch's declared size: direct notes and
// sub-branches, parsed from its passport's coverage prose.
type BranchCoverage struct {
	Notes    int `json:"notes"`
	Branches int `json:"branches"`
}

func (r *LocateResult) nodeIDs() []string {
	ids := make([]string, len(r.Results))
	for i, h := range r.Results {
		ids[i] = h.ID
	}
	return ids
}

// denseRanker is the dense leg of hybrid entry search (K.3), filled by the
// forest's canopy.Layer; tests substitute their own. Its methods are
// exported so an implementation may live in another package of the module.
type denseRanker interface {
	// State is the layer's readiness (K.4): "active", "no-embedder",
	// "no-index" or "model-mismatch". Only "active" fuses.
	State(ctx context.Context) string
	// Nearest embeds the raw query (through the K.6 memo; nodes are never
	// embedded on a read) and returns up to n node ids, nearest first.
	Nearest(ctx context.Context, query string, n int) ([]string, error)
}

var locateSignature = Signature{
	Name: "locate",
	Doc: "Entry search: finds nodes by their curated metadata (titles, aliases, tags, summaries), " +
		"ranked by BM25 and heat, with trail, score and body_tokens per result. It does not search bodies: " +
		"use sniff(terms) for words inside notes. Budget 800 tokens; results are cut from the tail with truncated: true.",
	Budget: locateBudget,
	Params: []Param{
		{Name: "query", Type: TString, Required: true, Doc: "the question or keywords; search terms are derived from it"},
		{Name: "k", Type: TInteger, Default: locateDefaultK, Doc: "how many results, at least 1"},
		{Name: "scope", Type: TString, Default: "all", Enum: []string{"all", "branches", "notes", "bananas"},
			Doc: "branches for broad questions (landing zones), notes for pointed ones; bananas is a deprecated alias of notes"},
		{Name: "type_filter", Type: TString, Doc: "only nodes of exactly this type"},
		{Name: "include", Type: TStringList, Doc: `extras per result: ["outline"] adds each node's section headers`},
		{Name: "since", Type: TString, Doc: "window start: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "until", Type: TString, Doc: "window end: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "date_field", Type: TString, Enum: []string{window.Created, window.Updated}, Doc: "date the window reads; created when absent"},
		{Name: "hybrid", Type: TBoolean, Default: false, Doc: "fuse vector search into the ranking for this call, when the forest has a ready dense layer"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: locateSignature, run: runLocate}) }

func runLocate(ctx context.Context, v *Vine, a Args) (any, error) {
	if a.Has("k") && a.Int("k") < 1 {
		return nil, locateKRefusal(a.Int("k"))
	}
	return v.Locate(ctx, a.String("query"), LocateOptions{
		K: a.Int("k"), Scope: a.String("scope"), TypeFilter: a.String("type_filter"),
		Include: a.Strings("include"), Since: a.String("since"), Until: a.String("until"),
		DateField: a.String("date_field"), Hybrid: a.Bool("hybrid"),
	})
}

func locateKRefusal(k int) error {
	return envelope.New(envelope.Schema, fmt.Sprintf("locate: parameter 'k' got %d, expected an integer of at least 1", k),
		"k is how many results to return; leave it out for 5")
}

// Locate is the entry search (C.1): it ranks nodes by their curated
// metadata — titles, aliases, tags and summaries, never bodies — for
// terms derived from query (the raw words when nothing derives), BM25 with
// weights title 4, aliases 3, tags 2, summary 1, re-ranked by heat. scope,
// type filter and window narrow the candidates inside the search, so k is
// still met when enough nodes qualify.
//
// The response fits 800 tokens: results beyond k and results the budget
// cannot hold are cut from the tail, and truncated says so. An empty
// answer carries searched and a hint naming sniff; a windowed one the
// window echo and, when empty, whether the window was the reason.
func (v *Vine) Locate(ctx context.Context, query string, opt LocateOptions) (*LocateResult, error) {
	q, err := opt.parse()
	if err != nil {
		return nil, err
	}
	if seam := locateSeamOf(ctx); seam.alpha != nil || seam.dense != nil {
		q.dense = seam.dense
		if seam.alpha != nil {
			q.alpha = *seam.alpha
		}
	}
	q.filter.scope = scopeOf(ctx)
	// Every locate names the session's goal for the Gauntlet (K.2); the
	// text is kept, its embedding waits for the first hop that ranks.
	v.canopy.SetGoal(ctx, query)
	x := v.locator.index(ctx)
	asked := locateTerms(query)
	ctx = v.heat.ask(ctx, asked) // heat ranks for this question (issue 34)
	ts, err := v.selectTerms(ctx, x, asked)
	if err != nil {
		return nil, err
	}
	cands, err := v.locator.candidates(ctx, x, q.filter, ts, q.pool)
	if err != nil {
		return nil, err
	}
	res := &LocateResult{Results: []LocateHit{}}
	if opt.Hybrid {
		var ran bool
		if cands, ran, res.HybridReason, err = v.fuseDense(ctx, query, q, cands); err != nil {
			return nil, err
		}
		res.Hybrid = &ran
	}
	v.rankLocate(ctx, cands, q.alpha)
	if err := v.locateWindowFacts(ctx, res, q.filter.win); err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return res, v.locateExplainEmpty(ctx, x, res, q.filter.win)
	}
	res.Truncated = len(cands) > q.k
	if cands, err = v.locator.passports(ctx, cands[:min(len(cands), q.k)]); err != nil {
		return nil, err
	}
	res.Results = make([]LocateHit, len(cands))
	for i, c := range cands {
		res.Results[i] = c.hit(q.outline)
		if err := v.scopeHit(ctx, &res.Results[i]); err != nil {
			return nil, err
		}
	}
	if budget.ShrinkTail(&res.Results, locateBudget, func() any { return res }) > 0 {
		res.Truncated = true
	}
	return res, nil
}

// locateQuery is a validated call.
type locateQuery struct {
	k       int
	pool    int
	outline bool
	alpha   float64
	filter  locateFilter
	dense   denseRanker
}

// parse validates the options in the reference's order (include, scope,
// window, then k) and resolves defaults.
func (opt LocateOptions) parse() (locateQuery, error) {
	q := locateQuery{k: opt.K, alpha: locateAlpha}
	for _, inc := range opt.Include {
		if inc != "outline" {
			return q, envelope.New(envelope.Schema,
				fmt.Sprintf("locate: parameter 'include' got %q, expected only \"outline\"", inc),
				`include: ["outline"] adds each result's section headers; leave it out otherwise`)
		}
		q.outline = true
	}
	switch opt.Scope {
	case "", "all":
	case "branches":
		q.filter.kind = "branch"
	case "notes", "bananas":
		q.filter.kind = "note"
	default:
		return q, envelope.New(envelope.Schema,
			fmt.Sprintf("locate: parameter 'scope' got %q, expected one of all, branches, notes", opt.Scope),
			"branches finds landing zones for broad questions, notes finds leaves for pointed ones")
	}
	var err error
	if q.filter.win, err = window.Parse(opt.Since, opt.Until, opt.DateField); err != nil {
		return q, err
	}
	switch {
	case q.k < 0:
		return q, locateKRefusal(q.k)
	case q.k == 0:
		q.k = locateDefaultK
	}
	q.pool = locatePool(q.k)
	q.filter.typ = opt.TypeFilter
	return q, nil
}

// locatePool is max(5k, 25), saturating instead of overflowing.
func locatePool(k int) int {
	if k > math.MaxInt/5 {
		return math.MaxInt
	}
	return max(5*k, locateMinPool)
}

// locateTerms are the lexical leg's terms (C.1.2): the derived terms, or
// the raw query split on white space when nothing derives, so a one-word
// caller is answered exactly as before derivation existed. The fallback
// keeps the first locateMaxRawTerms words.
func locateTerms(query string) []string {
	if t := terms.Derive(query); len(t) > 0 {
		return t
	}
	raw := strings.Fields(query)
	return raw[:min(len(raw), locateMaxRawTerms)]
}

// locateFilter narrows candidates inside the search query.
type locateFilter struct {
	kind  string // "", "branch" or "note"
	typ   string // exact type, "" for any
	win   window.Window
	scope *scope // the call's policy: candidates outside it never enter the pool
}

// sql renders the filter over the nodes alias m ("" and no arguments when
// there is nothing to narrow).
func (f locateFilter) sql() (string, []any) {
	var conds []string
	var args []any
	switch f.kind {
	case "branch":
		conds = append(conds, "m.kind = 'branch'")
	case "note":
		conds = append(conds, "m.kind IS NOT 'branch'")
	}
	if f.typ != "" {
		conds = append(conds, "m.type = ?")
		args = append(args, f.typ)
	}
	if f.win.Active() {
		pred, wargs := f.win.SQL("m.")
		conds = append(conds, pred)
		args = append(args, wargs...)
	}
	if f.scope.restricted() {
		pred, sargs := f.scope.sql("m.id")
		conds = append(conds, pred)
		args = append(args, sargs...)
	}
	return strings.Join(conds, " AND "), args
}

// locateColumns are the nodes columns a candidate reads, over alias a.
func locateColumns(a string) string {
	return a + ".id, " + a + ".kind, coalesce(" + a + ".type, ''), coalesce(" + a + ".title, ''), " +
		"coalesce(" + a + ".summary, ''), coalesce(" + a + ".body_tokens, 0), coalesce(" + a + ".coverage, ''), " +
		"coalesce(" + a + ".outline, '')"
}

// locateSQL is the candidate query: the FTS index ranks rowids (joined to
// nodes only when a filter must hold before the LIMIT), and the few rows
// kept are joined to nodes afterwards, so the passports of rows that do
// not make the pool are never read. Ties keep rowid order.
func locateSQL(filter string) string {
	// LIMIT ?+0 keeps the prepared statement across pool sizes (see catalog.RankExpr).
	inner := "SELECT rowid AS fid, " + catalog.RankExpr + " AS rank FROM nodes_fts WHERE nodes_fts MATCH ?"
	if filter != "" {
		inner = "SELECT nodes_fts.rowid AS fid, " + catalog.RankExpr + " AS rank FROM nodes_fts " +
			"JOIN nodes AS m ON m.rowid = nodes_fts.rowid WHERE nodes_fts MATCH ? AND " + filter
	}
	return "SELECT " + locateColumns("n") + ", f.rank FROM (" + inner + " ORDER BY rank, fid LIMIT ?+0) AS f " +
		"JOIN nodes AS n ON n.rowid = f.fid ORDER BY f.rank, f.fid"
}

// locateCand is one node of the candidate pool.
type locateCand struct {
	id, kind, typ, title, summary string
	coverage, outline             string // raw catalog text, decoded only when shown
	bodyTokens                    int
	rank                          float64 // BM25, lower is better; 0 for a dense-only hit
	rowid                         int64   // set while the passport is unread (see locatePassports)
	strength, heat, score         float64
}

// setLocateStrength is the BM25-only strength (C.1.5): rank over the best rank
// of the pool, so the top hit is 1; 1 for all when no rank is negative.
func setLocateStrength(cands []locateCand) {
	if len(cands) == 0 {
		return
	}
	best := cands[0].rank // the pool arrives best first
	for i := range cands {
		cands[i].strength = 1
		if best < 0 {
			cands[i].strength = cands[i].rank / best
		}
	}
}

// rankLocate sets heat and score on every candidate and sorts them by
// score, stably, so ties keep the pool's order (lexical rank, then vector
// extras). Heat comes for the whole pool in one batch.
func (v *Vine) rankLocate(ctx context.Context, cands []locateCand, alpha float64) {
	if len(cands) == 0 {
		return
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	heat := v.heat.read(ctx, ids)
	for i := range cands {
		c := &cands[i]
		h := min(1, max(0, heat[c.id]))
		c.heat = locateRound4(h)
		c.score = locateRound4(c.strength * (1 + alpha*h))
	}
	slices.SortStableFunc(cands, func(a, b locateCand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
}

func locateRound4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// hit renders a candidate for the wire.
func (c locateCand) hit(outline bool) LocateHit {
	h := LocateHit{
		ID: c.id, Kind: "note", Type: c.typ, Title: c.title, Summary: c.summary,
		Trail: forest.Trail(c.id), Score: c.score, Heat: c.heat, BodyTokens: c.bodyTokens,
	}
	if c.kind == "branch" {
		h.Kind = "branch"
		if n, b, ok := forest.ParseCoverage(c.coverage); ok {
			h.Coverage = &BranchCoverage{Notes: n, Branches: b}
		}
	}
	if outline {
		h.Outline = []string{}
		if c.outline != "" && json.Unmarshal([]byte(c.outline), &h.Outline) != nil {
			h.Outline = []string{} // a malformed column reads as no headers
		}
	}
	return h
}

// locateWindowFacts echoes a windowed call's window and its undated count.
func (v *Vine) locateWindowFacts(ctx context.Context, res *LocateResult, w window.Window) error {
	if !w.Active() {
		return nil
	}
	echo := w.Echo()
	res.Window = &echo
	n, err := undatedCount(ctx, &v.stmts, w, "")
	res.UndatedExcluded = n
	return err
}

// locateExplainEmpty adds what an empty answer says (C.1.1, C.13.2): how many
// nodes the search ran over, and for a windowed call whether the window
// was the reason. Counts and dates only, never content.
func (v *Vine) locateExplainEmpty(ctx context.Context, x *scent.Index, res *LocateResult, w window.Window) error {
	searched, err := v.locator.searched(ctx, x)
	if err != nil {
		return err
	}
	res.Searched, res.Hint = &searched, locateMissHint
	if !w.Active() {
		return nil
	}
	matched, hint, err := windowFacts(ctx, &v.stmts).Empty(ctx, w)
	if err != nil {
		return err
	}
	res.MatchedWindow = &matched
	if matched > 0 {
		// The window hint already points at sniff.
		res.Hint = "Nothing in titles, aliases, tags or summaries matched. " + hint
	} else {
		res.Hint = locateMissHint + " " + hint
	}
	return nil
}

// fuseDense runs the dense leg of a call that asked for hybrid (C.1.5):
// when the layer is active it fetches the nearest max(5k, 25) ids for the
// raw query, adds the ones outside the lexical pool that pass the same
// filters and window, and fuses both lists by reciprocal rank (constant
// 60); strength is fused over the best fused. It reports whether fusion
// ran and the layer's state. Any failed precondition, an embedding
// failure included, leaves the lexical answer as it was.
func (v *Vine) fuseDense(ctx context.Context, query string, q locateQuery, lex []locateCand) ([]locateCand, bool, string, error) {
	dense := q.dense
	if dense == nil {
		dense = v.canopy
	}
	if dense == nil {
		return lex, false, "no-embedder", nil
	}
	state := dense.State(ctx)
	if state != "active" {
		return lex, false, state, nil
	}
	shares := sharesOf(ctx)
	start, embedBefore := time.Now(), shares.embedSoFar()
	ids, err := dense.Nearest(ctx, query, q.pool)
	if err != nil {
		v.log.Warn("dense leg failed; answering lexically", "err", err)
		return lex, false, state, nil
	}
	ids = q.filter.scope.visible(ids) // hidden nodes hold no vector rank either
	// The dense share is the whole leg but the query's embedding, which
	// Nearest charged to the embed share: the trace keeps the two apart
	// (spec 05, the vector layer's shares of a traced call).
	defer func() { shares.addDense(time.Since(start) - (shares.embedSoFar() - embedBefore)) }()
	inPool := make(map[string]bool, len(lex))
	for _, c := range lex {
		inPool[c.id] = true
	}
	var missing []string
	for _, id := range ids {
		if !inPool[id] {
			missing = append(missing, id)
		}
	}
	extras, err := v.locateRows(ctx, q.filter, missing)
	if err != nil {
		return nil, false, state, err
	}
	return fuseRRF(lex, ids, extras), true, state, nil
}

// fuseRRF fuses the lexical pool with the dense ranking: fused(id) =
// Σ 1/(60 + rank + 1) over both lists (rank 0-based), the dense list being
// the vector hits that are in the pool or passed the filters (extras).
// The result is the lexical pool, then the extras in vector order, each
// with strength fused / max(fused).
func fuseRRF(lex []locateCand, dense []string, extras map[string]locateCand) []locateCand {
	fused := make(map[string]float64, len(lex)+len(extras))
	inPool := make(map[string]bool, len(lex))
	for i, c := range lex {
		fused[c.id] += 1 / float64(locateRRF+i+1)
		inPool[c.id] = true
	}
	out := slices.Clone(lex)
	counted := make(map[string]bool, len(dense))
	rank := 0
	for _, id := range dense {
		extra, isExtra := extras[id]
		if counted[id] || (!inPool[id] && !isExtra) {
			continue // a repeat, or outside the filters or the window
		}
		counted[id] = true
		if !inPool[id] {
			out = append(out, extra)
			inPool[id] = true
		}
		fused[id] += 1 / float64(locateRRF+rank+1)
		rank++
	}
	best := 0.0
	for _, f := range fused {
		best = max(best, f)
	}
	for i := range out {
		out[i].strength = fused[out[i].id] / best
	}
	return out
}

// locateRows reads the candidates among ids that pass the filter, by id.
func (v *Vine) locateRows(ctx context.Context, f locateFilter, ids []string) (map[string]locateCand, error) {
	out := map[string]locateCand{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	filter, fargs := f.sql()
	q := "SELECT " + locateColumns("m") + ", 0 FROM nodes AS m WHERE m.id IN (SELECT value FROM json_each(?))"
	if filter != "" {
		q += " AND " + filter
	}
	st, err := v.stmts.Prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, append([]any{string(list)}, fargs...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c locateCand
		if err := rows.Scan(&c.id, &c.kind, &c.typ, &c.title, &c.summary, &c.bodyTokens, &c.coverage, &c.outline, &c.rank); err != nil {
			return nil, err
		}
		out[c.id] = c
	}
	return out, rows.Err()
}
