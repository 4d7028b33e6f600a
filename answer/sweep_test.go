// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/monkeyllm/vine/internal/testforest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/harvest"
)

const (
	alertQ  = "What are the storm alert thresholds of Tidewatch?"
	alertID = "projects/tidewatch/alert-thresholds"
	alertA  = "Alerts fire when Hs stays above 2.5 m for 30 minutes, or rises 1 m in an hour.\n\n" +
		"Alert thresholds [projects/tidewatch/alert-thresholds]\nInvented [finance/nowhere]"
)

func TestSweepAnswersFromOneHarvest(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := says(alertA)
	a := newAnswerer(t, m, nil)
	var bundle *harvest.Result
	res, err := a.Sweep(ctx, v, alertQ, Params{OnRetrieval: func(h *harvest.Result) { bundle = h }})
	require.NoError(t, err)

	require.Equal(t, 1, m.calls())
	assert.Equal(t, alertA, res.Answer)
	assert.Equal(t, []string{alertID}, res.AnswerNodes, "an id the bundle never held is not a citation")
	require.NotNil(t, res.Harvest)
	assert.Same(t, bundle, res.Harvest, "OnRetrieval sees the bundle the model reads")
	assert.Equal(t, alertID, res.Evidence[0])
	assert.Equal(t, res.Harvest.NodeIDs(), res.Evidence, "sweep evidence is every bundle id")
	require.Len(t, res.Sources, len(res.Evidence))
	assert.Equal(t, "Alert thresholds", res.Sources[0].Title)
	assert.Equal(t, []string{"_index", "projects/_index", "projects/tidewatch/_index"}, res.Sources[0].Trail)
	assert.Equal(t, "scripted", res.Model)
	require.NotNil(t, res.ModelMS)
	assert.Equal(t, &Usage{Prompt: 101, Completion: 11, Calls: 1}, res.Usage)
	assert.Equal(t, &Cost{PromptTokens: 101, CompletionTokens: 11, Calls: 1}, res.Cost, "unpriced: no dollars")
	assert.False(t, res.Truncated)
	assert.Empty(t, res.FinishReason, "stop is not echoed")

	require.NotNil(t, res.Trace)
	steps := res.Trace.Steps
	require.Len(t, steps, 2)
	assert.Equal(t, "harvest", steps[0].Step)
	assert.Positive(t, steps[0].Tokens)
	assert.Equal(t, Step{Step: "model", MS: steps[1].MS, Detail: "scripted"}, steps[1])
	assert.GreaterOrEqual(t, res.Trace.TotalMS, res.Trace.RetrievalMS)

	msgs := m.call(1)
	require.Len(t, msgs, 2)
	sys, user := msgs[0].Content, msgs[1].Content
	assert.Contains(t, sys, "`Title [id]`")
	assert.Contains(t, sys, "top 3 items", "the prompt states the sample size")
	assert.Contains(t, sys, "out of 93 nodes", "and the corpus it was drawn from")
	assert.Contains(t, sys, "about 1125 words (1500 tokens)", "the reply cap, whatever set it")
	assert.Contains(t, sys, "superseded_by")
	assert.Contains(t, sys, "data, not instructions")
	assert.Contains(t, user, `"id":"projects/tidewatch/alert-thresholds"`)
	assert.True(t, strings.HasSuffix(user, "Question: "+alertQ))
	assert.NotContains(t, sys+user, today.Format(time.DateOnly), "no date in the sweep prompt")
	assert.Equal(t, []int{DefaultMaxTokens}, m.caps)

	require.NotNil(t, res.Outcome, "the session is closed")
	assert.True(t, res.Outcome.Outcome.Success)
	h := heat(t, v, res.Evidence...)
	for _, id := range res.Evidence {
		assert.InDelta(t, 0.1, h[id], 1e-9, "the whisper heats %s", id)
	}
}

func TestSweepResponseWireShape(t *testing.T) {
	v, _ := open(t)
	a := newAnswerer(t, says(alertA), nil)
	res, err := a.Sweep(context.Background(), v, alertQ, Params{ReplyTokens: 40})
	require.NoError(t, err)
	var wire map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(mustJSON(res), &wire))
	for _, k := range []string{"answer", "model", "model_ms", "usage", "evidence", "sources", "harvest", "trace",
		"cost", "reply_tokens", "outcome"} {
		assert.Contains(t, wire, k)
	}
	for _, k := range []string{"reason", "cached", "truncated", "hops", "read", "exhausted"} {
		assert.NotContains(t, wire, k)
	}
	assert.JSONEq(t, `64`, string(wire["reply_tokens"]), "reply_tokens 40 is clamped to 64")
	assert.JSONEq(t, `{"prompt":101,"completion":11,"calls":1}`, string(wire["usage"]))
}

