package vine

import (
	"cmp"
	"container/list"
	"context"
	"math"
	"slices"
	"sync"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/internal/budget"
)

// Frontier marks a list the Gauntlet ordered (K.5): by proximity to the
// goal named in Toward, heat breaking near-ties.
type Frontier struct {
	Ranked bool   `json:"ranked"`
	Toward string `json:"toward"`
}

// frontierTowardMax caps the goal text echoed in a frontier, in tokens: a
// long question must not spend the budget of the list it ranked.
const frontierTowardMax = 64

// gauntlet is one call's resolved ranking: the goal and its vector in the
// space of the index that holds the node vectors.
type gauntlet struct {
	toward string
	vec    []float32
	ix     *canopy.Index
}

// gauntletFor resolves the Gauntlet of a look, move or scan call, or nil
// when it does not apply: opted out (off is false), the layer not active,
// no goal (no toward and no locate yet in the session), or the goal
// cannot be embedded. A nil gauntlet leaves the call byte-identical to a
// forest without Canopy. The goal is the toward override when given,
// otherwise the session's latest locate query, embedded once per hunt.
func (v *Vine) gauntletFor(ctx context.Context, off *bool, toward string) *gauntlet {
	if off != nil && !*off {
		return nil
	}
	l := v.canopy
	e, ix, ok := l.ready()
	if !ok {
		return nil
	}
	var vec []float32
	if toward == "" {
		session := v.heat.sessionOf(ctx)
		var cached []float32
		if toward, cached = l.goals.get(session, e.Model()); toward == "" {
			return nil
		}
		if vec = cached; vec == nil {
			var err error
			if vec, err = l.embed(ctx, e, toward); err != nil {
				v.log.Warn("gauntlet goal not embedded; answering unranked", "err", err)
				return nil
			}
			l.goals.setVector(session, toward, e.Model(), vec)
		}
	} else {
		var err error
		if vec, err = l.embed(ctx, e, toward); err != nil {
			v.log.Warn("gauntlet toward not embedded; answering unranked", "err", err)
			return nil
		}
	}
	if len(vec) != ix.Dim {
		return nil
	}
	return &gauntlet{toward: toward, vec: vec, ix: ix}
}

// proximity is the key of a node: its cosine to the goal rounded to three
// places, so heat decides near-ties; -1 for a node without a vector.
func (g *gauntlet) proximity(id string) float64 {
	cos, ok := g.ix.Similarity(g.vec, id)
	if !ok {
		return -1
	}
	return math.Round(float64(cos)*1000) / 1000
}

// frontier is the marker a ranked response carries.
func (g *gauntlet) frontier() *Frontier {
	return &Frontier{Ranked: true, Toward: budget.TruncateText(g.toward, frontierTowardMax)}
}

// gauntletOrder sorts list by (-proximity, -heat), stably, so ties keep
// the order the list arrived in. Keys are computed once per item.
func gauntletOrder[T any](g *gauntlet, list []T, id func(T) string, heat func(T) float64) {
	type keyed struct {
		item       T
		prox, heat float64
	}
	ks := make([]keyed, len(list))
	for i, it := range list {
		ks[i] = keyed{item: it, prox: g.proximity(id(it)), heat: heat(it)}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(b.prox, a.prox); c != 0 { // nearer first
			return c
		}
		return cmp.Compare(b.heat, a.heat) // then hotter
	})
	for i := range ks {
		list[i] = ks[i].item
	}
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
