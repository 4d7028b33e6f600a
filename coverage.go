// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/internal/window"
)

// coverageBudget is BUDGET_COVERAGE (C.17 r9): roots drop, totals never.
const coverageBudget = 800

// CoverageOptions are the wire parameters of Coverage.
type CoverageOptions struct {
	// Scope narrows everything to a branch (x, x/ or x/_index) or one node,
	// as sniff and calendar take it; "" or _index is the whole forest.
	Scope string
	// DateField is created (default) or updated: the date first and last
	// report.
	DateField string
}

// CoverageReport is the answer of Coverage: what the forest (or the
// scope) holds at all. The roots plus the listing's own index plus the
// system nodes always add up to Total.
type CoverageReport struct {
	DateField string         `json:"date_field"`
	Scope     string         `json:"scope,omitempty"` // echoed as sent
	Roots     []CoverageRoot `json:"roots"`
	Total     int            `json:"total"`
	// Types, Sources and Langs group the nodes by value, largest first;
	// nodes without a value are in no group, so the groups need not sum
	// to Total.
	Types   CoverageCounts `json:"types"`
	Sources CoverageCounts `json:"sources"`
	Langs   CoverageCounts `json:"langs"`
	Undated int            `json:"undated"`
	System  int            `json:"system"`
	// PayloadsMissing counts local payloads named by a passport whose
	// file is absent (remote payloads are not checked).
	PayloadsMissing int  `json:"payloads_missing"`
	Truncated       bool `json:"truncated"`
}

// CoverageRoot is one child (branch or leaf) of the listing index with
// what lies under it.
type CoverageRoot struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind"` // "note" or "branch"
	// Nodes counts everything under the root's folder, its index
	// included; a leaf root counts itself.
	Nodes    int `json:"nodes"`
	Branches int `json:"branches"`
	// First and Last are the earliest and latest date (YYYY-MM-DD), when
	// any node under the root has one.
	First string `json:"first,omitempty"`
	Last  string `json:"last,omitempty"`
	// Origin is the prefix scan's origin_prefix filter takes to list the
	// root's nodes that have an origin: their longest common prefix, cut
	// after its last "/" (half a file name is an accident).
	Origin          string `json:"origin,omitempty"`
	WithoutOrigin   int    `json:"without_origin,omitempty"`
	PayloadsMissing int    `json:"payloads_missing,omitempty"`
}

// CoverageCounts is a grouping in order: count descending, then value.
// It renders as a JSON object in that order.
type CoverageCounts []CoverageCount

// CoverageCount is one group of a CoverageCounts.
type CoverageCount struct {
	Value string
	Nodes int
}

// MarshalJSON renders {"value": nodes, ...} in slice order.
func (c CoverageCounts) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := scanMarshal(e.Value)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(strconv.AppendInt(nil, int64(e.Nodes), 10))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns the count of a value, 0 when it has no group.
func (c CoverageCounts) Get(value string) int {
	for _, e := range c {
		if e.Value == value {
			return e.Nodes
		}
	}
	return 0
}

// nodeIDs: coverage chose no node and deposits no pheromone (C.17 r9).
func (*CoverageReport) nodeIDs() []string { return nil }

var coverageSignature = Signature{
	Name: "coverage",
	Doc: "What is in this forest at all: per top-level branch (or scope branch) how many nodes, which " +
		"dates, which origin they came from; totals by type, source and language. Ask it before " +
		"concluding something is absent.",
	Budget: coverageBudget,
	Params: []Param{
		{Name: "scope", Type: TString, Doc: "a branch (x, x/ or x/_index) or a node id; absent is the whole forest"},
		{Name: "date_field", Type: TString, Doc: "created (default) or updated"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: coverageSignature, run: runCoverage}) }

func runCoverage(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.Coverage(ctx, CoverageOptions{Scope: a.String("scope"), DateField: a.String("date_field")})
}

