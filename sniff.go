// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/sniff"
	"github.com/monkeyllm/vine/internal/window"
)

// Limits of sniff (C.6b).
const (
	BudgetSniff       = 800
	maxSniffTerms     = 8
	maxSniffK         = 20
	maxSniffMatches   = 3
	sniffSnippetChars = 100
)

// SniffOptions are the wire options of sniff besides the terms.
type SniffOptions struct {
	Scope      string // a branch (x, x/, x/_index), a leaf id, or "" for the whole forest
	K          int    // results, clamped to [1, 20]; 0 means 5
	TypeFilter string
	Since      string
	Until      string
	DateField  string
}

// SniffResult answers sniff: hits best first, how many nodes were covered,
// and the window facts when a window was given.
type SniffResult struct {
	Results         []SniffHit   `json:"results"`
	ScannedNodes    int          `json:"scanned_nodes"`
	Truncated       bool         `json:"truncated"`
	Window          *window.Echo `json:"window,omitempty"`
	UndatedExcluded int          `json:"undated_excluded,omitempty"`
	Searched        *int         `json:"searched,omitempty"`
	MatchedWindow   *int         `json:"matched_window,omitempty"`
	Hint            string       `json:"hint,omitempty"`
}

func (r *SniffResult) nodeIDs() []string {
	ids := make([]string, len(r.Results))
	for i, h := range r.Results {
		ids[i] = h.ID
	}
	return ids
}

// SniffHit is one node whose body holds the terms.
type SniffHit struct {
	ID               string       `json:"id"`
	Type             string       `json:"type"`
	Title            string       `json:"title"`
	Trail            []string     `json:"trail"`
	Score            float64      `json:"score"`
	Heat             float64      `json:"heat"`
	BodyTokens       int          `json:"body_tokens"`
	MatchCount       int          `json:"match_count"`
	TruncatedMatches bool         `json:"truncated_matches"`
	Matches          []SniffMatch `json:"matches"`
	Demoted          bool         `json:"demoted,omitempty"`
}

// SniffMatch is one matching line: its section (null before the first
// H2/H3), its 1-based number in the body, and a snippet centred on the
// leftmost hit.
type SniffMatch struct {
	Section *string `json:"section"`
	Line    int     `json:"line"`
	Snippet string  `json:"snippet"`
}

// Sniff is the literal body search (C.6b): every node body in scope is
// scanned for the terms (folded, so case and diacritics never matter; a
// term with a space is a phrase), one match per line, and nodes are ranked
// by strength × density × (1 + α·heat), index nodes after content nodes.
// Metadata is never searched; that is locate. The answer fits 800 tokens.
func (v *Vine) Sniff(ctx context.Context, terms []string, opt SniffOptions) (*SniffResult, error) {
	folded, err := sniffTerms(terms)
	if err != nil {
		return nil, err
	}
	w, err := window.Parse(opt.Since, opt.Until, opt.DateField)
	if err != nil {
		return nil, err
	}
	prefix, _, err := scopePrefix(ctx, v.cat, opt.Scope)
	if err != nil {
		return nil, err
	}
	k := opt.K
	if k == 0 {
		k = 5
	}
	k = min(max(k, 1), maxSniffK)
	scope := sniffScope(prefix, opt.TypeFilter, w)
	if scopeOf(ctx).restricted() {
		scope.Where, scope.Args = andScope(ctx, "nodes.id", scope.Where, scope.Args)
		scope.Whole = false
	}
	ans, err := v.sniffer.Find(v.heat.ask(ctx, terms), scope, folded, k)
	if err != nil {
		return nil, err
	}
	res := &SniffResult{Results: make([]SniffHit, 0, len(ans.Hits)), // never nil: "results": []
		ScannedNodes: ans.Scanned, Truncated: ans.Truncated}
	sc := scopeOf(ctx)
	for _, h := range ans.Hits {
		hit := renderSniffHit(h)
		hit.Trail = sc.scrub(hit.Trail)
		res.Results = append(res.Results, hit)
	}
	if w.Active() {
		if err := v.sniffWindowFacts(ctx, res, w, prefix); err != nil {
			return nil, err
		}
	}
	if budget.ShrinkTail(&res.Results, BudgetSniff, func() any { return res }) > 0 {
		res.Truncated = true
	}
	v.sniffer.Remember(ctx, ans)
	return res, nil
}

