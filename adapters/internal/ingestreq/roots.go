// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/gardener"
)

// rootsSetting is the operator's setting the refusals name (J.8.2).
const rootsSetting = "MONKEYLLM_INGEST_ROOTS"

// Roots are the host directories adopt and sync may read (J.8.2),
// absolute with symlinks resolved: the form paths are compared in. None
// refuses every host path; upload and compose need none.
type Roots []string

// ResolveRoots makes ingest roots absolute with symlinks resolved; a
// root that does not resolve is dropped (the host checks its roots at
// startup).
func ResolveRoots(roots []string) Roots {
	var out Roots
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			if abs, err := filepath.Abs(real); err == nil {
				out = append(out, abs)
			}
		}
	}
	return out
}

// Allow refuses host path p (E_FORBIDDEN naming the setting) unless it
// lies inside one of the roots, compared after symlinks are resolved.
func (rs Roots) Allow(p string) error {
	if len(rs) == 0 {
		return envelope.New(envelope.Forbidden, "ingest: host paths are not served here: "+rootsSetting+" names no ingest root",
			"upload the files instead, or ask the operator to set "+rootsSetting)
	}
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err == nil {
		for _, root := range rs {
			if rel, err := filepath.Rel(root, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil
			}
		}
	}
	return envelope.New(envelope.Forbidden, "ingest: path is outside the ingest roots",
		"the operator lists the host directories ingest may read in "+rootsSetting)
}

// RecordedRoot is the source root a bare sync of the forest in dir
// reconciles, absolute; "" when none is recorded.
func RecordedRoot(dir string) (string, error) {
	cfg, err := gardener.LoadConfig(dir)
	if err != nil || cfg.SourceRoot == "" {
		return "", err
	}
	root := cfg.SourceRoot
	if !filepath.IsAbs(root) {
		root = filepath.Join(dir, root)
	}
	return root, nil
}

// sourceAllowed applies the ingest roots to what adopt and sync read:
// adopt's path, and the source root a sync reconciles, which was
// recorded by an adopt and is checked against the roots as they are now.
func (rs Roots) sourceAllowed(dir string, req Request) error {
	if req.Mode == ModeAdopt {
		return rs.Allow(req.Path)
	}
	if filepath.IsAbs(req.Path) {
		return envelope.New(envelope.Schema, "ingest: sync path is relative to the recorded source root, got an absolute path",
			"name a file or folder inside the source, or adopt a new source")
	}
	root, err := RecordedRoot(dir)
	if err != nil || root == "" {
		return err // no recorded root: the Gardener refuses the sync in its own words
	}
	return rs.Allow(root)
}