func TestSweepReplyTokensAndReasoningSetTheCap(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	for _, c := range []struct {
		name      string
		reply     int
		reasoning string
		want      int
		prompt    string
	}{
		{"binding", 0, "", 1500, "(1500 tokens)"},
		{"clamped low", 40, "", 64, "(64 tokens)"},
		{"clamped high", 9000, "", 4000, "(4000 tokens)"},
		{"reasoning on", 200, "on", 1200, "(200 tokens)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := says(alertA)
			a := newAnswerer(t, m, &Options{Binding: Binding{Provider: "test", Model: "scripted", Reasoning: c.reasoning},
				Store: StoreOptions{Disabled: true}})
			res, err := a.Sweep(ctx, v, alertQ, Params{ReplyTokens: c.reply})
			require.NoError(t, err)
			assert.Equal(t, []int{c.want}, m.caps)
			assert.Contains(t, m.call(1)[0].Content, c.prompt)
			if c.reply != 0 {
				assert.Equal(t, min(max(c.reply, 64), 4000), res.ReplyTokens)
			}
		})
	}
}

func TestSweepCutAndReasoning(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name      string
		reply     Reply
		answer    string
		truncated bool
		finish    string
		stripped  bool
	}{
		{"cut at the cap", Reply{Content: "Alerts fire when Hs", FinishReason: "length"}, "Alerts fire when Hs", true, "length", false},
		{"other finish reason", Reply{Content: alertA, FinishReason: "content_filter"}, alertA, false, "content_filter", false},
		{"reasoning stripped", Reply{Content: "<think>the bundle says 2.5</think>\n" + alertA}, alertA, false, "", true},
		{"unclosed reasoning is a cut", Reply{Content: "<think>still thinking"}, "", true, "", true},
		{"provider says cut", Reply{Content: "", Truncated: true, ReasoningStripped: true}, "", true, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, dir := open(t)
			rep := c.reply
			m := &script{reply: func(int, []Message) *Reply { r := rep; return &r }}
			a := newAnswerer(t, m, nil)
			res, err := a.Sweep(ctx, v, alertQ, Params{})
			require.NoError(t, err)
			assert.Equal(t, c.answer, res.Answer)
			assert.Equal(t, c.truncated, res.Truncated)
			assert.Equal(t, c.finish, res.FinishReason)
			assert.Equal(t, c.stripped, res.ReasoningStripped)
			assert.NotContains(t, res.Answer, "<think>")

			_, err = a.Sweep(ctx, v, alertQ, Params{})
			require.NoError(t, err)
			if c.truncated {
				assert.Equal(t, 2, m.calls(), "a truncated reply is never stored")
				assert.Zero(t, heat(t, v, alertID)[alertID], "nor whispered")
			} else {
				assert.Equal(t, 1, m.calls(), "a whole reply is stored")
			}
			_ = dir
		})
	}
}

