package vine

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/envelope"
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
	pred := sniffPred(prefix, opt.TypeFilter, w)
	if scopeOf(ctx).restricted() {
		pred.where, pred.args = andScope(ctx, "nodes.id", pred.where, pred.args)
		pred.whole = false
	}
	gen, err := v.cat.Generation(ctx) // one catalog the count and the scan both speak of
	if err != nil {
		return nil, err
	}
	inScope, err := v.nodesInScope(ctx, pred, gen)
	if err != nil {
		return nil, err
	}
	scan, err := v.scanScope(ctx, pred, folded, gen, inScope)
	if err != nil {
		return nil, err
	}
	res := &SniffResult{Results: []SniffHit{}, ScannedNodes: inScope - scan.skipped}
	hits, err := v.settle(ctx, scan, v.rankSniff(ctx, scan, len(folded), k), k, folded)
	if err != nil {
		return nil, err
	}
	res.Truncated = len(hits) > k
	hits = hits[:min(k, len(hits))]
	sc := scopeOf(ctx)
	for _, h := range hits {
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
	v.storeMemo(ctx, scan)
	return res, nil
}

// nodesInScope counts the nodes pred holds; the whole forest's count is
// remembered per catalog generation (at 100,000 nodes counting them took
// milliseconds of every sniff).
func (v *Vine) nodesInScope(ctx context.Context, pred scopePred, gen int64) (int, error) {
	if !pred.whole {
		return v.stmts.count(ctx, "SELECT count(*) FROM nodes WHERE "+pred.where, pred.args...)
	}
	return v.forestSize(ctx, gen)
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

// candidate is one node in scope: the catalog facts ranking and rendering
// need, nothing read from files.
type candidate struct {
	id, typ, title, hash string
	trail                []string
	bodyTokens           int
}

// scopePred is the candidate predicate over nodes (scope, type, window):
// one SQL condition, never a per-row skip.
type scopePred struct {
	where string
	args  []any
	whole bool // every node of the forest: a scan of it can mark terms covered
}

func sniffPred(prefix, typeFilter string, w window.Window) scopePred {
	if prefix == "" && typeFilter == "" && !w.Active() {
		return scopePred{where: "1", whole: true}
	}
	scope, args := scopeIDSQL(prefix)
	win, wargs := w.SQL("nodes.")
	where := strings.ReplaceAll(scope, "id", "nodes.id") + " AND " + win
	args = append(args, wargs...)
	if typeFilter != "" {
		where += " AND nodes.type = ?"
		args = append(args, typeFilter)
	}
	return scopePred{where: where, args: args}
}

// loadCandidates reads the catalog rows of the given ids, in id order.
func (v *Vine) loadCandidates(ctx context.Context, ids []string) ([]candidate, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	out := make([]candidate, 0, len(ids))
	const q = "SELECT id, type, title, body_hash, trail, body_tokens FROM nodes " +
		"WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id"
	err = v.eachRow(ctx, q, []any{string(list)}, func(rows *sql.Rows) error {
		var c candidate
		var trail string
		if err := rows.Scan(&c.id, &c.typ, &c.title, &c.hash, &trail, &c.bodyTokens); err != nil {
			return err
		}
		c.trail, _ = catalog.ParseList(trail)
		if c.trail == nil {
			c.trail = []string{}
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lineRecord is one matching line of one term, as the memo stores it:
// [line_no, section, pos, line_text], pos in runes.
type lineRecord struct {
	Line    int
	Section *string
	Pos     int
	Text    string
}

func (l lineRecord) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{l.Line, l.Section, l.Pos, l.Text})
}

func (l *lineRecord) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 4 {
		return fmt.Errorf("line record: want 4 fields")
	}
	if err := json.Unmarshal(raw[0], &l.Line); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[1], &l.Section); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[2], &l.Pos); err != nil {
		return err
	}
	return json.Unmarshal(raw[3], &l.Text)
}

// scanBody scans a body for every term in one pass and returns, per term,
// its complete list of matching lines. Lines split as Python's splitlines
// does; a level-2 or level-3 heading sets the section.
func scanBody(body string, terms [][]rune) [][]lineRecord {
	return newBodyScanner(terms).scan(body)
}

// bodyScanner scans many bodies for one set of terms. It is not safe for
// concurrent use: each worker of a cold scan has its own, so the folded
// copy of a body reuses one buffer instead of allocating four bytes per
// character.
type bodyScanner struct {
	terms   [][]rune
	needles [][]byte // the terms as folded UTF-8
	buf     []byte
}

func newBodyScanner(terms [][]rune) *bodyScanner {
	s := &bodyScanner{terms: terms, needles: make([][]byte, len(terms))}
	for i, t := range terms {
		s.needles[i] = []byte(string(t))
	}
	return s
}