// sniffTerms folds and trims each term; 1 to 8 terms of at least two
// characters.
func sniffTerms(terms []string) ([][]rune, error) {
	if len(terms) == 0 || len(terms) > maxSniffTerms {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("sniff: parameter 'terms' takes 1 to %d terms, got %d", maxSniffTerms, len(terms)),
			"pass the rare exact words to find in bodies, e.g. [\"ERR-7731\"]")
	}
	out := make([][]rune, len(terms))
	for i, t := range terms {
		f := []rune(strings.TrimSpace(Fold(t)))
		if len(f) < 2 {
			return nil, envelope.New(envelope.Schema,
				fmt.Sprintf("sniff: term %q is shorter than two characters", t),
				"sniff matches literal text; give at least two characters per term")
		}
		out[i] = f
	}
	return out, nil
}

// sniffScope is the engine's candidate predicate for a scope prefix, a
// type filter and a window.
func sniffScope(prefix, typeFilter string, w window.Window) sniff.Scope {
	if prefix == "" && typeFilter == "" && !w.Active() {
		return sniff.WholeForest
	}
	scope, args := scopeIDSQL(prefix)
	win, wargs := w.SQL("nodes.")
	where := strings.ReplaceAll(scope, "id", "nodes.id") + " AND " + win
	args = append(args, wargs...)
	if typeFilter != "" {
		where += " AND nodes.type = ?"
		args = append(args, typeFilter)
	}
	return sniff.Scope{Where: where, Args: args}
}

// renderSniffHit is a hit on the wire: its first matches with snippets.
func renderSniffHit(h sniff.Hit) SniffHit {
	out := SniffHit{ID: h.ID, Type: h.Type, Title: h.Title, Trail: h.Trail,
		Score: h.Score, Heat: h.Heat, BodyTokens: h.BodyTokens, MatchCount: len(h.Lines),
		TruncatedMatches: len(h.Lines) > maxSniffMatches, Demoted: forest.IsIndex(h.ID)}
	for _, l := range h.Lines[:min(len(h.Lines), maxSniffMatches)] {
		out.Matches = append(out.Matches, SniffMatch{Section: l.Section, Line: l.Line, Snippet: snippet(l.Text, l.Pos)})
	}
	return out
}

// snippet is ~25 tokens of the line around pos (runes): the whole trimmed
// line when it fits 100 characters, else a window with ellipses. It
// slices the line by rune offsets instead of converting it to runes:
// lines can be paragraphs, and every rendered match takes a snippet.
func snippet(line string, pos int) string {
	line = strings.TrimRight(line, " \t\r\n\v\f")
	n := utf8.RuneCountInString(line)
	if n <= sniffSnippetChars {
		return strings.TrimSpace(line)
	}
	start := max(0, pos-33)
	end := min(n, start+sniffSnippetChars)
	start = max(0, end-sniffSnippetChars)
	from := runeOffset(line, 0, start)
	to := runeOffset(line, from, end-start)
	s := strings.TrimSpace(line[from:to])
	if start > 0 {
		s = "…" + s
	}
	if end < n {
		s += "…"
	}
	return s
}

