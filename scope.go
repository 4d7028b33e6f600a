// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// Capability is one grant of an access policy (J.3 §7.2). Admin implies
// every other.
type Capability string

// The capabilities, closed.
const (
	CapRead   Capability = "read"   // locate look move pick scan sniff harvest calendar coverage history view
	CapWrite  Capability = "write"  // plant graft prune transplant
	CapQuery  Capability = "query"  // query
	CapTend   Capability = "tend"   // tend
	CapIngest Capability = "ingest" // ingest (adopt and sync also need admin)
	CapAdmin  Capability = "admin"  // everything, and whole-forest repairs
	CapAnswer Capability = "answer" // the answer composite
)

var allCaps = []Capability{CapRead, CapWrite, CapQuery, CapTend, CapIngest, CapAdmin, CapAnswer}

// Policy is what one principal may see and do in one forest (J.3 §7.1).
// Hosts keep policies; a forest never carries one.
type Policy struct {
	// Allow lists the branch prefixes the principal may read ("sales/",
	// "ops/runbooks/"); "" is the whole forest. Empty means nothing.
	Allow []string `json:"allow" yaml:"allow"`
	// Deny lists prefixes hidden even inside an allowed one; deny wins at
	// any depth.
	Deny []string `json:"deny,omitempty" yaml:"deny"`
	// Caps are the granted capabilities.
	Caps []Capability `json:"caps" yaml:"caps"`
	// Datasets narrows query and tend per dataset node id to a table
	// allow-list. A dataset absent from the map keeps all its tables.
	Datasets map[string]DatasetGrant `json:"datasets,omitempty" yaml:"datasets"`
}

// DatasetGrant is the table allow-list of one dataset under a Policy.
type DatasetGrant struct {
	Tables []string `json:"tables" yaml:"tables"`
}

// FullPolicy is the owner's policy: every capability over the whole
// forest. Local unauthenticated serving uses it, so there is one code
// path whether keys are in play or not.
func FullPolicy() Policy {
	return Policy{Allow: []string{""}, Caps: []Capability{CapAdmin}}
}

// scope is a compiled Policy: normalised prefixes and a capability set.
// A nil *scope is the unrestricted engine.
type scope struct {
	allow, deny []string
	whole       bool // "" allowed: every id unless denied
	caps        map[Capability]bool
	tables      map[string][]string
}

func compilePolicy(p Policy) (*scope, error) {
	s := &scope{caps: map[Capability]bool{}, tables: map[string][]string{}}
	for _, c := range p.Caps {
		if !slices.Contains(allCaps, c) {
			return nil, envelope.New(envelope.Schema,
				fmt.Sprintf("policy: unknown capability %q", c),
				"capabilities are read, write, query, tend, ingest, admin, answer")
		}
		s.caps[c] = true
	}
	for _, a := range p.Allow {
		if err := CheckPrefix(a); err != nil {
			return nil, envelope.New(envelope.Schema, fmt.Sprintf("policy: allow %q %v", a, err), prefixHint)
		}
		n := normPrefix(a)
		if n == "" {
			s.whole = true
		}
		s.allow = append(s.allow, n)
	}
	for _, d := range p.Deny {
		if err := CheckPrefix(d); err != nil {
			return nil, envelope.New(envelope.Schema, fmt.Sprintf("policy: deny %q %v", d, err), prefixHint)
		}
		if n := normPrefix(d); n != "" {
			s.deny = append(s.deny, n)
		}
	}
	for id, g := range p.Datasets {
		s.tables[strings.Trim(strings.TrimSpace(id), "/")] = slices.Clone(g.Tables) // empty: no allow-list (C.5.3)
	}
	return s, nil
}

// CheckPrefix reports why p, an allow or deny prefix of a Policy, would
// not do what it looks like it does. A policy
// matches prefixes literally (spec 08 §7.1), so a glob, a relative or
// traversing path, a backslash or a branch index id matches no node at
// all, and a blank one grants the whole forest: each is a typo of
// authority that would otherwise pass in silence.
//
// What the policy normalises is accepted: surrounding white space and
// slashes ("/sales", "sales" and "sales/" are one prefix), and "" (or
// "/"), the whole forest, which is how a stored policy spells it. Whether
// the whole forest is allowed where p appears is the caller's question.
func CheckPrefix(p string) error {
	t := strings.TrimSpace(p)
	if t == "" && p != "" {
		return errors.New("is blank: a blank prefix grants the whole forest, which is spelt \"\"")
	}
	switch {
	case strings.ContainsAny(t, "*?["):
		return errors.New("is a glob: prefixes match literally, so sales/* matches nothing; write sales/")
	case strings.ContainsRune(t, '\\'):
		return errors.New(`has a backslash: ids use "/"`)
	case strings.ContainsFunc(t, unicode.IsControl):
		return errors.New("has a control character")
	}
	n := strings.Trim(t, "/")
	if n == "" {
		return nil
	}
	for _, seg := range strings.Split(n, "/") {
		switch seg {
		case "":
			return errors.New(`has an empty segment ("//")`)
		case ".", "..":
			return fmt.Errorf("has a %q segment: prefixes are literal ids from the forest root, never relative paths", seg)
		}
	}
	last := n[strings.LastIndexByte(n, '/')+1:]
	switch {
	case last == forest.RootIndexID:
		return fmt.Errorf("ends in %s, an index id: the prefix of a branch is its folder, such as sales/", forest.RootIndexID)
	case strings.HasSuffix(last, forest.NodeExt):
		return fmt.Errorf("ends in %s: ids have no extension", forest.NodeExt)
	}
	return nil
}

