// SPDX-License-Identifier: Apache-2.0

// Package keys authenticates callers of the HTTP surfaces with bearer
// keys (spec 08 §6) and says what each may do: a Principal carries one
// vine.Policy per forest it is granted, narrowed by the key's capability
// mask at the moment of use.
//
// Keys live in a keys file the host owns (YAML or JSON), never in a
// forest. Only the SHA-256 hex digest of a secret is stored; the secret
// itself is shown once, when it is made, and never again. A Store reads
// the file, re-reads it when it changes, and resolves secrets:
//
//	store, err := keys.Load("keys.yaml")
//	p, ok := store.Resolve(ctx, secret) // revoked and expired keys: ok == false
//	policy, granted := p.Policy("acme")  // no grant: the forest answers as unknown
//
// A server that runs without keys (local use, vine serve --open) resolves
// every caller to LocalOwner, so there is one code path either way.
package keys

import (
	"context"
	"slices"

	"github.com/monkeyllm/vine"
)

// Resolver turns the secret a request carried into its principal. An
// empty, unknown, revoked or expired secret resolves to ok == false.
// Implementations must be safe for concurrent use.
type Resolver interface {
	Resolve(ctx context.Context, secret string) (p *Principal, ok bool)
}

// Open is the Resolver of a server started without keys: every caller,
// with or without a secret, is the LocalOwner. Hosts choose it
// explicitly (vine serve --open); it is never a fallback.
var Open Resolver = openResolver{}

type openResolver struct{}

func (openResolver) Resolve(context.Context, string) (*Principal, bool) { return LocalOwner(), true }

// Principal is an authenticated caller: a name, a grant per forest, the
// capability mask of the key it used, and the owner bit.
type Principal struct {
	// Name identifies the principal in logs and in GET /v1/me.
	Name string
	// Grants maps a forest id to what the principal may do there. A
	// forest without a grant answers exactly as a forest that does not
	// exist.
	Grants map[string]vine.Policy
	// Mask, when non-nil, filters the capabilities of every grant (and
	// the owner bit) at the moment of use. Nil means unmasked; an empty
	// non-nil mask leaves a working key that can do nothing.
	Mask []vine.Capability
	// Owner is the deployment owner bit. It counts only when the mask,
	// if any, includes admin.
	Owner bool

	local bool // every forest, FullPolicy
}

// LocalOwner is the caller of a local, unauthenticated server (stdio, or
// HTTP started with --open): every capability on the whole of every
// forest.
func LocalOwner() *Principal {
	return &Principal{Name: "local", Owner: true, local: true}
}

// IsLocal reports whether p is the LocalOwner, granted every forest.
func (p *Principal) IsLocal() bool { return p.local }

// Policy is the effective policy of p in forest: its grant with the
// capabilities narrowed by the mask. ok is false when p holds no grant
// there, and the forest must then answer as unknown.
//
// An owner whose bit survives the mask (IsOwner) holds vine.FullPolicy on
// every forest, present or future, whatever its grants say (spec 09 §1):
// the bit is a property of the principal, never a sum of grants. Its caps
// still pass through the mask, which by then includes admin.
func (p *Principal) Policy(forest string) (pol vine.Policy, ok bool) {
	if p.local {
		return vine.FullPolicy(), true
	}
	if p.IsOwner() {
		pol = vine.FullPolicy()
		pol.Caps = Masked(pol.Caps, p.Mask)
		return pol, true
	}
	g, ok := p.Grants[forest]
	if !ok {
		return vine.Policy{}, false
	}
	g.Allow = slices.Clone(g.Allow)
	g.Deny = slices.Clone(g.Deny)
	g.Caps = Masked(g.Caps, p.Mask)
	return g, true
}

// Forests lists the forests p holds a stored grant on, sorted. The
// LocalOwner and an owner (IsOwner) are granted every forest, which no
// list can hold: ask IsLocal and IsOwner first, and list the forests
// served instead.
func (p *Principal) Forests() []string {
	out := make([]string, 0, len(p.Grants))
	for id := range p.Grants {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Admin reports whether p holds admin on some forest after the mask: a
// masked key without admin is admin nowhere. An owner is admin on every
// forest, even when none exists.
func (p *Principal) Admin() bool {
	if p.local || p.IsOwner() {
		return true
	}
	for _, g := range p.Grants {
		if slices.Contains(Masked(g.Caps, p.Mask), vine.CapAdmin) {
			return true
		}
	}
	return false
}

// IsOwner reports the owner bit as the mask lets it through: only when
// the mask, if any, includes admin.
func (p *Principal) IsOwner() bool {
	return p.Owner && (p.Mask == nil || slices.Contains(p.Mask, vine.CapAdmin))
}
