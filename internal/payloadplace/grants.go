// SPDX-License-Identifier: Apache-2.0

package payloadplace

import (
	"context"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/catalog"
)

// NoTable is an allow-list entry no table can match: SQLite names are C
// strings, so none holds a NUL. A list of it alone withholds every table.
const NoTable = "\x00"

// GrantedTables is the table allow-list the scope's grants put on a
// statement over rec's payload (C.5.3), nil when none applies. A grant
// names a dataset node, but what it protects is the file behind it:
// every grant whose node's payload is the same file as this one's
// applies, so a second passport planted onto that file inherits the
// allow-list instead of escaping it. Several lists intersect.
func (p *Place) GrantedTables(ctx context.Context, s Scope, rec catalog.Record) []string {
	if len(s.Tables) == 0 {
		return nil
	}
	self := p.Identity(rec.ID, rec.Payload)
	var lists [][]string
	for id, tables := range s.Tables {
		if len(tables) == 0 || (id != rec.ID && !p.samePayload(ctx, id, self)) {
			continue
		}
		lists = append(lists, tables)
	}
	if len(lists) == 0 {
		return nil
	}
	return intersectTables(lists)
}

// samePayload reports whether the dataset node id names the payload file
// identified by self. The grant's node is read unscoped: the policy's own
// entries are the host's, not the caller's.
func (p *Place) samePayload(ctx context.Context, id, self string) bool {
	if self == "" {
		return false
	}
	rec, ok, err := p.cat.Get(ctx, id)
	if err != nil || !ok || rec.Payload == "" {
		return false
	}
	return p.Identity(rec.ID, rec.Payload) == self
}

// intersectTables is the tables every list allows (case-insensitive, as
// SQLite compares names); NoTable when none is left.
func intersectTables(lists [][]string) []string {
	out := slices.Clone(lists[0])
	for _, l := range lists[1:] {
		out = slices.DeleteFunc(out, func(t string) bool {
			return !slices.ContainsFunc(l, func(u string) bool { return strings.EqualFold(t, u) })
		})
	}
	if len(out) == 0 {
		return []string{NoTable}
	}
	return out
}
