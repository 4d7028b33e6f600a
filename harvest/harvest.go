// SPDX-License-Identifier: Apache-2.0

package harvest

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/terms"
)

// Budgets and caps of the sweep (C.6c).
const (
	Budget          = 4000 // the whole answer
	WholeBodyTokens = 1200 // bodies up to this size are served whole
	MaxSections     = 2    // matched sections served per item
	MaxMatches      = 5    // refined matches kept per item
	DefaultK        = 3
	DefaultMaxK     = 5
	// MaxKEnv names the environment variable of the operator's cap on
	// k. The command (adapters/cli/vine) reads it and passes it to
	// SetMaxK; this package never reads the environment.
	MaxKEnv = "MONKEYLLM_HARVEST_MAX_K"
	rrfK    = 60
)

// Options are the parameters of a sweep besides the question.
type Options struct {
	// Terms are the literal sniff terms; empty means derived from the
	// question with the same function locate uses.
	Terms []string
	// K is how many items to assemble; 0 means 3, capped by the
	// operator's cap (SetMaxK).
	K int
	// Since, Until and DateField window both legs (C.13).
	Since, Until, DateField string
	// IncludeSuperseded returns items that a live node supersedes,
	// annotated, instead of giving their seats to the next candidates.
	IncludeSuperseded bool
	// Hybrid is the locate leg's entry-search mode for this call only.
	Hybrid bool
}

// Result is a sweep: the question, the terms it searched bodies for, the
// ranked items, what supersession excluded, and the window facts.
type Result struct {
	Query              string           `json:"query"`
	Terms              []string         `json:"terms"`
	Results            []Item           `json:"results"`
	SupersededExcluded []Excluded       `json:"superseded_excluded,omitempty"`
	Truncated          bool             `json:"truncated"`
	Window             *vine.WindowEcho `json:"window,omitempty"`
	UndatedExcluded    int              `json:"undated_excluded,omitempty"`
	Searched           *int             `json:"searched,omitempty"`
	MatchedWindow      *int             `json:"matched_window,omitempty"`
	Hint               string           `json:"hint,omitempty"`
}

// Item is one piece of evidence.
type Item struct {
	ID           string            `json:"id"`
	Title        string            `json:"title"`
	Type         string            `json:"type"`
	Trail        []string          `json:"trail"`
	Summary      string            `json:"summary"`
	Score        float64           `json:"score"`
	FoundBy      []string          `json:"found_by"`
	BodyTokens   int               `json:"body_tokens"`
	Created      string            `json:"created,omitempty"`
	Updated      string            `json:"updated,omitempty"`
	Matches      []vine.SniffMatch `json:"matches"`
	Content      []Block           `json:"content"`
	Supersedes   []string          `json:"supersedes,omitempty"`
	SupersededBy []string          `json:"superseded_by,omitempty"`
	Notes        string            `json:"notes,omitempty"`
}

// Block is a piece of an item's body: the whole body (section null), a
// matched section, or, when neither fits, the outline with a hint.
type Block struct {
	Section    *string  `json:"section"`
	Body       *string  `json:"body,omitempty"`
	Outline    []string `json:"outline,omitempty"`
	BodyTokens int      `json:"body_tokens"`
	Hint       string   `json:"hint,omitempty"`
}

// Excluded names a candidate that gave its seat because live nodes
// supersede it.
type Excluded struct {
	ID string   `json:"id"`
	By []string `json:"by"`
}

const emptyHint = "Nothing matched in metadata or bodies. Narrow the question to its rarest words, " +
	"or pass terms explicitly: the derived terms shown are the first suspect."

// Harvest sweeps the forest for evidence on query (C.6c).
func Harvest(ctx context.Context, r Reader, query string, opt Options) (*Result, error) {
	k, err := effectiveK(opt.K)
	if err != nil {
		return nil, err
	}
	searchTerms := opt.Terms
	if len(searchTerms) == 0 {
		searchTerms = terms.Derive(query)
	}
	res := &Result{Query: query, Terms: nonNil(searchTerms), Results: []Item{}}
	legs, err := runLegs(ctx, r, query, searchTerms, k, opt)
	if err != nil {
		return nil, err
	}
	cands := legs.fuse()
	if err := orderCandidates(ctx, r, cands); err != nil {
		return nil, err
	}
	seats, excluded, err := fillSeats(ctx, r, cands, k, opt.IncludeSuperseded)
	if err != nil {
		return nil, err
	}
	res.SupersededExcluded = excluded
	res.Results = buildItems(ctx, r, seats, searchTerms)
	if err := annotate(ctx, r, seats, res.Results, opt.IncludeSuperseded); err != nil {
		return nil, err
	}
	legs.windowFacts(res)
	if budget.ShrinkTail(&res.Results, Budget, func() any { return res }) > 0 {
		res.Truncated = true
	}
	if len(res.Results) == 0 {
		legs.emptyFacts(res)
	}
	return res, nil
}

