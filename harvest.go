// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/terms"
)

// Budgets and caps of the harvest sweep (spec 05, composite retrieval,
// C.6c).
const (
	HarvestBudget          = 4000 // the whole answer
	HarvestWholeBodyTokens = 1200 // bodies up to this size are served whole
	HarvestMaxSections     = 2    // matched sections served per item
	HarvestMaxMatches      = 5    // refined matches kept per item
	HarvestDefaultK        = 3    // items when the caller names no k
	HarvestDefaultMaxK     = 5    // the operator's cap on k when none is set
	// HarvestMaxKEnv names the environment variable of the operator's cap
	// on k. The command (adapters/cli/vine) reads it and passes it to
	// SetHarvestMaxK; the library never reads the environment.
	HarvestMaxKEnv = "MONKEYLLM_HARVEST_MAX_K"
	rrfK           = 60
)

// HarvestOptions are the parameters of a harvest sweep besides the
// question.
type HarvestOptions struct {
	// Terms are the literal sniff terms; empty means derived from the
	// question with the same function locate uses.
	Terms []string
	// K is how many items to assemble; 0 means 3, capped by the
	// operator's cap (SetHarvestMaxK).
	K int
	// Since, Until and DateField window both legs (C.13).
	Since, Until, DateField string
	// IncludeSuperseded returns items that a live node supersedes,
	// annotated, instead of giving their seats to the next candidates.
	IncludeSuperseded bool
	// Hybrid is the locate leg's entry-search mode for this call only.
	Hybrid bool
	// Ranker, when set, reorders the items before the budget; Vine.Harvest
	// uses the forest's (SetRanker) when this is nil. Host-only.
	Ranker Ranker `json:"-"`
}

// HarvestResult is a harvest sweep: the question, the terms it searched
// bodies for, the ranked items, what supersession excluded, and the
// window facts.
type HarvestResult struct {
	Query              string            `json:"query"`
	Terms              []string          `json:"terms"`
	Results            []HarvestItem     `json:"results"`
	SupersededExcluded []HarvestExcluded `json:"superseded_excluded,omitempty"`
	Truncated          bool              `json:"truncated"`
	Window             *WindowEcho       `json:"window,omitempty"`
	UndatedExcluded    int               `json:"undated_excluded,omitempty"`
	Searched           *int              `json:"searched,omitempty"`
	MatchedWindow      *int              `json:"matched_window,omitempty"`
	Hint               string            `json:"hint,omitempty"`
	// Extensions name the extension that reordered the items
	// ("ext:<id>"), absent when none did (spec 11 §3).
	Extensions []string `json:"extensions,omitempty"`

	rankErr error // a ranker's failure, for the host's log
}

// HarvestItem is one piece of evidence of a harvest sweep.
type HarvestItem struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Type         string         `json:"type"`
	Trail        []string       `json:"trail"`
	Summary      string         `json:"summary"`
	Score        float64        `json:"score"`
	FoundBy      []string       `json:"found_by"`
	BodyTokens   int            `json:"body_tokens"`
	Created      string         `json:"created,omitempty"`
	Updated      string         `json:"updated,omitempty"`
	Matches      []SniffMatch   `json:"matches"`
	Content      []HarvestBlock `json:"content"`
	Supersedes   []string       `json:"supersedes,omitempty"`
	SupersededBy []string       `json:"superseded_by,omitempty"`
	Notes        string         `json:"notes,omitempty"`
}

// HarvestBlock is a piece of an item's body: the whole body (section
// null), a matched section, or, when neither fits, the outline with a
// hint.
type HarvestBlock struct {
	Section    *string  `json:"section"`
	Body       *string  `json:"body,omitempty"`
	Outline    []string `json:"outline,omitempty"`
	BodyTokens int      `json:"body_tokens"`
	Hint       string   `json:"hint,omitempty"`
}

// HarvestExcluded names a candidate that gave its seat because live
// nodes supersede it.
type HarvestExcluded struct {
	ID string   `json:"id"`
	By []string `json:"by"`
}

const harvestEmptyHint = "Nothing matched in metadata or bodies. Narrow the question to its rarest words, " +
	"or pass terms explicitly: the derived terms shown are the first suspect."

// Harvest sweeps the forest for evidence on query without a model (spec
// 05, composite retrieval, C.6c): it fuses the entry search (locate, over
// curated metadata) and the literal body search (sniff) by reciprocal
// rank, refines each hit to its rarest matching sections, serves small
// bodies whole and large ones as the matched sections, annotates time
// order and supersession, and stays inside a 4000-token wall
// (HarvestBudget) with explicit truncation. It is the "harvest"
// primitive of the signature table, served by every transport.
func (v *Vine) Harvest(ctx context.Context, query string, opt HarvestOptions) (*HarvestResult, error) {
	if opt.Ranker == nil {
		opt.Ranker = v.currentRanker()
	}
	res, err := HarvestFrom(ctx, vineReader{v}, query, opt)
	if err == nil && res.rankErr != nil {
		v.log.Warn("ranking extension failed; harvest kept its own order", "ranker", opt.Ranker.Name(), "err", res.rankErr)
	}
	return res, err
}

