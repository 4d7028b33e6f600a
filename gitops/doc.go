// SPDX-License-Identifier: Apache-2.0

// Package gitops is the forest's own git repository: .md-only commits with
// the subjects and trailers of spec 01 (forest format: the git layer), and
// the per-file history that history reads, C.16 of spec 03 (reads: region).
// [RedactSubject] reads those subjects back for a reader under an access
// policy, so history names no id it may not see.
//
// The forest root is always the top level of its own repository. A forest
// that merely lies inside an outer repository does not count: [Init] creates
// the forest's own, and [Open] refuses, so an engine write can never land in
// a project repository a person commits to by hand.
//
// Only markdown is versioned. [Commit] stages the paths it is given that end
// in ".md" and drops everything else without a word, because payloads
// (*.db, _assets/) and derived state stay out of git by design (A.3.1).
//
// The package needs no git binary. It stages the named paths directly in the
// index and builds each commit from it, never scanning the worktree, so a
// commit costs the same in a forest of ten files and of ten thousand. The
// index and the branch are replaced through git's own lock files
// (index.lock, <ref>.lock), so a git process working on the same repository
// at the same moment is refused rather than overwritten, and a failed commit
// leaves both exactly as they were.
package gitops
