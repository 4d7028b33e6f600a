// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/window"
)

// Scan budgets (C.6): whichever cuts first.
const (
	scanBudget   = 800
	scanMaxItems = 50
)

// scanFieldSet is the stated set of scan fields (C.6, v0.54; origin and
// lang per §16), in the specification's order.
var scanFieldSet = []string{"id", "kind", "type", "title", "summary", "tags", "aliases", "created",
	"updated", "confidence", "source", "entity_kind", "payload_type", "parent", "trail", "coverage",
	"body_tokens", "outline", "heat", "origin", "lang"}

// scanDefaultFields is the projection when fields is absent or empty.
var scanDefaultFields = []string{"id", "type", "summary", "body_tokens"}

// ScanOptions are the wire parameters of Scan other than parent_id.
type ScanOptions struct {
	// Filter narrows the listing; every key must hold (AND). See ScanFilter.
	Filter ScanFilter

	// Fields is the projection, from the stated set id, kind, type, title,
	// summary, tags, aliases, created, updated, confidence, source,
	// entity_kind, payload_type, parent, trail, coverage, body_tokens,
	// outline, heat, origin, lang. Empty means id, type, summary,
	// body_tokens. id is always emitted.
	Fields []string

	// Recursive lists every node under the branch instead of its direct
	// children.
	Recursive bool

	// Limit is clamped to [1, 50]; 0 means 50.
	Limit int

	// After switches to enumeration (C.6.2): nodes in byte-wise id order
	// strictly after *After; a pointer to "" starts at the beginning. Nil
	// lists by heat.
	After *string

	// Gauntlet and Toward ask for Part K ranking of the listing. Without
	// After, a ranked listing is the default once the dense layer is ready
	// (an embedder and an index built by the same model): the whole scope
	// is ordered by proximity to the goal — Toward, or the session's
	// latest locate query — heat breaking near-ties, before the limit and
	// the budget, and the response carries a frontier. Gauntlet false opts
	// out. Without a ready layer they change nothing: the order stays heat
	// then id, byte for byte what the call answers without them (K.1).
	// Combined with After they are refused (E_SCHEMA): an enumeration has
	// one order, and a ranked page cannot be resumed.
	Gauntlet *bool
	Toward   string

	// Since, Until and DateField are the window of C.13.
	Since, Until, DateField string
}

// ScanFilter narrows a scan; all keys must hold. Keys and the value each
// takes (what JSON decodes to; nil means the key is absent):
//
//   - id, kind, type, title, summary, created, updated, source,
//     entity_kind, payload_type, parent, coverage, origin, lang: a string,
//     equal to the stored value (kind in its wire spelling, note|branch;
//     a node without the value never matches);
//   - tags, aliases, trail, outline: a list of strings, equal as a list;
//   - confidence: a number; body_tokens: an integer;
//   - tags_any: a list of strings, at least one shared with the node's tags;
//   - updated_after, created_after (>=) and updated_before (<=): a string,
//     compared as plain text, so updated_before "2026-03-01" excludes
//     "2026-03-01T10:00"; an empty date never matches;
//   - min_confidence: a number, confidence >= it;
//   - origin_prefix: a string the node's origin starts with.
//
// Numbers may be float64, json.Number or any Go integer; lists []string or
// []any of strings.
type ScanFilter map[string]any

// ScanResult is the answer of Scan. Meta fields are present on every
// response: Total counts the whole scope before cursor, limit and budget.
type ScanResult struct {
	Nodes     []ScanItem `json:"nodes"`
	Truncated bool       `json:"truncated"`
	// Frontier is set when the Gauntlet ordered the listing.
	Frontier *Frontier   `json:"frontier,omitempty"`
	Window   *WindowEcho `json:"window,omitempty"`
	Total    int         `json:"total"`
	Returned int         `json:"returned"`
	// Next is the cursor of the following page: only in enumeration mode
	// and only when this page left something.
	Next string `json:"next,omitempty"`
	// UndatedExcluded counts the forest's nodes without the window's date
	// (windowed calls, only when > 0).
	UndatedExcluded int `json:"undated_excluded,omitempty"`
	// MatchedWindow and Hint explain an empty windowed listing (C.13.2).
	MatchedWindow *int   `json:"matched_window,omitempty"`
	Hint          string `json:"hint,omitempty"`
}

func (r *ScanResult) nodeIDs() []string {
	ids := make([]string, len(r.Nodes))
	for i, n := range r.Nodes {
		ids[i] = n.ID
	}
	return ids
}