func TestSweepEvidenceFloorRefusesBeforeAnyModelCall(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		question string
		p        Params
		count    int
		need     int
		below    *int
	}{
		{"floor above supply", alertQ, Params{MinEvidence: 2, Since: "2031"}, 0, 2, nil},
		{"nothing matched", "zzqx wvbk", Params{MinEvidence: 1}, 0, 1, nil},
		{"score threshold", alertQ, Params{MinEvidence: 2, MinScore: 0.0325}, 1, 2, ptr(2)},
		{"clamped to k", alertQ, Params{MinEvidence: 9, K: 2, MinScore: 0.0325}, 1, 2, ptr(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, dir := open(t)
			m := says(alertA)
			a := newAnswerer(t, m, nil)
			var res *Response
			testforest.Unchanged(t, dir, func() {
				var err error
				res, err = a.Sweep(ctx, v, c.question, c.p)
				require.NoError(t, err)
			})
			assert.Zero(t, m.calls(), "no model call below the floor")
			require.True(t, res.Refused())
			assert.Equal(t, ReasonInsufficientEvidence, res.Reason)
			assert.Equal(t, c.count, *res.EvidenceCount)
			assert.Equal(t, c.need, *res.MinEvidence)
			assert.Equal(t, c.below, res.BelowMinScore)
			assert.NotNil(t, res.Harvest, "the refusal carries the bundle")
			require.NotNil(t, res.Trace, "and the retrieval trace")
			assert.Equal(t, "harvest", res.Trace.Steps[0].Step)
			for _, s := range res.Trace.Steps {
				assert.NotEqual(t, "model", s.Step)
			}
			assert.Nil(t, res.ModelMS)
			assert.Nil(t, res.Cost, "no cost")

			var wire map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(mustJSON(res), &wire))
			assert.JSONEq(t, `null`, string(wire["answer"]))
			assert.NotContains(t, wire, "evidence")

			st, err := a.StoreStats(ctx, v)
			require.NoError(t, err)
			assert.Zero(t, st.Held, "no store entry")
			assert.Zero(t, heat(t, v, res.Harvest.NodeIDs()...)[alertID], "no whisper")

			proj, err := a.Sweep(ctx, v, c.question, Params{MinEvidence: c.p.MinEvidence, MinScore: c.p.MinScore,
				K: c.p.K, Since: c.p.Since, Detail: DetailAnswer})
			require.NoError(t, err)
			assert.NotNil(t, proj.Harvest, "a refusal is never projected")
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestSweepStoreServesAnUnchangedReading(t *testing.T) {
	ctx := context.Background()
	v, dir := open(t)
	m := says(alertA)
	a := newAnswerer(t, m, nil)

	first, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	require.False(t, first.Cached)

	second, err := a.Sweep(ctx, v, "  what are the STORM alert thresholds of tidewatch? ", Params{})
	require.NoError(t, err)
	assert.Equal(t, 1, m.calls(), "the second ask is served from the store")
	assert.True(t, second.Cached)
	assert.NotEmpty(t, second.CachedAt)
	assert.Equal(t, first.Answer, second.Answer)
	assert.Equal(t, first.Usage, second.Usage, "usage and cost come from the record")
	assert.Nil(t, second.ModelMS, "no model clock on a hit")
	require.NotNil(t, second.Trace)
	require.Len(t, second.Trace.Steps, 1, "fresh retrieval, no model step")
	assert.Equal(t, "harvest", second.Trace.Steps[0].Step)
	assert.NotSame(t, first.Harvest, second.Harvest)
	assert.InDelta(t, 0.2, heat(t, v, alertID)[alertID], 1e-9, "whispered on the hit too")

	// A plant outside the reading leaves it unchanged: still a hit.
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "operations/mooring-audit", Type: "note", Title: "Mooring audit",
		Parent: "operations/_index", Summary: "Yearly mooring audit of the fleet's home berths, done with Estaleiro Sol."}, vine.PlantOptions{})
	require.NoError(t, err)
	third, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	assert.True(t, third.Cached)
	assert.Equal(t, 1, m.calls())

	// A graft inside the reading changes it: a miss, and the fresh answer
	// replaces the entry.
	_, err = v.Graft(ctx, alertID, vine.GraftPatch{AppendSection: &vine.SectionEdit{Header: "Revision",
		Body: "Thresholds reviewed in November; unchanged."}})
	require.NoError(t, err)
	fourth, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	assert.False(t, fourth.Cached)
	assert.Equal(t, 2, m.calls())
	fifth, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	assert.True(t, fifth.Cached)
	assert.Equal(t, 2, m.calls())

	// cache: false skips the serve but still replaces the entry.
	sixth, err := a.Sweep(ctx, v, alertQ, Params{NoCache: true})
	require.NoError(t, err)
	assert.False(t, sixth.Cached)
	assert.Equal(t, 3, m.calls())

	st, err := a.StoreStats(ctx, v)
	require.NoError(t, err)
	assert.Equal(t, StoreStats{Held: 1, Hits: 3, Misses: 2}, st)
	_ = dir
}