// runeOffset is the byte offset in s of the rune count runes after byte
// offset from.
func runeOffset(s string, from, count int) int {
	i := from
	for ; count > 0 && i < len(s); count-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// sniffBody reads the body sniff scans: the file is split without
// decoding its YAML unless the frontmatter carries a content: marker, in
// which case the backing body is resolved (G.7). Unreadable or
// unreachable bodies answer ok=false and are skipped silently.
func (v *Vine) sniffBody(id string) (string, bool) {
	p, err := v.root.TrustedPath(id)
	if err != nil {
		return "", false
	}
	data, err := forest.ReadFile(p)
	if err != nil {
		return "", false
	}
	yamlBlock, body, err := forest.Split(id, data)
	if err != nil {
		return "", false
	}
	if !strings.Contains(yamlBlock, "content:") {
		return body, true
	}
	n, err := v.parse(id, data)
	if err != nil {
		return "", false
	}
	switch n.Content() {
	case "cached":
		body, err = v.files.cachedBody(id)
	case "reference":
		body, err = v.files.referenceBody(id, n.Front.String("source_path"))
	}
	return body, err == nil
}

// sniffWindowFacts adds the window echo, undated_excluded, and on an empty
// answer the C.13.2 explanation.
func (v *Vine) sniffWindowFacts(ctx context.Context, res *SniffResult, w window.Window, prefix string) error {
	echo := w.Echo()
	res.Window = &echo
	undated, err := undatedCount(ctx, &v.stmts, w, prefix)
	if err != nil {
		return err
	}
	res.UndatedExcluded = undated
	if len(res.Results) > 0 {
		return nil
	}
	searched, err := v.stmts.count(ctx, "SELECT count(*) FROM nodes")
	if err != nil {
		return err
	}
	matched, hint, err := windowFacts(ctx, &v.stmts).Empty(ctx, w)
	if err != nil {
		return err
	}
	res.Searched, res.MatchedWindow, res.Hint = &searched, &matched, hint
	return nil
}

// ---- wire ----

var sniffSignature = Signature{
	Name: "sniff",
	Doc: "Literal search over node bodies (never metadata): returns nodes with the section, line and snippet of " +
		"each match. Use it for rare exact terms (codes, names, numbers); use locate for concepts. Budget 800 tokens.",
	Budget: BudgetSniff,
	Params: []Param{
		{Name: "terms", Type: TStringOrList, Required: true, Doc: "1-8 literal terms; a space inside a term makes a phrase"},
		{Name: "scope", Type: TString, Doc: "a branch (x, x/ or x/_index) or a node id; default the whole forest"},
		{Name: "k", Type: TInteger, Default: 5, Doc: "results, 1-20"},
		{Name: "type_filter", Type: TString, Doc: "only nodes of this type"},
		{Name: "since", Type: TString, Doc: "window start: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "until", Type: TString, Doc: "window end: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "date_field", Type: TString, Default: "created", Doc: "created or updated"},
	},
	ReadOnly: true, Idempotent: true,
}

func init() { register(primitive{sig: sniffSignature, run: runSniff}) }

func runSniff(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Sniff(ctx, a.Strings("terms"), SniffOptions{
		Scope: a.String("scope"), K: a.Int("k"), TypeFilter: a.String("type_filter"),
		Since: a.String("since"), Until: a.String("until"), DateField: a.String("date_field"),
	})
}

// SniffEach answers, for one node and each term on its own, what
// sniff([term], scope=id, k=1) would return about that node — its match
// count and first matches — from a single read of the body. A term with
// no match in the body gives a hit with MatchCount 0. Composites that
// refine one node term by term (harvest) use it instead of one scan per
// term.
func (v *Vine) SniffEach(ctx context.Context, id string, terms []string) ([]SniffHit, error) {
	folded, err := sniffTerms(terms)
	if err != nil {
		return nil, err
	}
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	body, ok := v.sniffBody(rec.ID)
	if !ok {
		return nil, notFound(id)
	}
	return sniffEach(rec, body, folded), nil
}

// sniffEach scans body, the node's of rec, once for every folded term.
func sniffEach(rec catalog.Record, body string, folded [][]rune) []SniffHit {
	out := make([]SniffHit, len(folded))
	// No quick reject: a node asked for by id is scanned line by line anyway.
	for i, lines := range sniff.ScanLines(body, folded) {
		out[i] = renderSniffHit(sniff.Hit{ID: rec.ID, Type: rec.Type, Title: rec.Title, Trail: rec.Trail,
			BodyTokens: rec.BodyTokens, Lines: lines})
		out[i].Matches = nonNilSniffMatches(out[i].Matches)
	}
	return out
}

func nonNilSniffMatches(m []SniffMatch) []SniffMatch {
	if m == nil {
		return []SniffMatch{}
	}
	return m
}
