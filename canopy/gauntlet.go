// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"container/list"
	"context"
	"math"
	"sync"
)

// Gauntlet is one call's resolved ranking (K.5): the goal and its vector
// in the space of the index that holds the node vectors.
type Gauntlet struct {
	// Toward is the goal text the list is ranked toward.
	Toward string
	vec    []float32
	ix     *Index
}

// Proximity is the ranking key of a node: its cosine to the goal rounded
// to three places, so heat decides near-ties; -1 for a node without a
// vector.
func (g *Gauntlet) Proximity(id string) float64 {
	cos, ok := g.ix.Similarity(g.vec, id)
	if !ok {
		return -1
	}
	return math.Round(float64(cos)*1000) / 1000
}

// SetGoal makes query the goal of the caller's session (K.2): the
// Gauntlet ranks toward the latest locate.
func (l *Layer) SetGoal(ctx context.Context, query string) { l.goals.set(l.session(ctx), query) }

// Gauntlet resolves the ranking of a look, move or scan call, or nil when
// it does not apply: the layer not active, no goal (no toward and no
// locate yet in the session), or the goal cannot be embedded. A nil
// Gauntlet leaves the call byte-identical to a forest without Canopy. The
// goal is toward when given, otherwise the session's latest locate query,
// embedded once per hunt.
func (l *Layer) Gauntlet(ctx context.Context, toward string) *Gauntlet {
	e, ix, ok := l.ready()
	if !ok {
		return nil
	}
	var vec []float32
	if toward == "" {
		session := l.session(ctx)
		var cached []float32
		if toward, cached = l.goals.get(session, e.Model()); toward == "" {
			return nil
		}
		if vec = cached; vec == nil {
			var err error
			if vec, err = l.embed(ctx, e, toward); err != nil {
				l.log.Warn("gauntlet goal not embedded; answering unranked", "err", err)
				return nil
			}
			l.goals.setVector(session, toward, e.Model(), vec)
		}
	} else {
		var err error
		if vec, err = l.embed(ctx, e, toward); err != nil {
			l.log.Warn("gauntlet toward not embedded; answering unranked", "err", err)
			return nil
		}
	}
	if len(vec) != ix.Dim {
		return nil
	}
	return &Gauntlet{Toward: toward, vec: vec, ix: ix}
}

// goalBook holds each session's goal (K.2): the text of its latest locate
// and, once embedded, its vector under one model. It is bounded: the
// least recently used sessions are forgotten first, and a forgotten goal
// only means the next frontier call answers unranked until a locate.
type goalBook struct {
	mu    sync.Mutex
	byID  map[string]*list.Element // session → element holding a *sessionGoal
	order *list.List               // most recent first
}

type sessionGoal struct {
	session string
	text    string
	model   string
	vec     []float32
}

// maxGoals bounds the sessions remembered per forest.
const maxGoals = 4096

// set makes text the session's goal; its vector is kept only when the
// text did not change.
func (b *goalBook) set(session, text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if g := b.touch(session); g != nil {
		if g.text != text {
			g.text, g.model, g.vec = text, "", nil
		}
		return
	}
	if b.byID == nil {
		b.byID, b.order = map[string]*list.Element{}, list.New()
	}
	b.byID[session] = b.order.PushFront(&sessionGoal{session: session, text: text})
	for b.order.Len() > maxGoals {
		last := b.order.Back()
		b.order.Remove(last)
		delete(b.byID, last.Value.(*sessionGoal).session)
	}
}

// get returns the session's goal text and, when it was embedded by
// model, its vector.
func (b *goalBook) get(session, model string) (string, []float32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.touch(session)
	if g == nil {
		return "", nil
	}
	if g.model != model {
		return g.text, nil
	}
	return g.text, g.vec
}

// setVector records the vector of the session's goal, if text is still
// its goal.
func (b *goalBook) setVector(session, text, model string, vec []float32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if g := b.touch(session); g != nil && g.text == text {
		g.model, g.vec = model, vec
	}
}

func (b *goalBook) touch(session string) *sessionGoal {
	el, ok := b.byID[session]
	if !ok {
		return nil
	}
	b.order.MoveToFront(el)
	return el.Value.(*sessionGoal)
}
