// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"strings"

	"github.com/monkeyllm/vine"
)

// Caller is who asks a webhook route: a principal through its key's mask,
// on the forest the route names. The host has already answered an
// ungranted forest as unknown.
type Caller struct {
	Principal string
	Mask      []vine.Capability
	Forest    string
}

// scopes are the stored scopes the caller may manage: the forest when it
// administers it, and "-" when it governs the deployment. None is the
// 403 of 09 §10.
func (h *Hooks) scopes(ctx context.Context, c Caller) (forest, deployment bool, err error) {
	if forest, err = h.opt.Registry.IsAdmin(ctx, c.Principal, c.Forest, c.Mask); err != nil {
		return false, false, err
	}
	if deployment, err = h.opt.Registry.GovernsDeployment(ctx, c.Principal, c.Mask, h.forestIDs()); err != nil {
		return false, false, err
	}
	if !forest && !deployment {
		return false, false, &vine.Error{Code: vine.EForbidden, Message: "requires the 'admin' capability on that forest"}
	}
	return forest, deployment, nil
}

// storedScopes are the caller's scopes as the table spells them.
func (h *Hooks) storedScopes(ctx context.Context, c Caller) ([]string, error) {
	forest, deployment, err := h.scopes(ctx, c)
	if err != nil {
		return nil, err
	}
	out := []string{}
	if forest {
		out = append(out, c.Forest)
	}
	if deployment {
		out = append(out, Deployment)
	}
	return out, nil
}

// forestIDs are the forests that exist now.
func (h *Hooks) forestIDs() []string {
	ids := []string{}
	for _, f := range h.opt.Forests.List().Forests {
		ids = append(ids, f.ID)
	}
	return ids
}

// ownerHolds re-reads whether a webhook's owner still has authority over
// its scope (no key mask: the grant as it stands).
func (h *Hooks) ownerHolds(ctx context.Context, w stored) (bool, error) {
	if w.Scope == Deployment {
		return h.opt.Registry.GovernsDeployment(ctx, w.Owner, nil, h.forestIDs())
	}
	return h.opt.Registry.IsAdmin(ctx, w.Owner, w.Scope, nil)
}

// sight is what one webhook may see of one forest: its owner's policy
// there, narrowed by its branches.
type sight struct {
	scoped   *vine.Scoped
	branches []string
}

// sightOf reads the owner's live policy on forest; ok is false when the
// owner holds none there (nothing of the forest is visible).
func (h *Hooks) sightOf(ctx context.Context, w stored, forest string) (sight, bool, error) {
	p, found, err := h.opt.Registry.Live(ctx, w.Owner, nil)
	if err != nil || !found {
		return sight{}, false, err
	}
	pol, ok := p.Policy(forest)
	if !ok {
		return sight{}, false, nil
	}
	v, err := h.opt.Forests.Forest(ctx, forest)
	if err != nil {
		return sight{}, false, nil // a forest gone is a forest nobody sees
	}
	sc, err := v.Scoped(pol)
	if err != nil {
		return sight{}, false, err
	}
	return sight{scoped: sc, branches: w.Branches}, true, nil
}

// sees reports whether id is visible: in the owner's policy and under one
// of the branches, when the webhook lists any.
func (s sight) sees(id string) bool {
	if id == "" || !s.scoped.InScope(id) {
		return false
	}
	if len(s.branches) == 0 {
		return true
	}
	for _, b := range s.branches {
		if b == "" || strings.HasPrefix(id, b) {
			return true
		}
	}
	return false
}
