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