// HarvestFrom is Harvest through r: a scoped view that filters every read
// by a policy sweeps through it, so scope filtering happens before
// budgeting. HarvestEngine(v) reads the forest as Vine.Harvest does.
func HarvestFrom(ctx context.Context, r HarvestReader, query string, opt HarvestOptions) (*HarvestResult, error) {
	k, err := harvestK(opt.K)
	if err != nil {
		return nil, err
	}
	searchTerms := opt.Terms
	if len(searchTerms) == 0 {
		searchTerms = terms.Derive(query)
	}
	res := &HarvestResult{Query: query, Terms: nonNilStrings(searchTerms), Results: []HarvestItem{}}
	lg, err := runLegs(ctx, r, query, searchTerms, k, opt)
	if err != nil {
		return nil, err
	}
	cands := lg.fuse()
	if err := orderCandidates(ctx, r, cands); err != nil {
		return nil, err
	}
	seats, excluded, err := fillSeats(ctx, r, cands, k, opt.IncludeSuperseded)
	if err != nil {
		return nil, err
	}
	res.SupersededExcluded = excluded
	res.Results = buildItems(ctx, r, seats, searchTerms)
	if err := annotateSupersession(ctx, r, seats, res.Results, opt.IncludeSuperseded); err != nil {
		return nil, err
	}
	lg.windowFacts(res)
	if ranked, changed, err := rerank(ctx, opt.Ranker, query, res.Results); err != nil {
		res.rankErr = err
	} else if changed {
		res.Results = ranked
		res.Extensions = []string{opt.Ranker.Name()}
		sharesOf(ctx).addExtension(opt.Ranker.Name())
	}
	if budget.ShrinkTail(&res.Results, HarvestBudget, func() any { return res }) > 0 {
		res.Truncated = true
	}
	if len(res.Results) == 0 {
		lg.emptyFacts(res)
	}
	return res, nil
}

// harvestK is min(max(1, k), cap); a cap that is not an integer >= 1
// is refused, never rounded or defaulted.
func harvestK(k int) (int, error) {
	limit, err := parseHarvestMaxK()
	if err != nil {
		return 0, err
	}
	if k == 0 {
		k = HarvestDefaultK
	}
	return min(max(1, k), limit), nil
}

// harvestCandidate is a fused hit with what the legs said of it.
type harvestCandidate struct {
	id    string
	score float64
	loc   *LocateHit
	sniff *SniffHit
	rec   catalog.Record // the node's row (no edges), read once for all candidates
	found bool           // rec was read
	in    []catalog.InEdge
	inOK  bool // in was read
}

// inEdges reads the candidate's in-edges once: seating and annotating
// both need them.
func (c *harvestCandidate) inEdges(ctx context.Context, r HarvestReader) ([]catalog.InEdge, error) {
	if c.inOK {
		return c.in, nil
	}
	in, err := r.InEdges(ctx, c.id)
	if err != nil {
		return nil, err
	}
	c.in, c.inOK = in, true
	return in, nil
}

type harvestLegs struct {
	loc   *LocateResult
	sniff *SniffResult
}

// runLegs runs locate and sniff side by side: they share nothing, and
// a sweep's latency is then the slower leg's, not their sum. A refusal
// of locate is reported before one of sniff.
func runLegs(ctx context.Context, r HarvestReader, query string, searchTerms []string, k int, opt HarvestOptions) (*harvestLegs, error) {
	l := &harvestLegs{}
	var locErr, sniffErr error
	var wg sync.WaitGroup
	if len(searchTerms) > 0 {
		wg.Go(func() {
			l.sniff, sniffErr = r.Sniff(ctx, searchTerms, SniffOptions{K: 2 * k, Since: opt.Since, Until: opt.Until,
				DateField: opt.DateField})
		})
	}
	// Locate runs on the caller's goroutine: its stack is grown already,
	// and SQLite compiled to wasm runs deep (a new goroutine's stack is
	// copied several times on its first query).
	l.loc, locErr = r.Locate(ctx, query, LocateOptions{K: 2 * k, Since: opt.Since, Until: opt.Until,
		DateField: opt.DateField, Hybrid: opt.Hybrid})
	wg.Wait()
	if err := cmp.Or(locErr, sniffErr); err != nil {
		return nil, err
	}
	return l, nil
}