// prefixHint is the hint of a refused policy prefix.
const prefixHint = "a prefix is a branch folder from the forest root, such as sales/ or ops/runbooks/; \"\" is the whole forest"

// normPrefix trims, drops a leading "/" and ensures a trailing one, so
// "projects" never matches "projects-secret/". "" stays "" (whole forest).
func normPrefix(p string) string {
	p = strings.Trim(strings.TrimSpace(p), "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

// in reports whether id is visible: not under any deny prefix, and under
// an allow prefix (or the whole forest is allowed).
func (s *scope) in(id string) bool {
	if s == nil {
		return true
	}
	if id == "" {
		return false
	}
	for _, d := range s.deny {
		if strings.HasPrefix(id, d) {
			return false
		}
	}
	if s.whole {
		return true
	}
	for _, a := range s.allow {
		if strings.HasPrefix(id, a) {
			return true
		}
	}
	return false
}

// restricted reports whether some id is hidden.
func (s *scope) restricted() bool { return s != nil && (!s.whole || len(s.deny) > 0) }

// sql is in() as one SQL condition over col, for counts and candidate
// selection: literal range compares (the ids under "x/" are exactly those
// in ["x/", "x0"), since '0' follows '/'), never LIKE, whose "_" would be
// a wildcard in ids full of them.
func (s *scope) sql(col string) (string, []any) {
	if !s.restricted() {
		return "1", nil
	}
	var b strings.Builder
	var args []any
	b.WriteString("(")
	if s.whole {
		b.WriteString("1")
	} else {
		b.WriteString("(0")
		for _, a := range s.allow {
			fmt.Fprintf(&b, " OR (%[1]s >= ? AND %[1]s < ?)", col)
			args = append(args, a, prefixEnd(a))
		}
		b.WriteString(")")
	}
	for _, d := range s.deny {
		fmt.Fprintf(&b, " AND NOT (%[1]s >= ? AND %[1]s < ?)", col)
		args = append(args, d, prefixEnd(d))
	}
	b.WriteString(")")
	return b.String(), args
}

// prefixEnd is the least string above every string starting with p,
// where p ends in "/".
func prefixEnd(p string) string { return p[:len(p)-1] + "0" }

// roots are the index nodes a scoped caller starts from: the master
// index when the whole forest is allowed, else one per allow prefix.
func (s *scope) roots() []string {
	if s == nil || s.whole {
		return []string{forest.RootIndexID}
	}
	out := make([]string, 0, len(s.allow))
	for _, a := range s.allow {
		out = append(out, a+forest.RootIndexID)
	}
	return out
}

func (s *scope) has(c Capability) bool {
	return s == nil || s.caps[CapAdmin] || s.caps[c]
}

type scopeKey struct{}

// withScope carries a compiled policy into the primitives. Only Scoped
// sets it, so no wire argument can.
func withScope(ctx context.Context, s *scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// scopeOf is the policy of a call, nil for the unrestricted engine.
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}

// andScope appends the call's policy condition over col to a WHERE
// clause and its arguments.
func andScope(ctx context.Context, col, where string, args []any) (string, []any) {
	s := scopeOf(ctx)
	if !s.restricted() {
		return where, args
	}
	cond, cargs := s.sql(col)
	return where + " AND " + cond, append(slices.Clone(args), cargs...)
}

// outOfGrant refuses a write whose target the caller named but may not
// touch (J.3 §7.3): the caller supplied the id, so E_FORBIDDEN reveals
// nothing, and the hint names the grant.
func (s *scope) outOfGrant(op, param, id string) error {
	where := make([]string, 0, len(s.allow))
	for _, a := range s.allow {
		if a == "" {
			a = "(the whole forest)"
		}
		where = append(where, a)
	}
	hint := "this key may write under: " + strings.Join(where, ", ")
	if len(s.deny) > 0 {
		hint += "; never under: " + strings.Join(s.deny, ", ")
	}
	return envelope.New(envelope.Forbidden,
		fmt.Sprintf("%s: %s %s is outside this key's grant", op, param, id), hint)
}

// visibleAnchors splits anchors into those the caller may see and the
// number hidden; a refusal names the first and only counts the second.
func (s *scope) visibleAnchors(anchors []Anchor) (visible []Anchor, hidden int) {
	if !s.restricted() {
		return anchors, 0
	}
	visible = []Anchor{}
	for _, a := range anchors {
		if s.in(a.Source) {
			visible = append(visible, a)
		} else {
			hidden++
		}
	}
	return visible, hidden
}

// hiddenAnchorsError refuses a write that would have to edit nodes the
// caller cannot see (prune with force, transplant retargeting links).
func hiddenAnchorsError(op, id string, hidden int) error {
	return envelope.New(envelope.Forbidden,
		fmt.Sprintf("%s: %d link(s) from nodes outside this key's grant point at %s", op, hidden, id),
		"a key that sees the whole forest can make this change; or remove the links first").
		With("anchor_count", hidden)
}

// visible keeps the ids the policy can see, in order.
func (s *scope) visible(ids []string) []string {
	if !s.restricted() {
		return ids
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if s.in(id) {
			out = append(out, id)
		}
	}
	return out
}

// scrub is visible for a trail: the ancestor indexes above the caller's
// grant are not named (the empty trail stays an empty list).
func (s *scope) scrub(trail []string) []string { return s.visible(trail) }

// visibleAliases drops the aliases that name an id the policy hides: a
// transplant records the old id as an alias (C.15), and a redirect must
// never reveal where a hidden node was. An alias is taken for an id when
// it is one of the node's former ids or has an id's "/"; other aliases
// are prose and stay.
func (s *scope) visibleAliases(aliases, movedFrom []string) []string {
	if !s.restricted() || len(aliases) == 0 {
		return aliases
	}
	out := make([]string, 0, len(aliases))
	for _, a := range aliases {
		id := strings.Trim(strings.TrimSpace(a), "/")
		if (strings.Contains(id, "/") || slices.Contains(movedFrom, id)) && !s.in(id) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// visibleEdges keeps the out-edges whose target the policy can see.
func visibleEdges(s *scope, edges []catalog.Edge) []catalog.Edge {
	if !s.restricted() {
		return edges
	}
	out := make([]catalog.Edge, 0, len(edges))
	for _, e := range edges {
		if s.in(e.Dst) {
			out = append(out, e)
		}
	}
	return out
}

// visibleTrails keeps the cross-trail lines that name no hidden node.
func visibleTrails(s *scope, lines []string) []string {
	if !s.restricted() {
		return lines
	}
	out := []string{}
	for _, l := range lines {
		if !slices.ContainsFunc(forest.Wikilinks(l), func(id string) bool { return !s.in(id) }) {
			out = append(out, l)
		}
	}
	return out
}

// visibleCoverage counts a branch's visible direct children: notes, and
// sub-branches (children whose id is an index).
func (v *Vine) visibleCoverage(ctx context.Context, branch string) (notes, branches int, err error) {
	rows, err := neighborsOf(v).children(ctx, branch)
	if err != nil {
		return 0, 0, err
	}
	for _, r := range rows {
		if forest.IsIndex(r.id) {
			branches++
		} else {
			notes++
		}
	}
	return notes, branches, nil
}

// plantInGrant checks a node a scoped caller plants (J.3 §7.3), dry runs
// included, before the engine sees it: the caller names the id, so one
// outside the grant is E_FORBIDDEN naming the grant; a node without an id
// cannot be placed under a grant at all.
func plantInGrant(ctx context.Context, field string, spec NodeSpec) error {
	s := scopeOf(ctx)
	if !s.restricted() {
		return nil
	}
	id := strings.Trim(strings.TrimSpace(spec.ID), "/")
	if id == "" {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("plant: %s.id is required under a scoped key", field),
			"give the full id inside your grant, e.g. "+s.roots()[0][:len(s.roots()[0])-len(forest.RootIndexID)]+"new-note")
	}
	if !s.in(id) {
		return s.outOfGrant("plant", field+".id", id)
	}
	return nil
}

// scopeHit fits one locate hit to the call's policy: its trail names no
// index above the grant, and a branch's coverage counts visible children.
func (v *Vine) scopeHit(ctx context.Context, h *LocateHit) error {
	s := scopeOf(ctx)
	if !s.restricted() {
		return nil
	}
	h.Trail = s.scrub(h.Trail)
	if h.Coverage != nil {
		n, b, err := v.visibleCoverage(ctx, h.ID)
		if err != nil {
			return err
		}
		h.Coverage = &BranchCoverage{Notes: n, Branches: b}
	}
	return nil
}
