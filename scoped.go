// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// Scoped is a forest seen through a Policy (J.3): every primitive runs
// with the policy's capabilities, and a node outside its prefixes answers
// exactly as a node that does not exist — same code, message and hint —
// while counts, totals and truncation flags are computed from the visible
// nodes alone. Transports serve forests only through a Scoped; local
// serving uses FullPolicy, so there is one code path.
//
// A Scoped is safe for concurrent use and as cheap to make as a map
// lookup; make one per principal and request if that is simpler.
type Scoped struct {
	v *Vine
	s *scope
}

// Scoped returns the view of v under p. An unknown capability is an
// E_SCHEMA error.
func (v *Vine) Scoped(p Policy) (*Scoped, error) {
	s, err := compilePolicy(p)
	if err != nil {
		return nil, err
	}
	return &Scoped{v: v, s: s}, nil
}

// capOf is the capability a primitive needs. Read-only primitives that
// are not listed (a composite a host registered) need read; writes need
// write.
func capOf(name string, readOnly bool) Capability {
	switch name {
	case "query":
		return CapQuery
	case "tend":
		return CapTend
	case "answer":
		return CapAnswer
	case "ingest", "adopt", "sync", "upload":
		return CapIngest
	case "close_session":
		return CapRead
	}
	if readOnly {
		return CapRead
	}
	return CapWrite
}

// Call runs a primitive like Vine.Call, under the policy: the capability
// is checked first (E_FORBIDDEN naming it), then the arguments, then the
// primitive with every id gated and every count filtered.
func (sc *Scoped) Call(ctx context.Context, name string, args []byte) (any, error) {
	if sig, ok := LookupSignature(name); ok {
		if c := capOf(name, sig.ReadOnly); !sc.s.has(c) {
			return nil, sc.forbidden(name, c)
		}
	}
	return sc.v.Call(withScope(ctx, sc.s), name, args)
}

// Context returns ctx carrying the policy, for hosts and composites that
// call the typed methods of the underlying forest (Locate, Sniff, …)
// through the same gates Call uses. It is the one way a policy reaches a
// primitive; no wire argument can set it.
func (sc *Scoped) Context(ctx context.Context) context.Context {
	return withScope(ctx, sc.s)
}

func (sc *Scoped) forbidden(name string, c Capability) error {
	have := make([]string, 0, len(sc.s.caps))
	for _, k := range allCaps {
		if sc.s.caps[k] {
			have = append(have, string(k))
		}
	}
	hint := "this key holds no capability"
	if len(have) > 0 {
		hint = "this key holds: " + strings.Join(have, ", ")
	}
	return envelope.New(envelope.Forbidden,
		fmt.Sprintf("%s needs the %s capability", name, c), hint)
}

// Can reports whether the policy grants c (admin grants everything).
func (sc *Scoped) Can(c Capability) bool { return sc.s.has(c) }

// InScope reports whether id is visible under the policy.
func (sc *Scoped) InScope(id string) bool { return sc.s.in(strings.Trim(id, "/")) }

// Roots are the index nodes the principal starts from: the master index
// for a whole-forest policy, else one index per allowed prefix.
func (sc *Scoped) Roots() []string { return sc.s.roots() }

// Caps lists the granted capabilities in their canonical order.
func (sc *Scoped) Caps() []Capability {
	out := []Capability{}
	for _, c := range allCaps {
		if sc.s.caps[c] {
			out = append(out, c)
		}
	}
	return out
}

// Unrestricted reports whether the policy sees the whole forest with no
// deny: whole-forest repairs (reindex, recurate) need it with admin.
func (sc *Scoped) Unrestricted() bool { return !sc.s.restricted() }

// Dir is the forest's directory, for hosts that serve payload bytes
// after gating the node through the Scoped view.
func (sc *Scoped) Dir() string { return sc.v.Dir() }

// ReadOnly reports whether the underlying forest was opened read-only.
func (sc *Scoped) ReadOnly() bool { return sc.v.ReadOnly() }

// Has reports whether p grants c (admin grants every capability); a
// policy naming an unknown capability grants nothing. Hosts gate routes
// that open no forest with it.
func (p Policy) Has(c Capability) bool {
	s, err := compilePolicy(p)
	return err == nil && s.has(c)
}

// Unrestricted reports whether p sees the whole forest with no deny, as
// Scoped.Unrestricted does, without a forest at hand.
func (p Policy) Unrestricted() bool {
	s, err := compilePolicy(p)
	return err == nil && !s.restricted()
}
