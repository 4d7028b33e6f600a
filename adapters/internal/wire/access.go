// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// Secret is the key a request carries: "Authorization: Bearer <key>",
// else "X-API-Key: <key>"; "" when it carries none.
func Secret(h http.Header) string {
	if a := h.Get("Authorization"); a != "" {
		scheme, token, ok := strings.Cut(strings.TrimSpace(a), " ")
		if ok && strings.EqualFold(scheme, "bearer") {
			return strings.TrimSpace(token)
		}
		return ""
	}
	return strings.TrimSpace(h.Get("X-API-Key"))
}

// MissingKey is the refusal of a call that carried no valid key (HTTP 401
// on REST, a tool result on MCP).
func MissingKey() *vine.Error {
	return &vine.Error{Code: vine.EForbidden, Message: "missing or invalid API key",
		Hint: "send the key as Authorization: Bearer <key> (or X-API-Key: <key>); the server's operator issues keys"}
}

// Forests is how a transport reaches a forest for a principal (spec 08
// §7): the forest named in a call is checked against the principal's
// grants before anything is opened, so an ungranted forest answers
// exactly as one that does not exist, and what is opened is only ever
// seen through the principal's policy.
type Forests struct {
	reg    *vine.Registry
	single string // the served forest's id in single mode
	hint   string // the unknown-forest hint of the surface
}

// NewForests serves reg. hint is the surface's unknown-forest hint, the
// move that lists what the caller may use ("call forests() to list
// them").
func NewForests(reg *vine.Registry, hint string) *Forests {
	f := &Forests{reg: reg, hint: hint}
	if reg.Mode() == vine.ModeSingle {
		if l := reg.List().Forests; len(l) == 1 {
			f.single = l[0].ID
		}
	}
	return f
}

// Registry is the registry served.
func (f *Forests) Registry() *vine.Registry { return f.reg }

// UnknownForest is the one refusal of a forest that does not exist or is
// not granted to p: the same bytes either way, so it is no oracle. Serving
// one forest, the hint names it to a principal granted it, and only then.
func (f *Forests) UnknownForest(p *keys.Principal, id string) *vine.Error {
	hint := f.hint
	if _, granted := p.Policy(f.single); f.single != "" && granted {
		hint = fmt.Sprintf("this server serves one forest, %q; %s", f.single, f.hint)
	}
	return &vine.Error{Code: vine.ENotFound, Message: "unknown forest: " + id, Hint: hint}
}

// Grant resolves the forest a call names for p, without opening it: the
// canonical id and p's policy there. In single mode an empty id is the
// served forest; in registry mode it is required (E_SCHEMA, before any
// authorisation, naming only forests p may use).
func (f *Forests) Grant(p *keys.Principal, id string) (string, vine.Policy, error) {
	if id == "" {
		if f.single == "" {
			return "", vine.Policy{}, &vine.Error{Code: vine.ESchema,
				Message: "parameter 'forest' is required in registry mode",
				Hint:    "available forests: " + strings.Join(f.visibleIDs(p), ", ") + "; " + f.hint}
		}
		id = f.single
	}
	if f.single != "" && id != f.single {
		return "", vine.Policy{}, f.UnknownForest(p, id)
	}
	pol, ok := p.Policy(id)
	if !ok {
		return "", vine.Policy{}, f.UnknownForest(p, id)
	}
	return id, pol, nil
}

// Open grants, opens and scopes: the forest's shared instance seen
// through p's policy. Opening failures other than not-found (E_LOCKED)
// come back as themselves: the caller was granted the forest, so they
// reveal nothing.
func (f *Forests) Open(ctx context.Context, p *keys.Principal, id string) (*vine.Scoped, error) {
	id, pol, err := f.Grant(p, id)
	if err != nil {
		return nil, err
	}
	v, err := f.reg.Forest(ctx, id)
	if err != nil {
		return nil, f.Opened(p, id, err)
	}
	return v.Scoped(pol)
}

// Opened is the refusal of a granted forest that failed to open: not
// found becomes the one unknown-forest refusal, anything else is kept.
func (f *Forests) Opened(p *keys.Principal, id string, err error) error {
	if vine.CodeOf(err) == vine.ENotFound {
		return f.UnknownForest(p, id)
	}
	return err
}

// Visible is one listed forest a principal may use, with its policy.
type Visible struct {
	vine.ForestEntry
	Policy vine.Policy
}

// Visible lists the forests of the registry's listing that p is granted,
// without opening any (locks are probed, never taken). Nested forest ids
// are servable but, as in the registry's own listing, not listed.
func (f *Forests) Visible(p *keys.Principal) []Visible {
	out := []Visible{}
	for _, e := range f.reg.List().Forests {
		if pol, ok := p.Policy(e.ID); ok {
			out = append(out, Visible{ForestEntry: e, Policy: pol})
		}
	}
	return out
}

func (f *Forests) visibleIDs(p *keys.Principal) []string {
	var ids []string
	for _, v := range f.Visible(p) {
		ids = append(ids, v.ID)
	}
	return ids
}

// CapNames are the capabilities a policy grants, admin expanded, in
// canonical order, as the wire shows them.
func CapNames(p vine.Policy) []string {
	out := []string{}
	for _, c := range keys.Expand(p.Caps) {
		out = append(out, string(c))
	}
	return out
}

// Roots are the index nodes a policy's reading starts from (spec 08
// §7.1): the master index when the whole forest is allowed, else one
// index per allowed prefix. It agrees with vine.Scoped.Roots without
// opening the forest.
func Roots(p vine.Policy) []string {
	var out []string
	for _, a := range p.Allow {
		a = strings.Trim(strings.TrimSpace(a), "/")
		if a == "" {
			return []string{"_index"}
		}
		out = append(out, a+"/_index")
	}
	if out == nil {
		return []string{}
	}
	return slices.Clip(out)
}

// ListForestsFor is the forests listing for p: the forests it may use,
// each with its caps (masked) and roots.
func ListForestsFor(f *Forests, station string, p *keys.Principal) ForestList {
	out := ForestList{Forests: []ForestInfo{}, Station: station}
	for _, v := range f.Visible(p) {
		out.Forests = append(out.Forests, ForestInfo{ID: v.ID, Caps: CapNames(v.Policy), Roots: Roots(v.Policy), Locked: v.Locked})
	}
	return out
}