// fuse is reciprocal-rank fusion (k = 60, ranks 1-based) over the two
// legs in their own orders.
func (l *harvestLegs) fuse() []*harvestCandidate {
	byID := map[string]*harvestCandidate{}
	var order []*harvestCandidate
	get := func(id string) *harvestCandidate {
		c, ok := byID[id]
		if !ok {
			c = &harvestCandidate{id: id}
			byID[id] = c
			order = append(order, c)
		}
		return c
	}
	for i := range l.loc.Results {
		c := get(l.loc.Results[i].ID)
		c.loc = &l.loc.Results[i]
		c.score += 1.0 / float64(rrfK+i+1)
	}
	if l.sniff != nil {
		for i := range l.sniff.Results {
			c := get(l.sniff.Results[i].ID)
			c.sniff = &l.sniff.Results[i]
			c.score += 1.0 / float64(rrfK+i+1)
		}
	}
	return order
}

// orderCandidates sorts by fused score, then newer first (updated, then
// created, as stored strings; undated is oldest), then id.
func orderCandidates(ctx context.Context, r HarvestReader, cands []*harvestCandidate) error {
	if err := candidateDates(ctx, r, cands); err != nil {
		return err
	}
	slices.SortStableFunc(cands, func(a, b *harvestCandidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(b.rec.Updated, a.rec.Updated),
			strings.Compare(b.rec.Created, a.rec.Created), strings.Compare(a.id, b.id))
	})
	return nil
}

// candidateDates reads the candidates' rows, in one read when the HarvestReader
// offers Records: their dates order the candidates, and the rows serve
// the items built from them.
func candidateDates(ctx context.Context, r HarvestReader, cands []*harvestCandidate) error {
	if rr, ok := r.(recordsReader); ok {
		ids := make([]string, len(cands))
		for i, c := range cands {
			ids[i] = c.id
		}
		recs, err := rr.Records(ctx, ids)
		if err != nil {
			return err
		}
		for _, c := range cands {
			c.rec, c.found = recs[c.id]
		}
		return nil
	}
	for _, c := range cands {
		rec, err := r.Record(ctx, c.id)
		if err != nil {
			return err
		}
		c.rec, c.found = rec, true
	}
	return nil
}

// fillSeats takes candidates in order; one that a live node supersedes
// gives its seat to the next (unless history was asked for).
func fillSeats(ctx context.Context, r HarvestReader, cands []*harvestCandidate, k int, keepSuperseded bool) ([]*harvestCandidate, []HarvestExcluded, error) {
	var seats []*harvestCandidate
	var excluded []HarvestExcluded
	for _, c := range cands {
		if len(seats) == k {
			break
		}
		if !keepSuperseded {
			by, err := supersessors(ctx, r, c)
			if err != nil {
				return nil, nil, err
			}
			if len(by) > 0 {
				excluded = append(excluded, HarvestExcluded{ID: c.id, By: by})
				continue
			}
		}
		seats = append(seats, c)
	}
	return seats, excluded, nil
}

// supersessors are the live nodes declaring `supersedes` toward id: the
// catalog deletes a node's edges with it, so an edge present is live.
func supersessors(ctx context.Context, r HarvestReader, c *harvestCandidate) ([]string, error) {
	in, err := c.inEdges(ctx, r)
	if err != nil {
		return nil, err
	}
	var by []string
	for _, e := range in {
		if e.Rel == "supersedes" {
			by = append(by, e.Src)
		}
	}
	slices.Sort(by)
	return slices.Compact(by), nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// harvestSignature is harvest's entry in the signature table.
var harvestSignature = Signature{
	Name: "harvest",
	Doc: "One-call evidence for a question, without a model: entry search and body search fused, small bodies " +
		"whole, large ones as their matched sections, newest first on ties, replaced nodes left out. " +
		"Budget 4000 tokens; k items (default 3, capped by the server).",
	Budget: HarvestBudget,
	Params: []Param{
		{Name: "query", Type: TString, Required: true, Doc: "the question"},
		{Name: "terms", Type: TStringList, Doc: "literal body-search terms; default derived from the question"},
		{Name: "k", Type: TInteger, Default: HarvestDefaultK, Doc: "items, capped by the server"},
		{Name: "since", Type: TString, Doc: "window start: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "until", Type: TString, Doc: "window end: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "date_field", Type: TString, Default: "created", Doc: "created or updated"},
		{Name: "include_superseded", Type: TBoolean, Default: false, Doc: "keep replaced nodes, annotated"},
		{Name: "hybrid", Type: TBoolean, Default: false, Doc: "fuse the vector leg into entry search for this call"},
	},
	ReadOnly: true, Idempotent: true,
}

func init() { register(primitive{sig: harvestSignature, run: runHarvest}) }

func runHarvest(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Harvest(ctx, a.String("query"), HarvestOptions{
		Terms: a.Strings("terms"), K: max(1, a.Int("k")), Since: a.String("since"), Until: a.String("until"),
		DateField: a.String("date_field"), IncludeSuperseded: a.Bool("include_superseded"), Hybrid: a.Bool("hybrid"),
	})
}

// NodeIDs lists the items' ids in order (IDLister), so the engine's
// observer sees what a sweep returned.
func (r *HarvestResult) NodeIDs() []string {
	ids := make([]string, len(r.Results))
	for i, it := range r.Results {
		ids[i] = it.ID
	}
	return ids
}