// ScanItem is one listed node. Only the requested fields are set and
// emitted, in the order they were requested after id; System marks _meta
// nodes, which belong to no branch.
type ScanItem struct {
	ID          string
	Kind        string // "note" or "branch"
	Type        string
	Title       string
	Summary     string
	Tags        []string
	Aliases     []string
	Created     string
	Updated     string
	Confidence  float64
	Source      string // "" is emitted as null, as are the other optional values
	EntityKind  string
	PayloadType string
	Parent      string
	Trail       []string
	Coverage    IndexCoverage
	BodyTokens  int
	Outline     []string
	Heat        float64
	Origin      string
	Lang        string
	System      bool

	fields []string // the projection, id excluded, in emission order
}

// IndexCoverage is a branch index's coverage line: parsed into counts when
// it reads "<N> bananas, <M> sub-branches", otherwise kept raw.
type IndexCoverage struct {
	Notes    int    `json:"notes"`
	Branches int    `json:"branches"`
	Raw      string `json:"-"` // the stored text; "" when the node has none
	Parsed   bool   `json:"-"`
}

// MarshalJSON renders the counts when the line parsed and the raw text
// otherwise.
func (c IndexCoverage) MarshalJSON() ([]byte, error) {
	if c.Parsed {
		return fmt.Appendf(nil, `{"notes":%d,"branches":%d}`, c.Notes, c.Branches), nil
	}
	return scanMarshal(c.Raw)
}

// Fields returns the projection the item carries, id first.
func (it ScanItem) Fields() []string { return append([]string{"id"}, it.fields...) }

// MarshalJSON emits id, the requested fields in request order, then
// system when set. Requested optional values without a value are null;
// a coverage that is absent is left out rather than served as "".
func (it ScanItem) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 128)
	b = append(b, `{"id":`...)
	b = scanAppendString(b, it.ID)
	for _, f := range it.fields {
		if f == "coverage" && !it.Coverage.Parsed && it.Coverage.Raw == "" {
			continue
		}
		b = append(b, ',', '"')
		b = append(b, f...)
		b = append(b, '"', ':')
		b = it.appendValue(b, f)
	}
	if it.System {
		b = append(b, `,"system":true`...)
	}
	return append(b, '}'), nil
}

// appendValue appends the wire value of one field. Items are rendered
// several times per call by the budget, so this writes JSON directly
// rather than through reflection.
func (it ScanItem) appendValue(b []byte, f string) []byte {
	orNull := func(s string) []byte {
		if s == "" {
			return append(b, "null"...)
		}
		return scanAppendString(b, s)
	}
	switch f {
	case "kind":
		return scanAppendString(b, it.Kind)
	case "type":
		return scanAppendString(b, it.Type)
	case "title":
		return scanAppendString(b, it.Title)
	case "summary":
		return scanAppendString(b, it.Summary)
	case "tags":
		return scanAppendList(b, it.Tags)
	case "aliases":
		return scanAppendList(b, it.Aliases)
	case "created":
		return scanAppendString(b, it.Created)
	case "updated":
		return scanAppendString(b, it.Updated)
	case "confidence":
		return scanAppendFloat(b, it.Confidence)
	case "source":
		return orNull(it.Source)
	case "entity_kind":
		return orNull(it.EntityKind)
	case "payload_type":
		return orNull(it.PayloadType)
	case "parent":
		return orNull(it.Parent)
	case "trail":
		return scanAppendList(b, it.Trail)
	case "coverage":
		if it.Coverage.Parsed {
			return fmt.Appendf(b, `{"notes":%d,"branches":%d}`, it.Coverage.Notes, it.Coverage.Branches)
		}
		return scanAppendString(b, it.Coverage.Raw)
	case "body_tokens":
		return strconv.AppendInt(b, int64(it.BodyTokens), 10)
	case "outline":
		return scanAppendList(b, it.Outline)
	case "heat":
		return scanAppendFloat(b, it.Heat)
	case "origin":
		return orNull(it.Origin)
	case "lang":
		return orNull(it.Lang)
	}
	return append(b, "null"...)
}

// scanAppendString appends s as a JSON string, HTML left unescaped as
// the budget renders it, invalid UTF-8 replaced as encoding/json does.
func scanAppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// scanAppendList appends a list of strings; nil is [].
func scanAppendList(b []byte, l []string) []byte {
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = scanAppendString(b, s)
	}
	return append(b, ']')
}

// scanAppendFloat appends a number the way encoding/json spells it.
func scanAppendFloat(b []byte, f float64) []byte {
	raw, err := json.Marshal(f)
	if err != nil { // NaN or infinity: not a JSON number
		return append(b, '0')
	}
	return append(b, raw...)
}

// scanMarshal encodes without HTML escaping, as the budget renders.
func scanMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