// scan answers scanBody. Most bodies hold none of the terms, so the
// quick reject runs first, as a byte search over the folded UTF-8; only a
// body that holds a term is scanned line by line.
func (s *bodyScanner) scan(body string) [][]lineRecord {
	out := make([][]lineRecord, len(s.terms))
	s.buf = appendFolded(s.buf[:0], body)
	if !s.holdsAny(s.buf) {
		return out
	}
	return s.scanLines(body, out)
}

// holdsAny reports whether folded text holds at least one of the terms.
func (s *bodyScanner) holdsAny(folded []byte) bool {
	for _, n := range s.needles {
		if bytes.Contains(folded, n) {
			return true
		}
	}
	return false
}

// scanLines is the exact scan: every line of body, every term, with the
// section each match sits in. It searches each line's folded UTF-8 for
// the folded terms; folding keeps the rune count, so a match's rune
// offset in the folded line is its position in the original. A line that
// is not valid UTF-8 is taken as its rune conversion (each bad byte one
// U+FFFD), which is what the folded bytes describe; in a valid body every
// line is valid, so only an invalid body checks its lines.
func (s *bodyScanner) scanLines(body string, out [][]lineRecord) [][]lineRecord {
	valid := utf8.ValidString(body)
	var section *string
	lineNo := 0
	forEachLine(body, func(start, end int) {
		lineNo++
		line := body[start:end]
		if !valid && !utf8.ValidString(line) {
			line = string([]rune(line))
		}
		if h, ok := sectionHeading(line); ok {
			name := strings.Clone(*h) // as text below
			section = &name
		}
		s.buf = appendFolded(s.buf[:0], line)
		text := "" // a copy, so a kept match does not keep its whole body alive
		for i, n := range s.needles {
			if j := bytes.Index(s.buf, n); j >= 0 {
				if text == "" {
					text = strings.Clone(line)
				}
				out[i] = append(out[i], lineRecord{Line: lineNo, Section: section, Pos: utf8.RuneCount(s.buf[:j]), Text: text})
			}
		}
	})
	return out
}

// forEachLine walks the lines of body as Python's str.splitlines splits
// them: at \n, \r, \v, \f, \x1c-\x1e, U+0085, U+2028 and U+2029, with "\r\n"
// one break. It gives each line's byte offsets. A byte that cannot start
// a break is passed over with one table lookup; U+0085 and U+2028-9 are
// recognised by their bytes, which no other rune's encoding contains at
// a rune boundary and which are never inside another rune.
func forEachLine(body string, fn func(start, end int)) {
	start := 0
	for i := 0; i < len(body); {
		c := body[i]
		if !mayBreak[c] {
			i++
			continue
		}
		size := 1
		switch c {
		case 0xC2: // U+0085 is C2 85
			if i+1 >= len(body) || body[i+1] != 0x85 {
				i++
				continue
			}
			size = 2
		case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 >= len(body) || body[i+1] != 0x80 || (body[i+2] != 0xA8 && body[i+2] != 0xA9) {
				i++
				continue
			}
			size = 3
		case '\r':
			if i+1 < len(body) && body[i+1] == '\n' {
				size = 2
			}
		}
		fn(start, i)
		i += size
		start = i
	}
	if start < len(body) {
		fn(start, len(body))
	}
}

// mayBreak marks the bytes a line break can start with.
var mayBreak = func() (t [256]bool) {
	for _, c := range []byte{'\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0xC2, 0xE2} {
		t[c] = true
	}
	return t
}()

// sectionHeading matches ^(#{1,6})\s+(.*?)\s*$ and keeps levels 2 and 3.
func sectionHeading(line string) (*string, bool) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level < 2 || level > 3 || level == len(line) {
		return nil, false
	}
	rest := line[level:]
	trimmed := strings.TrimLeft(rest, " \t\v\f\r")
	if len(trimmed) == len(rest) {
		return nil, false // "##x" is not a heading
	}
	text := strings.TrimRight(trimmed, " \t\v\f\r")
	return &text, true
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// alpha is the pheromone weight of ranking (Part D, default 0.3).
func (v *Vine) alpha() float64 { return 0.3 }

func renderSniffHit(h *nodeHit) SniffHit {
	out := SniffHit{ID: h.cand.id, Type: h.cand.typ, Title: h.cand.title, Trail: h.cand.trail,
		Score: h.score, Heat: h.heat, BodyTokens: h.cand.bodyTokens, MatchCount: len(h.lines),
		TruncatedMatches: len(h.lines) > maxSniffMatches, Demoted: forest.IsIndex(h.cand.id)}
	for _, l := range h.lines[:min(len(h.lines), maxSniffMatches)] {
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
	perTerm := newBodyScanner(folded).scanLines(body, make([][]lineRecord, len(folded)))
	for i, lines := range perTerm {
		h := &nodeHit{cand: candidate{id: rec.ID, typ: rec.Type, title: rec.Title, trail: rec.Trail,
			bodyTokens: rec.BodyTokens}, lines: lines}
		out[i] = renderSniffHit(h)
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