// Coverage is the forest's inventory (C.17) from catalog metadata only:
// one GROUP BY for the roots and totals and one for the groupings, never a
// query per node; the only file-system touch is a stat per local payload.
//
// The roots are the children (branches and leaves) of the listing index:
// _index, or the scope branch's index; a leaf scope is its own one root.
// Roots come largest first (ties: id descending, as the reference) and
// drop from the tail to fit 800 tokens, setting Truncated; totals are
// never dropped. It never guesses what is absent.
func (v *Vine) Coverage(ctx context.Context, opt CoverageOptions) (*CoverageReport, error) {
	w, err := window.Parse("", "", opt.DateField)
	if err != nil {
		return nil, err
	}
	prefix, leaf, err := scopePrefix(ctx, v.cat, opt.Scope)
	if err != nil {
		return nil, err
	}
	scope, scopeArgs := regionPredicate(prefix, leaf)
	scope, scopeArgs = andScope(ctx, "id", scope, scopeArgs)
	// The listing's folder: its children are the roots. A leaf scope is
	// its own single root, listed from its parent's folder.
	dir, listing := prefix, forest.RootIndexID
	if prefix != "" {
		listing = prefix + forest.RootIndexID
	}
	if leaf {
		listing = forest.ParentIndex(prefix)
		dir = strings.TrimSuffix(listing, forest.RootIndexID)
	}
	rep := &CoverageReport{DateField: w.Field, Scope: opt.Scope}
	present := func(ctx context.Context, id, payload string) bool {
		return v.place.Stat(payloadScope(ctx), id, payload).Present
	}
	q := coverageQuery{stmts: &v.stmts, stat: present, dir: dir, scope: scope, args: scopeArgs}
	roots, err := q.roots(ctx, rep, listing)
	if err != nil {
		return nil, err
	}
	if err := q.groups(ctx, rep); err != nil {
		return nil, err
	}
	if err := q.payloads(ctx, rep, roots); err != nil {
		return nil, err
	}
	slices.SortFunc(roots, func(a, b CoverageRoot) int {
		return cmp.Or(cmp.Compare(b.Nodes, a.Nodes), strings.Compare(b.ID, a.ID))
	})
	rep.Roots = roots
	cut := budget.ShrinkTail(&rep.Roots, coverageBudget, func() any { return rep })
	rep.Truncated = cut > 0
	return rep, nil
}

// coverageQuery is one coverage read over a resolved scope: the listing
// folder whose children are the roots, the scope predicate with its
// arguments, the statement cache the aggregates run through, and how a
// local payload is stat'ed.
type coverageQuery struct {
	stmts *stmtCache
	stat  func(ctx context.Context, id, payload string) bool // the local file is there and in reach
	dir   string
	scope string
	args  []any
}

// coverageRootKey maps a node id to the child of the listing folder it
// lies under: the id itself when it sits directly in the folder (a leaf
// child, or the listing's own index), else the index of its first folder.
// Arguments, in order: the folder's length in characters, the folder, and
// its length twice more (coverageRootArgs).
const coverageRootKey = "CASE WHEN instr(substr(id, ? + 1), '/') = 0 THEN id " +
	"ELSE ? || substr(id, ? + 1, instr(substr(id, ? + 1), '/') - 1) || '/_index' END"

func coverageRootArgs(dir string) []any {
	n := utf8.RuneCountInString(dir)
	return []any{n, dir, n, n}
}

// coverageSystemSQL is true for _meta and the ids under it.
const coverageSystemSQL = "(id = '_meta' OR substr(id, 1, 6) = '_meta/')"

