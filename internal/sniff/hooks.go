// SPDX-License-Identifier: Apache-2.0

package sniff

// Hooks for the whole-forest tests of the root package, which drive the
// engine through the sniff primitive and cannot reach its internals.

// SetMemoRowBudgetForTest sets the memo's row budget (memoRowBudget) and
// returns the function that restores it.
func SetMemoRowBudgetForTest(rows int64) (restore func()) {
	old := memoRowBudget
	memoRowBudget = rows
	return func() { memoRowBudget = old }
}

// MaxMemoBacklogForTest is the bound on the memo backlog (maxMemoBacklog).
const MaxMemoBacklogForTest = maxMemoBacklog

// SetMemoBacklogForTest sets the process's memo backlog (memoBacklog), to
// stand for a writer far behind or caught up.
func SetMemoBacklogForTest(n int64) { memoBacklog.Store(n) }

// MemoBacklogForTest is the process's memo backlog.
func MemoBacklogForTest() int64 { return memoBacklog.Load() }

// SetIndexMinScopeForTest sets the smallest scope looked up in the body
// index (indexMinScope), so the small test forests use it, and returns
// the function that restores it.
func SetIndexMinScopeForTest(n int) (restore func()) {
	old := indexMinScope
	indexMinScope = n
	return func() { indexMinScope = old }
}

// SetBodyIndexForTest turns the engine's use of the body index off or
// back on: off, every cold scan reads every body in scope, the literal
// scan the index must agree with.
func (e *Engine) SetBodyIndexForTest(on bool) {
	e.grams.mu.Lock()
	defer e.grams.mu.Unlock()
	e.grams.off = !on
}

// IndexedScansForTest is how many scans looked terms up in the body index.
func (e *Engine) IndexedScansForTest() int64 { return e.grams.used.Load() }

// SetFullReadMaxForTest sets the most bodies holding a term that one scan
// reads from their files (fullReadMax), so small forests take the path of
// a common term in a large one, and returns the function that restores it.
func SetFullReadMaxForTest(n int) (restore func()) {
	old := fullReadMax
	fullReadMax = n
	return func() { fullReadMax = old }
}

// SetPruneMinForTest sets the fewest bounded candidates a scan ranks on
// their bounds (pruneMin), so small forests take the path of a common
// term in a large one, and returns the function that restores it.
func SetPruneMinForTest(n int) (restore func()) {
	old := pruneMin
	pruneMin = n
	return func() { pruneMin = old }
}

// PrunedScansForTest is how many scans left bounded candidates unread.
func (e *Engine) PrunedScansForTest() int64 { return e.grams.pruned.Load() }