// effectiveK is min(max(1, k), cap); a cap that is not an integer >= 1
// is refused, never rounded or defaulted.
func effectiveK(k int) (int, error) {
	limit, err := maxK()
	if err != nil {
		return 0, err
	}
	if k == 0 {
		k = DefaultK
	}
	return min(max(1, k), limit), nil
}

// candidate is a fused hit with what the legs said of it.
type candidate struct {
	id    string
	score float64
	loc   *vine.LocateHit
	sniff *vine.SniffHit
	rec   catalog.Record // the node's row (no edges), read once for all candidates
	found bool           // rec was read
	in    []catalog.InEdge
	inOK  bool // in was read
}

// inEdges reads the candidate's in-edges once: seating and annotating
// both need them.
func (c *candidate) inEdges(ctx context.Context, r Reader) ([]catalog.InEdge, error) {
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

type legs struct {
	loc   *vine.LocateResult
	sniff *vine.SniffResult
}

// runLegs runs locate and sniff side by side: they share nothing, and
// a sweep's latency is then the slower leg's, not their sum. A refusal
// of locate is reported before one of sniff.
func runLegs(ctx context.Context, r Reader, query string, searchTerms []string, k int, opt Options) (*legs, error) {
	l := &legs{}
	var locErr, sniffErr error
	var wg sync.WaitGroup
	if len(searchTerms) > 0 {
		wg.Go(func() {
			l.sniff, sniffErr = r.Sniff(ctx, searchTerms, vine.SniffOptions{K: 2 * k, Since: opt.Since, Until: opt.Until,
				DateField: opt.DateField})
		})
	}
	// Locate runs on the caller's goroutine: its stack is grown already,
	// and SQLite compiled to wasm runs deep (a new goroutine's stack is
	// copied several times on its first query).
	l.loc, locErr = r.Locate(ctx, query, vine.LocateOptions{K: 2 * k, Since: opt.Since, Until: opt.Until,
		DateField: opt.DateField, Hybrid: opt.Hybrid})
	wg.Wait()
	if err := cmp.Or(locErr, sniffErr); err != nil {
		return nil, err
	}
	return l, nil
}

// fuse is reciprocal-rank fusion (k = 60, ranks 1-based) over the two
// legs in their own orders.
func (l *legs) fuse() []*candidate {
	byID := map[string]*candidate{}
	var order []*candidate
	get := func(id string) *candidate {
		c, ok := byID[id]
		if !ok {
			c = &candidate{id: id}
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
func orderCandidates(ctx context.Context, r Reader, cands []*candidate) error {
	if err := candidateDates(ctx, r, cands); err != nil {
		return err
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(b.rec.Updated, a.rec.Updated),
			strings.Compare(b.rec.Created, a.rec.Created), strings.Compare(a.id, b.id))
	})
	return nil
}

// candidateDates reads the candidates' rows, in one read when the Reader
// offers Records: their dates order the candidates, and the rows serve
// the items built from them.
func candidateDates(ctx context.Context, r Reader, cands []*candidate) error {
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
func fillSeats(ctx context.Context, r Reader, cands []*candidate, k int, keepSuperseded bool) ([]*candidate, []Excluded, error) {
	var seats []*candidate
	var excluded []Excluded
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
				excluded = append(excluded, Excluded{ID: c.id, By: by})
				continue
			}
		}
		seats = append(seats, c)
	}
	return seats, excluded, nil
}

// supersessors are the live nodes declaring `supersedes` toward id: the
// catalog deletes a node's edges with it, so an edge present is live.
func supersessors(ctx context.Context, r Reader, c *candidate) ([]string, error) {
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

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