// roots runs the one aggregate over the scope: every node is
// keyed to the child of the listing folder it lies under and the keys are
// grouped, so the totals (total, undated, system) are sums over the groups
// and the roots are the groups whose key is a child row of the listing.
// The few keys are joined to their rows after grouping: a lookup per root,
// never per node.
func (q coverageQuery) roots(ctx context.Context, rep *CoverageReport, listing string) ([]CoverageRoot, error) {
	d := rep.DateField
	query := "WITH s AS (SELECT root, count(*) AS nodes, coalesce(sum(kind = 'branch'), 0) AS branches, " +
		"min(NULLIF(d, '')) AS first, max(NULLIF(d, '')) AS last, " +
		"min(NULLIF(origin, '')) AS lo, max(NULLIF(origin, '')) AS hi, " +
		"coalesce(sum(origin IS NULL OR origin = ''), 0) AS without, " +
		"coalesce(sum(d IS NULL OR d = ''), 0) AS undated, coalesce(sum(" + coverageSystemSQL + "), 0) AS system " +
		"FROM (SELECT id, kind, origin, " + d + " AS d, " + coverageRootKey + " AS root FROM nodes WHERE " + q.scope + ") " +
		"GROUP BY root) " +
		"SELECT s.root, r.parent, r.title, r.kind, s.nodes, s.branches, s.first, s.last, s.lo, s.hi, s.without, " +
		"s.undated, s.system FROM s LEFT JOIN nodes AS r ON r.id = s.root"
	st, err := q.stmts.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, append(coverageRootArgs(q.dir), q.args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	roots := []CoverageRoot{}
	for rows.Next() {
		var r CoverageRoot
		var parent, title, kind, first, last, lo, hi sql.NullString
		var undated, system int
		if err := rows.Scan(&r.ID, &parent, &title, &kind, &r.Nodes, &r.Branches, &first, &last,
			&lo, &hi, &r.WithoutOrigin, &undated, &system); err != nil {
			return nil, err
		}
		rep.Total += r.Nodes
		rep.Undated += undated
		rep.System += system
		if !parent.Valid || parent.String != listing || forest.IsSystem(r.ID) {
			continue // the listing's own index, system nodes, or a folder without an index
		}
		r.Title, r.Kind = title.String, "note"
		if kind.String == "branch" {
			r.Kind = "branch"
		}
		r.First, r.Last = calendarDay(first.String), calendarDay(last.String)
		r.Origin = coverageOrigin(lo.String, hi.String)
		roots = append(roots, r)
	}
	return roots, rows.Err()
}

// coverageOrigin is the longest common prefix of the smallest and largest
// origin, which is that of them all: the whole string when they are equal,
// else cut just after its last "/"; without a "/" past the first byte
// there is no prefix worth publishing.
func coverageOrigin(lo, hi string) string {
	if lo == "" {
		return ""
	}
	if lo == hi {
		return lo
	}
	n := 0
	for n < len(lo) && n < len(hi) && lo[n] == hi[n] {
		n++
	}
	slash := strings.LastIndexByte(lo[:n], '/')
	if slash <= 0 {
		return ""
	}
	return lo[:slash+1]
}

// groups fills the type, source and language groupings from one
// GROUP BY over the three columns: a row per distinct combination, folded
// here, never a row per node. No value is no category.
func (q coverageQuery) groups(ctx context.Context, rep *CoverageReport) error {
	st, err := q.stmts.Prepare(ctx, "SELECT type, source, lang, count(*) FROM nodes WHERE "+q.scope+" GROUP BY type, source, lang")
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, q.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	counts := [3]map[string]int{{}, {}, {}}
	for rows.Next() {
		var vals [3]sql.NullString
		var n int
		if err := rows.Scan(&vals[0], &vals[1], &vals[2], &n); err != nil {
			return err
		}
		for i, val := range vals {
			if val.String != "" {
				counts[i][val.String] += n
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rep.Types, rep.Sources, rep.Langs = coverageSorted(counts[0]), coverageSorted(counts[1]), coverageSorted(counts[2])
	return nil
}

// coverageSorted orders a grouping by count descending, then value.
func coverageSorted(m map[string]int) CoverageCounts {
	out := make(CoverageCounts, 0, len(m))
	for val, n := range m {
		out = append(out, CoverageCount{Value: val, Nodes: n})
	}
	slices.SortFunc(out, func(a, b CoverageCount) int {
		return cmp.Or(cmp.Compare(b.Nodes, a.Nodes), strings.Compare(a.Value, b.Value))
	})
	return out
}

// coverageRemotePayload is a URI payload (G.9): never fetched, never stat'ed.
var coverageRemotePayload = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`)

// payloads counts local payloads whose file is absent, by stat
// (never an open), in total and per root. A payload path is relative to
// its node's folder; one that leaves the forest names no file of it and
// counts as missing, as does one that breaks the payload rule or that
// the call's policy cannot see (statPayload).
func (q coverageQuery) payloads(ctx context.Context, rep *CoverageReport, roots []CoverageRoot) error {
	st, err := q.stmts.Prepare(ctx, "SELECT "+coverageRootKey+", id, payload FROM nodes "+
		"WHERE payload IS NOT NULL AND payload != '' AND "+q.scope)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, append(coverageRootArgs(q.dir), q.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	perRoot := map[string]int{}
	for rows.Next() {
		var root, id, payload string
		if err := rows.Scan(&root, &id, &payload); err != nil {
			return err
		}
		if coverageRemotePayload.MatchString(payload) || q.stat(ctx, id, payload) {
			continue
		}
		rep.PayloadsMissing++
		perRoot[root]++
	}
	for i := range roots {
		roots[i].PayloadsMissing = perRoot[roots[i].ID]
	}
	return rows.Err()
}
