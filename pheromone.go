// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/budget"
	"github.com/monkeyllm/vine/trails"
)

// storeHeat reads heat from the forest's own trails store, session heat
// included for the context's session, conditioned on the question the
// call (or else its hunt) asked when the forest's heat mode says so.
type storeHeat struct {
	s     *trails.Store
	layer *heatLayer
}

func (h storeHeat) Heat(ctx context.Context, ids []string) (map[string]float64, error) {
	return h.s.HeatFor(ctx, ids, SessionOf(ctx), h.layer.topicOf(ctx))
}

// Hot lists the nodes with heat for the context's session.
func (h storeHeat) Hot(ctx context.Context, limit int) (map[string]float64, bool, error) {
	return h.s.HotFor(ctx, SessionOf(ctx), h.layer.topicOf(ctx), limit)
}

// Reinforce deposits persistent heat (graft fortification, C.8), on the
// topic of the hunt that grafted, so a shortcut's fortification lifts it
// for the questions that found it (issue 34).
func (h storeHeat) Reinforce(ctx context.Context, ids []string, delta float64) error {
	return h.s.DepositTopic(ctx, ids, h.layer.topicOf(ctx), delta, time.Now())
}

// Rekey moves heat with a transplanted node.
func (h storeHeat) Rekey(ctx context.Context, oldID, newID string) error {
	return h.s.Rekey(ctx, oldID, newID)
}

// heatLayer is the session layer of Part D: it reads heat for ranking,
// appends one trace event per call and reports each call to the host's
// observer. Reads never deposit; only CloseSession and graft do.
type heatLayer struct {
	source   HeatSource     // nil: every node is cold
	observer Observer       // nil: nobody listens
	store    *trails.Store  // the forest's own heat, once opened
	tracer   *trails.Tracer // one event per call, once opened
	session  string         // the Vine's own session when a call names none
	hunts    huntTopics     // each open hunt's questions, for its close
	log      *slog.Logger
}

// open opens _derived/trails.db and the trace directory under derived. A
// host that supplied its own HeatSource keeps it for ranking.
func (h *heatLayer) open(ctx context.Context, derived string) error {
	store, err := trails.Open(ctx, filepath.Join(derived, "trails.db"))
	if err != nil {
		return fmt.Errorf("vine: open trails: %w", err)
	}
	h.store = store
	h.tracer = trails.NewTracer(filepath.Join(derived, "traces"))
	h.session = trails.NewSession()
	if h.source == nil {
		h.source = storeHeat{store, h}
	}
	return nil
}

// close closes the trails store and the trace files, if they were opened.
func (h *heatLayer) close() error {
	if h.store == nil {
		return nil
	}
	return errors.Join(h.tracer.CloseFiles(), h.store.Close())
}

// sessionOf is the context's session, or the Vine's own.
func (h *heatLayer) sessionOf(ctx context.Context) string {
	if s := SessionOf(ctx); trails.ValidSession(s) {
		return s
	}
	return h.session
}

// trace appends the Part D event of one call. Telemetry never fails a
// call: a write error is logged.
func (h *heatLayer) trace(ctx context.Context, ev Event, args []byte, result any) {
	if h.tracer == nil {
		return
	}
	e := trails.Event{
		TS: float64(time.Now().UnixNano()) / 1e9, Session: h.sessionOf(ctx), Primitive: ev.Primitive,
		TokensIn: budget.EstimateTokens(string(args)), TokensOut: payloadTokens(result),
		ElapsedMS: float64(ev.Duration.Microseconds()) / 1000,
	}
	e.EmbedMS, e.DenseMS = sharesOf(ctx).millis()
	e.Extensions = sharesOf(ctx).extensions()
	if ev.NodeID != "" {
		id := ev.NodeID
		e.ID = &id
	}
	if err := h.tracer.Append(e); err != nil {
		h.log.Warn("trace event not written", "err", err)
	}
}

// payloadTokens is budget.EstimatePayloadTokens of a result, taken from
// the size the result measured when it cut itself to budget (move).
func payloadTokens(result any) int {
	if r, ok := result.(interface{ payloadTokens() (int, bool) }); ok {
		if n, ok := r.payloadTokens(); ok {
			return n
		}
	}
	return budget.EstimatePayloadTokens(result)
}

// CloseSession ends the context's hunt (Part D §3.2): on success the
// answer nodes and every index on their trails gain heat (the whisper),
// and a trail of four reads or more suggests the answer nodes as
// shortcuts (the shout; the engine only suggests). Failure deposits
// nothing. The outcome is appended to the session's trace.
func (v *Vine) CloseSession(ctx context.Context, success bool, answerNodes []string) (*trails.Outcome, error) {
	session := v.heat.sessionOf(ctx)
	if success && len(answerNodes) > 0 {
		var warm []string
		for _, id := range answerNodes {
			rec, err := v.resolver.resolve(ctx, id)
			if err != nil {
				return nil, err
			}
			warm = append(warm, rec.ID)
			warm = append(warm, rec.Trail...)
		}
		slices.Sort(warm)
		// The heat carries the hunt's questions (issue 34), laid in both
		// modes so either reading is ready when the mode switches.
		topic := v.heat.hunts.get(session)
		if err := v.heat.store.DepositTopic(ctx, slices.Compact(warm), topic, trails.DefaultDeposit, v.now()); err != nil {
			return nil, envelope.From("close_session", err)
		}
	}
	out, err := v.heat.tracer.Close(session, success, answerNodes, v.now())
	if err != nil {
		v.log.Warn("session close not written to the trace", "err", err)
	}
	v.heat.tracer.Forget(session)
	v.heat.hunts.close(session)
	return &out, nil
}

var closeSessionSignature = Signature{
	Name: "close_session",
	Doc: "End the current hunt: success with the answer nodes deposits heat on them and their trails " +
		"(reads never do); a trail of 4+ reads suggests the answer nodes as shortcuts to graft.",
	Params: []Param{
		{Name: "success", Type: TBoolean, Required: true, Doc: "whether the hunt found its answer"},
		{Name: "answer_nodes", Type: TStringList, Doc: "ids of the nodes that answered"},
	},
	Idempotent: false,
}

func init() { register(primitive{sig: closeSessionSignature, run: runCloseSession}) }

func runCloseSession(ctx context.Context, v *Vine, a Args) (any, error) {
	return v.CloseSession(ctx, a.Bool("success"), a.Strings("answer_nodes"))
}
