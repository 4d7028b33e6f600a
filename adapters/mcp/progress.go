// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine/answer"
)

// hopProgress makes an answer walk send one progress notification per
// hop when the client gave a progress token (spec 05 §6.11, v0.82):
// (n, budget, message). The hop observer never waits on the transport
// (the notifier queues or drops); the returned flush waits until every
// notification is out, so all precede the result.
func hopProgress(ctx context.Context, ss *sdk.ServerSession, token any, raw json.RawMessage) (context.Context, func()) {
	budget := hopBudget(raw)
	n := newNotifier(ctx, ss, token)
	ctx = answer.WithObservers(ctx, answer.Observers{OnHop: func(h answer.Hop) {
		msg := fmt.Sprintf("hop %d: %s", h.N, h.Tool)
		if h.ID != "" {
			msg += " " + h.ID
		}
		n.send(h.N, budget, msg)
	}})
	return ctx, n.flush
}

// hopBudget is the walk's hop budget as the call asked for it: true is
// answer.DefaultHops, a number is itself capped at answer.MaxHops; a
// sweep has none.
func hopBudget(raw json.RawMessage) int {
	var a struct {
		Hops json.RawMessage `json:"hops"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return 0
	}
	var on bool
	if json.Unmarshal(a.Hops, &on) == nil {
		if on {
			return answer.DefaultHops
		}
		return 0
	}
	var n int
	if json.Unmarshal(a.Hops, &n) == nil {
		return min(max(n, 0), answer.MaxHops)
	}
	return 0
}
