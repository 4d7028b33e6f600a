// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// MaxLandmarks is how many nodes the master index lists under Landmarks
// at most (A.5 asks for 10 to 20; fewer is fine).
const MaxLandmarks = 20

// LandmarksResult is the outcome of RefreshLandmarks: how many landmarks
// the master index lists, and whether this refresh rewrote it.
type LandmarksResult struct {
	Landmarks int  `json:"landmarks"`
	Changed   bool `json:"changed"`
}

// RefreshLandmarks lists the forest's most woven nodes under "## Landmarks"
// of the master index (H.7): the top MaxLandmarks by degree over typed
// edges (catalog edge rows as source plus as destination), degree
// descending then id ascending, leaving out branches, _meta and nodes
// without edges. Folders do not count: a landmark measures how woven a
// node is, not how it is filed. When the section already lists exactly
// these entries nothing is written; otherwise the section is replaced
// whole (appended when missing) in one "ranger(landmarks): refresh"
// commit of _index.md alone.
func (r *Ranger) RefreshLandmarks(ctx context.Context) (LandmarksResult, error) {
	if err := r.writable("landmarks"); err != nil {
		return LandmarksResult{}, err
	}
	lines, err := r.landmarkLines(ctx)
	if err != nil {
		return LandmarksResult{}, err
	}
	sha, err := r.v.Maintain(ctx, gitops.RangerLandmarksSubject, func(e *vine.Editor) error {
		master, err := e.Node(forest.RootIndexID)
		if err != nil {
			return err
		}
		if slices.Equal(entryLines(master.Body, forest.SectionLandmarks), lines) {
			return nil
		}
		master.Body = forest.ReplaceSection(master.Body, forest.SectionLandmarks, lines)
		return e.Put(master)
	})
	if err != nil {
		return LandmarksResult{}, err
	}
	return LandmarksResult{Landmarks: len(lines), Changed: sha != ""}, nil
}

// landmarkLines renders the desired Landmarks entries, "- [[id]] — summary".
func (r *Ranger) landmarkLines(ctx context.Context) ([]string, error) {
	deg, err := r.degrees(ctx)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		id     string
		degree int
	}
	cands := make([]ranked, 0, len(deg))
	for id, d := range deg {
		if d > 0 && !forest.IsSystem(id) && !forest.IsIndex(id) {
			cands = append(cands, ranked{id, d})
		}
	}
	slices.SortFunc(cands, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.degree, a.degree), strings.Compare(a.id, b.id))
	})
	lines := []string{}
	for _, c := range cands {
		if len(lines) == MaxLandmarks {
			break
		}
		rec, ok, err := r.v.Catalog().Get(ctx, c.id)
		if err != nil {
			return nil, err
		}
		if ok && rec.Kind != "branch" { // an edge to a missing node names no landmark
			lines = append(lines, forest.EntryLine(rec.ID, rec.Summary))
		}
	}
	return lines, nil
}

// degrees counts each id's edge rows in the catalog, as source plus as
// destination (A.2, H.3): typed edges only, since folder placement is not
// an edge. Ids may be link targets that are not nodes.
func (r *Ranger) degrees(ctx context.Context) (map[string]int, error) {
	deg, err := r.v.Catalog().EdgeDegrees(ctx)
	if err != nil {
		return nil, fmt.Errorf("ranger: edge degrees: %w", err)
	}
	return deg, nil
}

// entryLines returns a section's entry lines ("- [[" …), the lines the
// idempotence check compares.
func entryLines(body, heading string) []string {
	lines := []string{}
	for _, l := range forest.SectionLines(body, heading) {
		if strings.HasPrefix(l, "- [[") {
			lines = append(lines, l)
		}
	}
	return lines
}
