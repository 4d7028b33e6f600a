// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"os/exec"
)

// GC outcomes reported by [Repo.GCAuto] (H.8).
const (
	GCRan         = "ran"
	GCUnavailable = "unavailable"
)

// GCAuto runs `git gc --auto --quiet` in the forest, the Ranger's closing
// maintenance: one loose object per write slows every git operation
// until they are packed. go-git has no equivalent, so this is the one
// place the package uses a git binary, and it is optional: without git,
// or when gc fails, the answer is GCUnavailable and nothing else happens.
// Commits wait while it runs.
func (r *Repo) GCAuto(ctx context.Context) string {
	bin, err := exec.LookPath("git")
	if err != nil {
		return GCUnavailable
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// autoDetach=false: a detached gc would go on packing after the lock
	// is released, racing the next commit.
	cmd := exec.CommandContext(ctx, bin, "-C", r.root, "-c", "gc.autoDetach=false", "gc", "--auto", "--quiet")
	if err := cmd.Run(); err != nil {
		return GCUnavailable
	}
	return GCRan
}
