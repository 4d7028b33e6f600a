// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"github.com/monkeyllm/vine/internal/scent"
	"github.com/monkeyllm/vine/internal/window"
)

// locate's filters as tests over a row of the in-memory copy of the
// metadata index, which the locator ranks in (locator.go).

// keep is the filter as a test over an index row, the twin of sql: nil
// when nothing narrows. A filtered row must have a node (the SQL joins
// nodes before the limit).
func (f locateFilter) keep() func(*scent.Doc) bool {
	if f.kind == "" && f.typ == "" && !f.win.Active() && !f.scope.restricted() {
		return nil
	}
	inWindow := windowTest(f.win)
	return func(d *scent.Doc) bool {
		switch {
		case !d.Node,
			f.kind == "branch" && !d.Branch,
			f.kind == "note" && d.Branch,
			f.typ != "" && d.Type != f.typ,
			!inWindow(d),
			f.scope.restricted() && !f.scope.in(d.ID):
			return false
		}
		return true
	}
}

// windowTest is the window's SQL predicate over a row's date, its bounds
// taken from the predicate's own arguments once per call (Contains
// would work the day after until out again for every row).
func windowTest(w window.Window) func(*scent.Doc) bool {
	if !w.Active() {
		return func(*scent.Doc) bool { return true }
	}
	_, args := w.SQL("")
	var lo, hi string
	if w.Since != "" {
		lo, args = args[0].(string), args[1:]
	}
	if w.Until != "" {
		hi = args[0].(string)
	}
	updated := w.Field == window.Updated
	return func(d *scent.Doc) bool {
		date := d.Created
		if updated {
			date = d.Updated
		}
		return date != "" && (lo == "" || date >= lo) && (hi == "" || date < hi)
	}
}
