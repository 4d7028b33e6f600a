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

// Prompter is an extension's prompt handler as answer's prompt
// contribution (it satisfies answer.Prompter): the first prompt
// contribution of the manifest.
type Prompter struct {
	w       *Worker
	handler string
}

// Prompter is the extension's prompter, nil when it contributes none.
func (w *Worker) Prompter() *Prompter {
	if len(w.man.Contributes.Prompt) == 0 {
		return nil
	}
	return &Prompter{w: w, handler: w.man.Contributes.Prompt[0].HandlerName()}
}

// Name is "ext:<id>".
func (p *Prompter) Name() string { return "ext:" + p.w.man.ID }

// Prompt asks the extension what to append to the system message.
func (p *Prompter) Prompt(ctx context.Context, mode, question, system string) (string, error) {
	raw, err := p.w.Call(ctx, ext.CallOf(ctx), ext.SeamPrompt, p.handler, map[string]any{"mode": mode, "question": question, "system": system})
	if err != nil {
		return "", err
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return "", p.w.failure(envelope.ExtWorker, "prompt handler "+p.handler+" did not answer text", "")
	}
	return text, nil
}
