// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"time"

	"github.com/monkeyllm/vine/ext"
)

// Ranker reorders a harvest's items after they are built and before the
// budget: the ranking seam of spec 11 §3, which an extension enabled on
// the forest fills. It may reorder and drop, never invent: an id it
// returns that was not handed in is ignored, an item it leaves out is
// dropped. A ranker that fails or takes longer than RankDeadline leaves
// the original order. Rankers are host-only: set with SetRanker, never
// decoded from a call's arguments.
type Ranker interface {
	// Name is how traces and results name the ranker, "ext:<id>".
	Name() string
	Rank(ctx context.Context, query string, items []ext.Ranked) ([]string, error)
}

// RankDeadline is how long a Ranker may take before it counts as failed.
const RankDeadline = 2 * time.Second

// SetRanker makes r the forest's ranker for every later harvest (nil
// removes it). Hosts call it with the first ranking contribution among
// the extensions the forest enables.
func (v *Vine) SetRanker(r Ranker) {
	if r == nil {
		v.ranker.Store(nil)
		return
	}
	v.ranker.Store(&r)
}

func (v *Vine) currentRanker() Ranker {
	if p := v.ranker.Load(); p != nil {
		return *p
	}
	return nil
}

// rerank applies r to items, returning the new list and whether r
// changed anything; on failure the items come back as they were.
func rerank(ctx context.Context, r Ranker, query string, items []HarvestItem) ([]HarvestItem, bool, error) {
	if r == nil || len(items) == 0 {
		return items, false, nil
	}
	in := make([]ext.Ranked, len(items))
	byID := make(map[string]int, len(items))
	for i, it := range items {
		in[i] = ext.Ranked{ID: it.ID, Title: it.Title, Type: it.Type, Score: it.Score, Summary: it.Summary}
		byID[it.ID] = i
	}
	rctx, cancel := context.WithTimeout(ctx, RankDeadline)
	defer cancel()
	ids, err := r.Rank(rctx, query, in)
	if err != nil {
		return items, false, err
	}
	out := make([]HarvestItem, 0, len(items))
	seen := map[string]bool{}
	for _, id := range ids {
		i, ok := byID[id]
		if !ok || seen[id] {
			continue // never invent, never repeat
		}
		seen[id] = true
		out = append(out, items[i])
	}
	changed := len(out) != len(items)
	for i := range out {
		changed = changed || out[i].ID != items[i].ID
	}
	return out, changed, nil
}
