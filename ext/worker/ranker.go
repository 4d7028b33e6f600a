// SPDX-License-Identifier: Apache-2.0

package worker

import (
	"context"
	"encoding/json"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
)

// Ranker is an extension's ranking handler as the engine's harvest
// ranker (it satisfies vine.Ranker): the first ranking contribution of
// the manifest, since the seam takes the first claimant.
type Ranker struct {
	w       *Worker
	handler string
}

// Ranker is the extension's ranker, nil when it contributes none.
func (w *Worker) Ranker() *Ranker {
	if len(w.man.Contributes.Ranking) == 0 {
		return nil
	}
	return &Ranker{w: w, handler: w.man.Contributes.Ranking[0].HandlerName()}
}

// Name is "ext:<id>", how traces name it.
func (r *Ranker) Name() string { return "ext:" + r.w.man.ID }

// Rank asks the extension to order items for query.
func (r *Ranker) Rank(ctx context.Context, query string, items []ext.Ranked) ([]string, error) {
	raw, err := r.w.Call(ctx, ext.CallOf(ctx), ext.SeamRanking, r.handler, map[string]any{"query": query, "results": items})
	if err != nil {
		return nil, err
	}
	var ids []string
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, r.w.failure(envelope.ExtWorker, "ranking handler "+r.handler+" did not answer a list of ids", "")
	}
	return ids, nil
}