var scanSignature = Signature{
	Name: "scan",
	Doc: "List a branch from the catalog without opening any file: its children, or with recursive=true " +
		"everything under it. Pick the fields, filter by metadata, page in id order with after. " +
		"total always says how many match, returned how many came back.",
	Budget: scanBudget,
	Params: []Param{
		{Name: "parent_id", Type: TString, Required: true, Doc: "a branch index id, e.g. projects/_index, or _index for the root"},
		{Name: "filter", Type: TObject, Doc: "metadata keys that must all hold, e.g. {\"type\": \"concept\", \"tags_any\": [\"tide\"]}"},
		{Name: "fields", Type: TStringList, Doc: "fields per node; default id, type, summary, body_tokens"},
		{Name: "recursive", Type: TBoolean, Default: false, Doc: "every node under the branch, not only its children"},
		{Name: "limit", Type: TInteger, Default: 50, Doc: "nodes per page, 1..50"},
		{Name: "after", Type: TString, Doc: "enumerate in id order after this id; \"\" starts at the beginning"},
		{Name: "gauntlet", Type: TBoolean, Doc: "rank the listing toward the session goal when the dense layer is ready; false opts out"},
		{Name: "toward", Type: TString, Doc: "goal text to rank toward instead of the session goal"},
		{Name: "since", Type: TString, Doc: "window start: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "until", Type: TString, Doc: "window end: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "date_field", Type: TString, Doc: "created (default) or updated"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: scanSignature, run: runScan}) }

func runScan(ctx context.Context, v *Vine, a Args) (any, error) {
	opt := ScanOptions{
		Fields:    a.Strings("fields"),
		Recursive: a.Bool("recursive"),
		Limit:     min(max(a.Int("limit"), 1), scanMaxItems),
		Toward:    a.String("toward"),
		Since:     a.String("since"),
		Until:     a.String("until"),
		DateField: a.String("date_field"),
	}
	if a.Has("after") {
		after := a.String("after")
		opt.After = &after
	}
	if a.Has("gauntlet") {
		g := a.Bool("gauntlet")
		opt.Gauntlet = &g
	}
	if raw := a.Object("filter"); raw != nil {
		f, err := decodeScanFilter(raw)
		if err != nil {
			return nil, err
		}
		opt.Filter = f
	}
	return v.Scan(ctx, a.String("parent_id"), opt)
}

// decodeScanFilter decodes wire filter values keeping numbers exact, so
// an integer key can tell 3 from 3.5.
func decodeScanFilter(raw map[string]json.RawMessage) (ScanFilter, error) {
	f := make(ScanFilter, len(raw))
	for k, rv := range raw {
		dec := json.NewDecoder(bytes.NewReader(rv))
		dec.UseNumber()
		var val any
		if err := dec.Decode(&val); err != nil {
			return nil, envelope.New(envelope.Schema,
				fmt.Sprintf("scan: filter '%s' is not valid JSON", k), "")
		}
		f[k] = val
	}
	return f, nil
}

// Scan lists a branch from the catalog (C.6) without opening any file:
// the rows whose parent is parentID, or with Recursive every node under
// the branch (for _index every node but _index, _meta/schema included; a
// leaf has no children). Without After the order is heat descending then
// id; with After it is byte-wise id order after the cursor (C.6.2).
//
// The answer fits 800 tokens and 50 nodes: nodes are dropped from the
// tail, Truncated is set, and Total, Returned and Next stay exact. A node
// too large to fit on its own is served alone with its lists and texts
// clipped, so an enumeration never stalls.
func (v *Vine) Scan(ctx context.Context, parentID string, opt ScanOptions) (*ScanResult, error) {
	fields, err := scanFields(opt.Fields)
	if err != nil {
		return nil, err
	}
	filterSQL, filterArgs, err := opt.Filter.compile()
	if err != nil {
		return nil, err
	}
	if opt.After != nil && (opt.Toward != "" || (opt.Gauntlet != nil && *opt.Gauntlet)) {
		return nil, envelope.New(envelope.Schema,
			"scan: after cannot be combined with gauntlet or toward",
			"an enumeration has one order (id) and a ranked page cannot be resumed; drop after to rank, or drop gauntlet/toward to enumerate")
	}
	w, err := window.Parse(opt.Since, opt.Until, opt.DateField)
	if err != nil {
		return nil, err
	}
	limit := opt.Limit
	if limit == 0 {
		limit = scanMaxItems
	}
	limit = min(max(limit, 1), scanMaxItems)
	rec, err := v.resolver.resolve(ctx, parentID)
	if err != nil {
		return nil, err
	}

	q := scanQuery{cacheable: filterSQL == ""}
	q.add(scanScope(rec.ID, opt.Recursive))
	sc := scopeOf(ctx)
	if sc.restricted() {
		q.add(sc.sql("id")) // before count, page and cursor: totals see only visible nodes
	}
	q.add(w.SQL(""))
	q.add(filterSQL, filterArgs)

	var g *gauntlet // an enumeration keeps its one order
	if opt.After == nil {
		g = gauntletFor(ctx, v.canopy, opt.Gauntlet, opt.Toward)
	}
	lister := scanLister{db: v.cat.DB(), stmts: &v.stmts, background: &v.background, heat: &v.heat}
	res, err := lister.list(ctx, q, fields, opt.After, limit, w, g)
	if err == nil && sc.restricted() {
		for i := range res.Nodes {
			it := &res.Nodes[i]
			if it.Trail != nil {
				it.Trail = sc.scrub(it.Trail)
			}
			if it.Aliases != nil {
				it.Aliases = sc.visibleAliases(it.Aliases, nil)
			}
			if it.Coverage.Parsed { // declared counts include hidden children
				if it.Coverage.Notes, it.Coverage.Branches, err = v.visibleCoverage(ctx, it.ID); err != nil {
					return nil, err
				}
			}
		}
	}
	return res, err
}

