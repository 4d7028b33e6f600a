// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"strings"

	"github.com/monkeyllm/vine/internal/window"
)

// WindowEcho is the normalized window a windowed read echoes (C.13.1 r6):
// full dates, or null for an open end, and the date field it read.
type WindowEcho = window.Echo

// scopeIDSQL restricts nodes to a scope as scopePrefix returns it: "" is
// the whole forest, a prefix ending in "/" every id under that folder (a
// byte-wise range on the primary key, never LIKE, whose _ is a wildcard),
// anything else one node id.
func scopeIDSQL(prefix string) (string, []any) {
	switch {
	case prefix == "":
		return "1", nil
	case strings.HasSuffix(prefix, "/"):
		// "/"+1 is "0": the ids under x/ are exactly those in [x/, x0).
		return "(id >= ? AND id < ?)", []any{prefix, prefix[:len(prefix)-1] + "0"}
	default:
		return "id = ?", []any{prefix}
	}
}

// windowFacts reads the window facts of ctx's call: every count keeps to
// the call's policy.
func windowFacts(ctx context.Context, stmts *stmtCache) window.Facts {
	return window.Facts{Stmts: stmts, Restrict: func(where string, args []any) (string, []any) {
		return andScope(ctx, "id", where, args)
	}}
}

// undatedCount counts the nodes under prefix ("" = whole forest, see
// scopeIDSQL) whose w.Field date is empty: the nodes no window can hold,
// reported as undated_excluded.
func undatedCount(ctx context.Context, stmts *stmtCache, w window.Window, prefix string) (int, error) {
	where, args := scopeIDSQL(prefix)
	return windowFacts(ctx, stmts).Undated(ctx, w.Column(), where, args)
}
