// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"slices"

	"github.com/monkeyllm/vine"
)

// The reach predicates (spec 09 §5): who administers what. Each has one
// implementation, here; webhooks, shares and the admin routes call them,
// never copy them. A mask is a key's capability mask as Resolve carries
// it (keys.Principal.Mask): nil is unmasked, and a mask without admin
// makes its holder admin nowhere, the owner included.

// Reach is a set of forests a principal administers: every forest,
// present and future, for the owner; else those listed.
type Reach struct {
	// Every is the owner's reach: each forest, including ones not made yet.
	Every bool
	// Forests are the administered forests, sorted, when Every is false.
	Forests []string
}

// Has reports whether forest is within the reach.
func (r Reach) Has(forest string) bool { return r.Every || slices.Contains(r.Forests, forest) }

// maskAdmits reports whether mask lets admin through.
func maskAdmits(mask []vine.Capability) bool {
	return mask == nil || slices.Contains(mask, vine.CapAdmin)
}

// IsAdmin reports whether principal, through mask, holds admin on forest,
// or on some forest when forest is "": false when the mask lacks admin;
// true for the owner; else whether a grant (on forest, if given) holds
// admin.
func (r *Registry) IsAdmin(ctx context.Context, principal, forest string, mask []vine.Capability) (bool, error) {
	if !maskAdmits(mask) {
		return false, nil
	}
	reach, err := r.Administered(ctx, principal)
	if err != nil {
		return false, err
	}
	if forest == "" {
		return reach.Every || len(reach.Forests) > 0, nil
	}
	return reach.Has(forest), nil
}

// Administered is the reach of principal: every forest for the owner,
// else the forests whose grant holds admin. An unknown principal
// administers nothing.
func (r *Registry) Administered(ctx context.Context, principal string) (Reach, error) {
	owner, err := ownerOf(ctx, r.db)
	if err != nil {
		return Reach{}, err
	}
	if owner != "" && owner == principal {
		return Reach{Every: true}, nil
	}
	grants, err := r.Grants(ctx, principal)
	if err != nil {
		return Reach{}, err
	}
	out := Reach{Forests: []string{}}
	for _, g := range grants {
		if slices.Contains(g.Caps, vine.CapAdmin) {
			out.Forests = append(out.Forests, g.Forest)
		}
	}
	return out, nil
}

// AdministersFully reports whether principal may act on target's
// credentials (the J.2.2 escalation rule, for every credential act): the
// owner may; nobody else may touch the owner; a target holding no grant
// may not be touched; else every forest target holds must be within
// principal's reach, so a key minted for target never reaches further
// than its minter.
func (r *Registry) AdministersFully(ctx context.Context, principal, target string) (bool, error) {
	reach, err := r.Administered(ctx, principal)
	if err != nil || reach.Every {
		return err == nil, err
	}
	owner, err := ownerOf(ctx, r.db)
	if err != nil || (owner != "" && owner == target) {
		return false, err
	}
	grants, err := r.Grants(ctx, target)
	if err != nil || len(grants) == 0 {
		return false, err
	}
	for _, g := range grants {
		if !reach.Has(g.Forest) {
			return false, nil
		}
	}
	return true, nil
}

// GovernsDeployment reports whether principal, through mask, has
// authority over the whole deployment (providers, deployment webhooks):
// false when the mask lacks admin; true for the owner; else at least one
// forest exists and principal administers each of forests, the forests
// existing now. A forest made later narrows it at once.
func (r *Registry) GovernsDeployment(ctx context.Context, principal string, mask []vine.Capability, forests []string) (bool, error) {
	if !maskAdmits(mask) {
		return false, nil
	}
	reach, err := r.Administered(ctx, principal)
	if err != nil || reach.Every {
		return err == nil, err
	}
	if len(forests) == 0 {
		return false, nil
	}
	for _, f := range forests {
		if !reach.Has(f) {
			return false, nil
		}
	}
	return true, nil
}
