// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"slices"

	"github.com/monkeyllm/vine"
)

// Role is a console preset: a name for a set of capabilities on one
// forest (spec 09 §5). The API speaks caps; roles are only a way to pick
// them. The per-forest "owner" role is every capability on that forest,
// not the owner bit.
type Role struct {
	Name string            `json:"name"`
	Caps []vine.Capability `json:"caps"`
}

var (
	rd, wr, qu, te = vine.CapRead, vine.CapWrite, vine.CapQuery, vine.CapTend
	in, ad, an     = vine.CapIngest, vine.CapAdmin, vine.CapAnswer
)

// roles hold answer wherever they hold read (v0.82); caps in canonical
// order.
var roles = []Role{
	{"reader", []vine.Capability{rd, an}},
	{"analyst", []vine.Capability{rd, qu, an}},
	{"editor", []vine.Capability{rd, wr, qu, te, an}},
	{"curator", []vine.Capability{rd, wr, qu, te, in, an}},
	{"owner", []vine.Capability{rd, wr, qu, te, in, ad, an}},
}

// Roles lists the presets, narrowest first.
func Roles() []Role {
	out := make([]Role, len(roles))
	for i, r := range roles {
		out[i] = Role{r.Name, slices.Clone(r.Caps)}
	}
	return out
}

// RoleCaps are the capabilities of the named preset; ok is false for a
// name that is none.
func RoleCaps(name string) (caps []vine.Capability, ok bool) {
	for _, r := range roles {
		if r.Name == name {
			return slices.Clone(r.Caps), true
		}
	}
	return nil, false
}