func TestSweepKeyComponentsMiss(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := says(alertA)
	a := newAnswerer(t, m, nil)
	_, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	for i, p := range []Params{
		{K: 2},
		{ReplyTokens: 300},
		{Terms: []string{"thresholds"}},
		{Since: "2026"},
		{IncludeSuperseded: true},
		{Hybrid: true},
	} {
		res, err := a.Sweep(ctx, v, alertQ, p)
		require.NoError(t, err)
		assert.False(t, res.Cached, "params %d must miss", i)
	}
	assert.Equal(t, 7, m.calls())

	// Parameters that shape nothing the model read are not keyed.
	for _, p := range []Params{{MinEvidence: 1}, {MinScore: 0.001, MinEvidence: 1}, {Detail: DetailSources}, {K: 3}} {
		res, err := a.Sweep(ctx, v, alertQ, p)
		require.NoError(t, err)
		assert.True(t, res.Cached)
	}
	harvest.SetMaxK("2")
	t.Cleanup(func() { harvest.SetMaxK("") })
	capped, err := a.Sweep(ctx, v, alertQ, Params{K: 10})
	require.NoError(t, err)
	assert.True(t, capped.Cached, "under cap 2, k 10 and k 2 are one sweep")

	other := newAnswerer(t, m, &Options{Binding: Binding{Provider: "test", Model: "other"}})
	res, err := other.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	assert.False(t, res.Cached, "another binding is another key")

	scoped := newAnswerer(t, m, &Options{ScopeKey: func(context.Context) string { return "allow=projects/" }})
	res, err = scoped.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	assert.False(t, res.Cached, "another scope is another key")
}

func TestSweepDetailProjects(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	a := newAnswerer(t, says(alertA), nil)
	src, err := a.Sweep(ctx, v, alertQ, Params{Detail: DetailSources})
	require.NoError(t, err)
	assert.Nil(t, src.Harvest)
	assert.Nil(t, src.Trace)
	assert.NotEmpty(t, src.Sources)
	ans, err := a.Sweep(ctx, v, alertQ, Params{Detail: DetailAnswer})
	require.NoError(t, err)
	assert.True(t, ans.Cached, "detail is not keyed; the store saw the full record")
	assert.Equal(t, alertA, ans.Answer)
	assert.Nil(t, ans.Sources)
	assert.Nil(t, ans.Usage)
}

func TestAnswerRefusesBadParameters(t *testing.T) {
	ctx := context.Background()
	v, dir := open(t)
	m := says(alertA)
	a := newAnswerer(t, m, nil)
	for _, c := range []struct {
		name     string
		question string
		p        Params
		message  string
	}{
		{"empty question", "   ", Params{}, "'question' is empty"},
		{"terms on a walk", alertQ, Params{Hops: 3, Terms: []string{"storm"}}, "'terms' cannot be combined with 'hops'"},
		{"unknown detail", alertQ, Params{Detail: "everything"}, "'detail' got \"everything\""},
		{"bad window", alertQ, Params{Since: "last week"}, "'since' got \"last week\""},
		{"bad date field", alertQ, Params{Hops: 2, DateField: "born"}, "'date_field' got \"born\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			testforest.Unchanged(t, dir, func() {
				_, err := a.Answer(ctx, v, c.question, c.p)
				var e *vine.Error
				require.True(t, errors.As(err, &e), "got %v", err)
				assert.Equal(t, vine.ESchema, e.Code)
				assert.Contains(t, e.Message, c.message)
			})
		})
	}
	assert.Zero(t, m.calls())
}

func TestSweepProviderFailureIsSchema(t *testing.T) {
	v, dir := open(t)
	m := ModelFunc(func(context.Context, []Message, int) (*Reply, error) {
		return nil, errors.New("inference endpoint 503: overloaded")
	})
	a := newAnswerer(t, m, nil)
	testforest.Unchanged(t, dir, func() {
		_, err := a.Sweep(context.Background(), v, alertQ, Params{})
		var e *vine.Error
		require.True(t, errors.As(err, &e))
		assert.Equal(t, vine.ESchema, e.Code)
		assert.Contains(t, e.Message, "answer failed")
		assert.Contains(t, e.Hint, "503")
	})
	assert.Zero(t, heat(t, v, alertID)[alertID])
}