// scanLister reads scan pages from the catalog: each page's count, ids
// and rows come from one read transaction, through the statement cache
// when the query text has few shapes, ranked by heat.
type scanLister struct {
	db         *sql.DB
	stmts      *stmtCache
	background *sync.WaitGroup // statements prepared for the next scan
	heat       *heatLayer
}

// list reads one page of the candidates q selects, count, page and
// rows from one snapshot: ranked by heat (by the Gauntlet when g is not
// nil), or after the cursor when after is set.
func (l scanLister) list(ctx context.Context, q scanQuery, fields []string, after *string, limit int, w window.Window, g *gauntlet) (*ScanResult, error) {
	tx, err := l.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // read-only: nothing to commit
	res := &ScanResult{}
	var ids []string
	var heat map[string]float64
	if after != nil {
		ids, res.Total, err = l.cursorIDs(ctx, tx, q, *after, limit+1)
	} else {
		ids, res.Total, heat, err = l.rankedIDs(ctx, tx, q, g)
	}
	if err != nil {
		return nil, err
	}
	more := len(ids) > limit
	ids = ids[:min(limit, len(ids))]
	if after != nil && slices.Contains(fields, "heat") {
		heat = l.heat.read(ctx, ids)
	}
	if g != nil {
		res.Frontier = frontierOf(g)
	}
	if w.Active() {
		if err := l.windowFacts(ctx, w, res); err != nil {
			return nil, err
		}
	}
	res.provision(ids, more, after != nil)
	items, overflow, err := l.load(ctx, tx, res, ids, fields, heat)
	if err != nil {
		return nil, err
	}
	res.settle(items, overflow, len(ids), more, after != nil)
	return res, nil
}

// provision sets the meta fields to their final size before the budget
// cut (C.6.2): returned as the pre-cut count, next as the longest id on
// the page, so fixing their values afterwards never breaks the ceiling.
func (r *ScanResult) provision(ids []string, more, cursor bool) {
	r.Truncated, r.Returned = more, len(ids)
	if cursor {
		for _, id := range ids {
			if len(id) > len(r.Next) {
				r.Next = id
			}
		}
	}
}

// settle takes the items that fit and fixes the meta fields: next is the
// last id returned, only in cursor mode and only when the page left
// something. A first item too large alone is served clipped.
func (r *ScanResult) settle(items []ScanItem, overflow *ScanItem, page int, more, cursor bool) {
	r.Nodes = items
	if len(items) == 0 && overflow != nil {
		r.Nodes = []ScanItem{*overflow}
		scanClip(r, &r.Nodes[0])
	}
	r.Truncated = more || len(r.Nodes) < page
	r.Returned = len(r.Nodes)
	r.Next = ""
	if cursor && r.Truncated && len(r.Nodes) > 0 {
		r.Next = r.Nodes[len(r.Nodes)-1].ID
	}
}

