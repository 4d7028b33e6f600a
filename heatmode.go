// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"sync"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/terms"
	"github.com/monkeyllm/vine/trails"
)

// Query-conditioned heat (issue 34). Every question a hunt asks (locate's
// query, sniff's terms, and so harvest's) is remembered as a topic for
// the hunt; the close lays its heat on that topic as well as on the
// nodes (trails.Store.DepositTopic). A read ranks with the topic of its
// own question, or, for reads that ask none (look, move, scan), of the
// hunt's questions so far; the forest's heat mode decides whether that
// topic conditions the heat or heat is read per node as before.

type heatTopicKey struct{}

// ask notes the question's terms as the hunt's and returns the context
// its reads rank in.
func (h *heatLayer) ask(ctx context.Context, ts []string) context.Context {
	folded := make([]string, len(ts))
	for i, t := range ts {
		folded[i] = terms.Fold(t)
	}
	topic := trails.TopicOf(folded)
	if len(topic) == 0 {
		return ctx
	}
	h.hunts.add(h.sessionOf(ctx), topic)
	return context.WithValue(ctx, heatTopicKey{}, topic)
}

// topicOf is the call's question, else its hunt's questions so far.
func (h *heatLayer) topicOf(ctx context.Context) trails.Topic {
	if t, ok := ctx.Value(heatTopicKey{}).(trails.Topic); ok {
		return t
	}
	return h.hunts.get(h.sessionOf(ctx))
}

// huntsMax bounds the hunts remembered: a caller that never closes its
// sessions must not grow memory without end. The oldest hunt goes first;
// its close then lays node heat only, as before issue 34.
const huntsMax = 4096

// huntTopics is each hunt's topic, in the process that served it: like
// the trace kept for the close's metrics, a hunt closed by another
// process than the one that read for it lays node heat only. A closed
// hunt keeps its topic for the graft that may follow its shout (the
// shortcut's fortification then carries the questions that found it);
// its session's next question starts a new topic.
type huntTopics struct {
	mu    sync.Mutex
	hunts map[string]*hunt
	order []string // sessions in the order they first asked
}

type hunt struct {
	topic  trails.Topic
	closed bool
}

func (t *huntTopics) add(session string, topic trails.Topic) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hunts == nil {
		t.hunts = map[string]*hunt{}
	}
	h, known := t.hunts[session]
	if !known {
		for len(t.order) >= huntsMax {
			delete(t.hunts, t.order[0])
			t.order = t.order[1:]
		}
		t.order = append(t.order, session)
		h = &hunt{}
		t.hunts[session] = h
	}
	if h.closed {
		h.topic, h.closed = nil, false
	}
	h.topic = h.topic.Union(topic)
}

func (t *huntTopics) get(session string) trails.Topic {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.hunts[session]; h != nil {
		return h.topic
	}
	return nil
}

// close marks the session's hunt over: its topic stays for a graft, and
// the session's next question starts afresh.
func (t *huntTopics) close(session string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.hunts[session]; h != nil {
		h.closed = true
	}
}

// HeatMode is the forest's heat mode, recorded in _derived/trails.db:
// trails.Unconditioned (the default) or trails.Conditioned.
func (v *Vine) HeatMode(ctx context.Context) (trails.HeatMode, error) {
	m, err := v.heat.store.Mode(ctx)
	if err != nil {
		return m, envelope.From("heat_mode", err)
	}
	return m, nil
}

// SetHeatMode records how the forest's reads weigh heat: "conditioned"
// lifts a node only for questions sharing terms with the hunts that
// warmed it, "unconditioned" by its heat alone (the original's rule).
// Heat is laid for both readings whatever the mode, so switching loses
// nothing. It writes only the derived layer; a read-only Vine refuses.
func (v *Vine) SetHeatMode(ctx context.Context, mode trails.HeatMode) error {
	if err := v.writable("heat_mode"); err != nil {
		return err
	}
	if _, err := trails.ParseHeatMode(string(mode)); err != nil {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("heat_mode: parameter 'mode' got %q, expected %q or %q", mode, trails.Conditioned, trails.Unconditioned),
			"conditioned lifts a node only for questions like the ones that warmed it; unconditioned is the original's rule")
	}
	if err := v.heat.store.SetMode(ctx, mode); err != nil {
		return envelope.From("heat_mode", err)
	}
	return nil
}