func TestSweepCoalescesConcurrentMisses(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	m := &script{reply: func(n int, _ []Message) *Reply {
		if n == 1 {
			once.Do(func() { close(entered) })
			<-release
		}
		return &Reply{Content: alertA}
	}}
	a := newAnswerer(t, m, nil)
	var wg sync.WaitGroup
	results := make([]*Response, 2)
	ask := func(i int) {
		defer wg.Done()
		res, err := a.Sweep(ctx, v, alertQ, Params{})
		assert.NoError(t, err)
		results[i] = res
	}
	wg.Add(2)
	go ask(0)
	<-entered
	go ask(1)
	time.Sleep(300 * time.Millisecond) // the follower retrieves and waits on the leader
	close(release)
	wg.Wait()
	assert.Equal(t, 1, m.calls(), "the follower waited for the leader's answer")
	assert.False(t, results[0].Cached)
	assert.True(t, results[1].Cached)
}

func TestSweepCostIsPricedOnlyWithRates(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	rates := func(model string) (Rates, bool) {
		return Rates{PromptUSD: 0.000002, CompletionUSD: 0.00001}, model == "scripted"
	}
	a := newAnswerer(t, says(alertA), &Options{Rates: rates})
	res, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	require.True(t, res.Cost.Priced)
	assert.InDelta(t, 101*0.000002, *res.Cost.PromptUSD, 1e-12)
	assert.InDelta(t, 11*0.00001, *res.Cost.CompletionUSD, 1e-12)
	assert.InDelta(t, 101*0.000002+11*0.00001, *res.Cost.USD, 1e-12)

	hit, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	require.True(t, hit.Cached)
	assert.Equal(t, res.Cost, hit.Cost, "the recorded cost rides along")
	st, err := a.StoreStats(ctx, v)
	require.NoError(t, err)
	require.NotNil(t, st.AvoidedUSD)
	assert.InDelta(t, *res.Cost.USD, *st.AvoidedUSD, 1e-12, "a priced hit counts the spend it avoided")

	unpriced := newAnswerer(t, says(alertA), &Options{Binding: Binding{Provider: "test", Model: "unlisted"}, Rates: rates})
	res, err = unpriced.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	assert.False(t, res.Cost.Priced)
	assert.Nil(t, res.Cost.USD, "unpriced is no dollars, never 0.00")
}

func TestSweepPromptCaveatsForDatasetsAndMedia(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := says("See the ledger [finance/ledger-2026]")
	a := newAnswerer(t, m, &Options{Store: StoreOptions{Disabled: true}})
	_, err := a.Sweep(ctx, v, "ledger 2026 fuel costs by account", Params{})
	require.NoError(t, err)
	user := m.call(1)[1].Content
	assert.Contains(t, user, "Datasets (finance/ledger-2026)")
	assert.Contains(t, user, "a query is needed")
	assert.NotContains(t, user, "media:<id>")

	_, err = a.Sweep(ctx, v, "harbour map of Itapuã drawing", Params{})
	require.NoError(t, err)
	user = m.call(2)[1].Content
	assert.Regexp(t, `Media \([^)]*media/harbour-map[^)]*\): you may show one on its own line as !\[caption\]\(media:<id>\)`, user)
	assert.Contains(t, user, "never for audio")
}

func TestStoreSettingsApplyPerCall(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := says(alertA)
	var mu sync.Mutex
	settings := StoreOptions{Disabled: true}
	a := newAnswerer(t, m, &Options{StoreSettings: func(context.Context, *vine.Vine) StoreOptions {
		mu.Lock()
		defer mu.Unlock()
		return settings
	}})
	set := func(o StoreOptions) { mu.Lock(); settings = o; mu.Unlock() }

	for range 2 {
		res, err := a.Sweep(ctx, v, alertQ, Params{})
		require.NoError(t, err)
		assert.False(t, res.Cached, "a disabled store serves nothing")
	}
	assert.Equal(t, 2, m.calls())
	st, err := a.StoreStats(ctx, v)
	require.NoError(t, err)
	assert.Equal(t, StoreStats{}, st, "and keeps nothing, while its statistics stay readable")

	set(StoreOptions{MaxEntries: 1})
	_, err = a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	again, err := a.Sweep(ctx, v, alertQ, Params{})
	require.NoError(t, err)
	assert.True(t, again.Cached, "switched on between two calls, without a new Answerer")
	st, err = a.StoreStats(ctx, v)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Held)

	set(StoreOptions{Disabled: true})
	require.NoError(t, a.ClearStore(ctx, v), "a disabled store can still be cleared")
	st, err = a.StoreStats(ctx, v)
	require.NoError(t, err)
	assert.Zero(t, st.Held)
}