// scanFields validates the projection against the stated set.
func scanFields(requested []string) ([]string, error) {
	if len(requested) == 0 {
		requested = scanDefaultFields
	}
	out := make([]string, 0, len(requested))
	for _, f := range requested {
		if !slices.Contains(scanFieldSet, f) {
			hint := "fields is a stated set; name only fields from it"
			if f == "payload" || f == "payload_hash" {
				hint = "payload location is not listed by scan: query a dataset, view an image"
			}
			return nil, envelope.New(envelope.Schema,
				fmt.Sprintf("scan: unknown field '%s' in fields; accepted: %s", f, strings.Join(scanFieldSet, ", ")),
				hint)
		}
		if f != "id" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// scanScope is the candidate predicate of a parent: literal prefix
// compares, never LIKE, whose "_" would be a wildcard in ids full of them.
func scanScope(parent string, recursive bool) (string, []any) {
	switch {
	case !recursive:
		return "parent = ?", []any{parent}
	case parent == forest.RootIndexID:
		return rootScope, []any{parent}
	case forest.IsIndex(parent):
		prefix := forest.BranchDir(parent) + "/"
		return "substr(id, 1, ?) = ? AND id != ?", []any{utf8.RuneCountInString(prefix), prefix, parent}
	default:
		return "0", nil // a leaf has no children (§16)
	}
}

// rootScope is the candidate predicate of a recursive scan of the root:
// every node but the root index.
const rootScope = "id != ?"

// scanQuery accumulates the AND of the candidate predicates.
type scanQuery struct {
	conds     []string
	args      []any
	cacheable bool // no filter: the statement text has few shapes
}

func (q *scanQuery) add(cond string, args []any) {
	if cond == "" || cond == "1" {
		return
	}
	q.conds = append(q.conds, cond)
	q.args = append(q.args, args...)
}

// count is the SQL expression counting the candidates. The whole forest
// but its root (a recursive scan of the root, nothing else asked) is
// every row less the root's: SQLite counts a table without a WHERE from
// its b-tree alone, where the predicate was evaluated on every row, most
// of an enumeration's page on 2,000 nodes. Both take the same argument.
func (q *scanQuery) count() string {
	if len(q.conds) == 1 && q.conds[0] == rootScope {
		return "((SELECT count(*) FROM nodes) - (SELECT count(*) FROM nodes WHERE id = ?))"
	}
	return "(SELECT count(*) FROM nodes WHERE " + q.where() + ")"
}

func (q *scanQuery) where() string {
	if len(q.conds) == 0 {
		return "1"
	}
	return strings.Join(q.conds, " AND ")
}

// scanColumns are the nodes columns an item may read besides id; every
// column is named as its field. Only the requested ones are selected.
var scanColumns = []string{"kind", "type", "title", "summary", "tags", "aliases", "created", "updated",
	"confidence", "source", "entity_kind", "payload_type", "parent", "trail", "coverage", "body_tokens",
	"outline", "origin", "lang"}

// scanProjection is the select list of a projection: id, then the
// requested columns in scanColumns order. isDefault reports whether it is
// the default projection's, the one statement text worth caching for
// every call (other projections are prepared per call, so no caller can
// grow the statement cache without bound).
func scanProjection(fields []string) (cols []string, isDefault bool) {
	cols = scanColumnsOf(fields)
	return cols, slices.Equal(cols, scanDefaultColumns)
}

// scanColumnsOf returns the columns fields read, in scanColumns order.
func scanColumnsOf(fields []string) []string {
	var cols []string
	for _, c := range scanColumns {
		if slices.Contains(fields, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

// scanDefaultColumns are the columns of the default projection.
var scanDefaultColumns = scanColumnsOf(scanDefaultFields)

// scanSelect renders a projection's select list.
func scanSelect(cols []string) string {
	return strings.Join(append([]string{"id"}, cols...), ", ")
}

// scanRow holds the selected columns of one node; unselected ones stay
// null.
type scanRow struct {
	id                                                                string
	kind, typ, title, summary, tags, aliases, created, updated        sql.NullString
	source, entityKind, payloadType, parent, trail, coverage, outline sql.NullString
	origin, lang                                                      sql.NullString
	confidence                                                        sql.NullFloat64
	bodyTokens                                                        sql.NullInt64
}

// dest is the scan destination of a column of scanColumns.
func (r *scanRow) dest(col string) any {
	switch col {
	case "kind":
		return &r.kind
	case "type":
		return &r.typ
	case "title":
		return &r.title
	case "summary":
		return &r.summary
	case "tags":
		return &r.tags
	case "aliases":
		return &r.aliases
	case "created":
		return &r.created
	case "updated":
		return &r.updated
	case "confidence":
		return &r.confidence
	case "source":
		return &r.source
	case "entity_kind":
		return &r.entityKind
	case "payload_type":
		return &r.payloadType
	case "parent":
		return &r.parent
	case "trail":
		return &r.trail
	case "coverage":
		return &r.coverage
	case "body_tokens":
		return &r.bodyTokens
	case "outline":
		return &r.outline
	case "origin":
		return &r.origin
	case "lang":
		return &r.lang
	}
	panic("scan: no column " + col)
}

// scanRows reads rows of a projection.
func scanRows(rows *sql.Rows, cols []string) ([]scanRow, error) {
	defer rows.Close()
	var out []scanRow
	dest := make([]any, len(cols)+1)
	for rows.Next() {
		out = append(out, scanRow{})
		r := &out[len(out)-1]
		dest[0] = &r.id
		for i, c := range cols {
			dest[i+1] = r.dest(c)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// item projects a row; list columns are decoded only when requested.
func (r *scanRow) item(fields []string, heat map[string]float64) ScanItem {
	it := ScanItem{ID: r.id, Type: r.typ.String, Title: r.title.String, Summary: r.summary.String,
		Created: r.created.String, Updated: r.updated.String, Confidence: r.confidence.Float64,
		Source: r.source.String, EntityKind: r.entityKind.String, PayloadType: r.payloadType.String,
		Parent: r.parent.String, BodyTokens: int(r.bodyTokens.Int64), Origin: r.origin.String,
		Lang: r.lang.String, System: forest.IsSystem(r.id), fields: fields}
	for _, f := range fields {
		switch f {
		case "kind": // the wire spelling, whatever word an older writer stored
			it.Kind = "note"
			if r.kind.String == "branch" {
				it.Kind = "branch"
			}
		case "tags":
			it.Tags = scanList(r.tags.String)
		case "aliases":
			it.Aliases = scanList(r.aliases.String)
		case "trail":
			it.Trail = scanList(r.trail.String)
		case "outline":
			it.Outline = scanList(r.outline.String)
		case "coverage":
			it.Coverage.Raw = r.coverage.String
			it.Coverage.Notes, it.Coverage.Branches, it.Coverage.Parsed = forest.ParseCoverage(it.Coverage.Raw)
		case "heat":
			it.Heat = math.Round(heat[r.id]*1e4) / 1e4
		}
	}
	return it
}

// scanList decodes a JSON list column; a malformed one reads as empty.
func scanList(s string) []string {
	var l []string
	if s == "" || json.Unmarshal([]byte(s), &l) != nil {
		return []string{}
	}
	return l
}

// query runs a statement inside a read transaction, through the
// statement cache when the text has few shapes.
func (l scanLister) query(ctx context.Context, tx *sql.Tx, cacheable bool, query string, args ...any) (*sql.Rows, error) {
	if !cacheable {
		return tx.QueryContext(ctx, query, args...)
	}
	st, ok := l.stmts.cached(query)
	if !ok {
		// Preparing through the pool inside a transaction would wait for a
		// second connection: concurrent scans each holding one then
		// deadlock. Run it on the transaction's own connection instead,
		// and prepare it for the next scan outside any transaction.
		l.background.Go(func() { l.stmts.Prepare(context.WithoutCancel(ctx), query) })
		return tx.QueryContext(ctx, query, args...)
	}
	return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
}

// rankedIDs counts the scope and ranks all of it: heat descending
// from one batched heat read, ties in id order, then by the Gauntlet when
// g is not nil. The count and the ids come back as one aggregated row
// rather than stepped out row by row.
func (l scanLister) rankedIDs(ctx context.Context, tx *sql.Tx, q scanQuery, g *gauntlet) ([]string, int, map[string]float64, error) {
	ids, total, err := l.ids(ctx, tx, q.cacheable,
		"SELECT count(*), json_group_array(id ORDER BY id) FROM nodes WHERE "+q.where(), q.args...)
	if err != nil {
		return nil, 0, nil, err
	}
	heat := l.heat.read(ctx, ids)
	// Stable: equal heat keeps id order, the Go tie-break of C.6.
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(heat[b], heat[a]) })
	if g != nil {
		gauntletOrder(g, ids, func(id string) string { return id }, func(id string) float64 { return heat[id] })
	}
	return ids, total, heat, nil
}

// cursorIDs counts the scope and returns up to n ids strictly after
// the cursor in byte-wise order.
func (l scanLister) cursorIDs(ctx context.Context, tx *sql.Tx, q scanQuery, after string, n int) ([]string, int, error) {
	where := q.where()
	args := append(slices.Clone(q.args), q.args...)
	return l.ids(ctx, tx, q.cacheable,
		"SELECT "+q.count()+", "+
			"(SELECT json_group_array(id ORDER BY id) FROM "+
			"(SELECT id FROM nodes WHERE "+where+" AND id > ? ORDER BY id LIMIT ?+0))",
		append(args, after, n)...)
}

// ids runs a query answering one row: a count and a JSON list of ids.
func (l scanLister) ids(ctx context.Context, tx *sql.Tx, cacheable bool, query string, args ...any) ([]string, int, error) {
	rows, err := l.query(ctx, tx, cacheable, query, args...)
	if err != nil {
		return nil, 0, err
	}
	var total int
	var list sql.NullString
	if rows.Next() {
		err = rows.Scan(&total, &list)
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return nil, 0, err
	}
	var ids []string
	if list.String != "" {
		if err := json.Unmarshal([]byte(list.String), &ids); err != nil {
			return nil, 0, err
		}
	}
	return ids, total, nil
}

// scanChunk is how many rows load reads at a time: about what 800
// tokens hold of the default fields, so the common page is one query and
// rows the budget would drop are mostly never read.
const scanChunk = 24

// load builds the items of ids, in order, reading their rows a chunk
// at a time and stopping at the first item the budget cannot hold beside
// what res already carries; that item is returned as overflow.
func (l scanLister) load(ctx context.Context, tx *sql.Tx, res *ScanResult, ids, fields []string, heat map[string]float64) ([]ScanItem, *ScanItem, error) {
	fit := newScanFitter(res)
	cols, isDefault := scanProjection(fields)
	query := "SELECT " + scanSelect(cols) + " FROM nodes WHERE id IN (SELECT value FROM json_each(?))"
	items := make([]ScanItem, 0, len(ids))
	for start := 0; start < len(ids); start += scanChunk {
		chunk := ids[start:min(len(ids), start+scanChunk)]
		list, _ := json.Marshal(chunk)
		rows, err := l.query(ctx, tx, isDefault, query, string(list))
		if err != nil {
			return nil, nil, err
		}
		got, err := scanRows(rows, cols)
		if err != nil {
			return nil, nil, err
		}
		byID := make(map[string]*scanRow, len(got))
		for i := range got {
			byID[got[i].id] = &got[i]
		}
		for _, id := range chunk {
			r, ok := byID[id]
			if !ok {
				continue
			}
			it := r.item(fields, heat)
			if !fit.add(it) {
				return items, &it, nil
			}
			items = append(items, it)
		}
	}
	return items, nil, nil
}

// windowFacts adds the window echo, the undated count and, for an
// empty listing, why it is empty (C.13.2, §16.2). Counts are forest-wide,
// as the reference counts them (§16.3).
func (l scanLister) windowFacts(ctx context.Context, w window.Window, res *ScanResult) error {
	echo := w.Echo()
	res.Window = &echo
	undated, err := undatedCount(ctx, l.stmts, w, "")
	if err != nil {
		return err
	}
	res.UndatedExcluded = undated
	if res.Total == 0 {
		matched, hint, err := windowFacts(ctx, l.stmts).Empty(ctx, w)
		if err != nil {
			return err
		}
		res.MatchedWindow, res.Hint = &matched, hint
	}
	return nil
}

// scanFitter measures the payload as items join it. The budget renders
// JSON with ", " between list items and no context crosses an item's
// boundary, so the payload's length is the empty payload's plus each
// item's own rendering plus two per separator: one rendering per item,
// never one of the whole payload per step. The meta fields of the result
// must already hold their final size.
type scanFitter struct {
	runes, items int
}

func newScanFitter(res *ScanResult) scanFitter {
	nodes := res.Nodes
	res.Nodes = []ScanItem{}
	f := scanFitter{runes: utf8.RuneCountInString(budget.Render(res))}
	res.Nodes = nodes
	return f
}

// add counts it in when the payload still fits the budget with it.
func (f *scanFitter) add(it ScanItem) bool {
	compact, _ := it.MarshalJSON()
	n := budget.SpacedRunes(compact)
	if f.items > 0 {
		n += len(", ")
	}
	if (f.runes+n+3)/4 > scanBudget {
		return false
	}
	f.runes += n
	f.items++
	return true
}

// scanClip shrinks the one node of res, too large for the budget on its
// own: its lists lose tail entries, then its texts are clipped, until the
// payload fits. Serving it clipped beats serving nothing, which would
// leave an enumeration without a next page to name.
func scanClip(res *ScanResult, item *ScanItem) {
	render := func() any { return res }
	fits := func() bool { return budget.EstimatePayloadTokens(res) <= scanBudget }
	for _, l := range []*[]string{&item.Outline, &item.Aliases, &item.Tags, &item.Trail} {
		if fits() {
			return
		}
		budget.ShrinkTail(l, scanBudget, render)
	}
	for _, s := range []*string{&item.Summary, &item.Title, &item.Coverage.Raw} {
		for limit := budget.EstimateTokens(*s) / 2; !fits() && *s != ""; limit /= 2 {
			if limit == 0 {
				*s = ""
				break
			}
			*s = budget.TruncateText(*s, limit)
		}
	}
}

// scanFilterKinds maps each filter key to the value it takes.
var scanFilterKinds = map[string]string{
	"id": "string", "kind": "string", "type": "string", "title": "string", "summary": "string",
	"created": "string", "updated": "string", "source": "string", "entity_kind": "string",
	"payload_type": "string", "parent": "string", "coverage": "string", "origin": "string", "lang": "string",
	"tags": "list", "aliases": "list", "trail": "list", "outline": "list", "tags_any": "list",
	"confidence": "number", "min_confidence": "number", "body_tokens": "integer",
	"updated_after": "string", "updated_before": "string", "created_after": "string", "origin_prefix": "string",
}

// scanFilterKeys lists the accepted keys for refusals, in a stable order.
func scanFilterKeys() string {
	keys := make([]string, 0, len(scanFilterKinds))
	for k := range scanFilterKinds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// scanJSONListSQL reads a JSON list column defensively: malformed is empty.
func scanJSONListSQL(col string) string {
	return "CASE WHEN json_valid(" + col + ") THEN " + col + " ELSE '[]' END"
}

// compile turns the filter into one SQL predicate (keys in sorted order,
// so equal filters share a statement text) after checking every key and
// value type.
func (f ScanFilter) compile() (string, []any, error) {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var conds []string
	var args []any
	for _, k := range keys {
		kind, ok := scanFilterKinds[k]
		if !ok {
			return "", nil, envelope.New(envelope.Schema, "unknown scan filter: "+k,
				"accepted filter keys: "+scanFilterKeys())
		}
		if f[k] == nil {
			continue // null means missing (C.12)
		}
		val, err := scanFilterValue(k, kind, f[k])
		if err != nil {
			return "", nil, err
		}
		cond, cargs := scanFilterCond(k, val)
		conds = append(conds, cond)
		args = append(args, cargs...)
	}
	return strings.Join(conds, " AND "), args, nil
}

// scanFilterCond is the predicate of one checked key.
func scanFilterCond(k string, val any) (string, []any) {
	switch k {
	case "kind":
		return "(CASE WHEN kind = 'branch' THEN 'branch' ELSE 'note' END) = ?", []any{val}
	case "tags", "aliases", "trail", "outline":
		// Canonical on both sides, whatever spacing or escaping the
		// writer of the row used.
		return "(SELECT json_group_array(value) FROM json_each(" + scanJSONListSQL(k) + ")) = " +
			"(SELECT json_group_array(value) FROM json_each(?))", []any{val}
	case "tags_any":
		return "EXISTS (SELECT 1 FROM json_each(" + scanJSONListSQL("tags") + ") AS t " +
			"WHERE t.value IN (SELECT value FROM json_each(?)))", []any{val}
	case "updated_after":
		return "updated != '' AND updated >= ?", []any{val}
	case "updated_before":
		return "updated != '' AND updated <= ?", []any{val}
	case "created_after":
		return "created != '' AND created >= ?", []any{val}
	case "min_confidence":
		return "confidence >= ?", []any{val}
	case "origin_prefix":
		s := val.(string)
		return "origin IS NOT NULL AND substr(origin, 1, ?) = ?", []any{utf8.RuneCountInString(s), s}
	}
	return k + " = ?", []any{val}
}

// scanFilterValue checks a value against the key's kind; nothing is
// coerced. Lists come back as their JSON text.
func scanFilterValue(key, kind string, v any) (any, error) {
	bad := func() error {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("scan: filter '%s' expects %s, got %s", key, scanKindName(kind), scanValueKind(v)), "")
	}
	switch kind {
	case "string":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "number":
		if n, ok := scanNumber(v); ok {
			return n, nil
		}
	case "integer":
		if n, ok := scanNumber(v); ok && n == math.Trunc(n) && scanValueKind(v) == "integer" {
			return int64(n), nil
		}
	case "list":
		var l []string
		switch t := v.(type) {
		case []string:
			l = t
		case []any:
			for _, e := range t {
				s, ok := e.(string)
				if !ok {
					return nil, bad()
				}
				l = append(l, s)
			}
		default:
			return nil, bad()
		}
		if l == nil {
			l = []string{}
		}
		text, _ := json.Marshal(l)
		return string(text), nil
	}
	return nil, bad()
}

func scanKindName(kind string) string {
	if kind == "list" {
		return "a list of strings"
	}
	if kind == "integer" {
		return "an integer"
	}
	return "a " + kind
}

func scanNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// scanValueKind names what arrived in the vocabulary of C.12 messages.
func scanValueKind(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if strings.ContainsAny(t.String(), ".eE") {
			return "number"
		}
		return "integer"
	case int, int32, int64:
		return "integer"
	case float64:
		if t == math.Trunc(t) && !math.IsInf(t, 0) {
			return "integer"
		}
		return "number"
	case float32:
		return "number"
	case []any, []string:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
