// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
)

// prompter is the forest's prompt contribution, nil for none.
func (a *Answerer) prompter(ctx context.Context, v *vine.Vine) Prompter {
	if a.prompterFor == nil {
		return nil
	}
	return a.prompterFor(ctx, v)
}

// appendPrompt asks q's prompter for text to append to the system
// message, and names it when it did; a failure, a timeout or nothing to
// add leaves the message as it was.
func (a *Answerer) appendPrompt(ctx context.Context, q *query, mode string, system *Message) []string {
	if q.prompter == nil {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, PromptDeadline)
	defer cancel()
	extra, err := q.prompter.Prompt(pctx, mode, q.question, system.Content)
	if err != nil {
		a.log.Warn("prompt extension failed; the system message is unmodified", "ext", q.prompter.Name(), "err", err)
		return nil
	}
	if extra = strings.TrimSpace(extra); extra == "" {
		return nil
	}
	system.Content += "\n\n" + extra
	return []string{q.prompter.Name()}
}

// extensionsOf names every extension that changed an answer, once.
func extensionsOf(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, x := range l {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}
