// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/monkeyllm/vine/internal/testforest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

const (
	sniffThresholds = `{"tool":"sniff","args":{"terms":["2.5"]}}`
	pickThresholds  = "I will read it.\n```json\n{\"tool\": \"pick\", \"args\": {\"id\": \"projects/tidewatch/alert-thresholds\"}}\n```"
	answerThresh    = `{"tool":"answer","args":{"text":"Hs above 2.5 m for 30 minutes [projects/tidewatch/alert-thresholds]",` +
		`"answer_nodes":["projects/tidewatch/alert-thresholds","finance/budget-rules"]}}`
)

func TestWalkEndToEnd(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := turns(sniffThresholds, pickThresholds, answerThresh)
	a := newAnswerer(t, m, nil)
	var events []Hop
	res, err := a.Walk(ctx, v, alertQ, Params{Hops: 4, OnHop: func(h Hop) { events = append(events, h) }})
	require.NoError(t, err)

	assert.Equal(t, 3, m.calls())
	assert.Equal(t, 3, res.Turns)
	assert.Equal(t, "Hs above 2.5 m for 30 minutes [projects/tidewatch/alert-thresholds]", res.Answer)
	assert.Equal(t, []string{alertID}, res.AnswerNodes, "a cited id never opened does not count")
	assert.Equal(t, []string{alertID}, res.Evidence)
	assert.False(t, res.Exhausted)

	require.Len(t, res.Hops, 2)
	assert.Equal(t, events, res.Hops, "hop events equal the records")
	sn, pk := res.Hops[0], res.Hops[1]
	assert.Equal(t, 1, sn.N)
	assert.Equal(t, "sniff", sn.Tool)
	assert.Equal(t, map[string]any{"terms": []any{"2.5"}}, sn.Args)
	assert.Contains(t, sn.IDs, alertID)
	assert.Equal(t, HopOut{Results: ptr(len(sn.IDs))}, sn.Out)
	assert.True(t, sn.OK)
	assert.Equal(t, 2, pk.N)
	assert.Equal(t, alertID, pk.ID)
	assert.Empty(t, pk.IDs)
	assert.Equal(t, HopOut{Tokens: ptr(257)}, pk.Out)
	assert.Positive(t, pk.ModelMS+pk.MS)

	require.Len(t, res.Read, 2)
	assert.Equal(t, alertID, res.Read[0].ID)
	assert.Equal(t, []string{"sniff", "pick"}, res.Read[0].FoundBy)
	assert.NotEmpty(t, res.Read[0].Matches)
	require.Len(t, res.Read[0].Content, 1)
	assert.Contains(t, res.Read[0].Content[0].Body, "Hs above 2.5 m")
	assert.Equal(t, 257, res.Read[0].Content[0].BodyTokens)

	require.NotEmpty(t, res.Sources)
	assert.Equal(t, Source{ID: alertID, Title: "Alert thresholds", Type: "note",
		Summary: "Storm alert thresholds: Hs above 2.5 m for 30 minutes, or a rise of 1 m in an hour; alerts go to the Farol app.",
		Trail:   []string{"_index", "projects/_index", "projects/tidewatch/_index"}}, res.Sources[0])

	require.NotNil(t, res.Trace)
	var names []string
	for _, s := range res.Trace.Steps {
		names = append(names, fmt.Sprintf("%s:%d", s.Step, s.Hop))
	}
	assert.Equal(t, []string{"locate:0", "sniff:1", "pick:2", "model:0"}, names)
	assert.Equal(t, &Usage{Prompt: 101 + 102 + 103, Completion: 11 + 12 + 13, Calls: 3}, res.Usage)

	sys := m.call(1)[0].Content
	assert.Contains(t, sys, "Today's date is 2031-04-05")
	for _, tool := range walkTools {
		assert.Contains(t, sys, "- "+tool+": ")
	}
	for _, param := range []string{"filter", "type_filter", "since", "until", "date_field", "recursive", "granularity"} {
		assert.Contains(t, sys, "    "+param+" (", "the menu names every parameter")
	}
	assert.NotContains(t, sys, "- plant:", "writes are never offered")
	assert.NotContains(t, sys, "- view:")
	entry := m.call(1)[1].Content
	assert.Contains(t, entry, "Question: "+alertQ)
	assert.Contains(t, entry, `"id":"projects/tidewatch/alert-thresholds"`, "the entry is a locate of the question")
	assert.Contains(t, lastUser(m.call(3)), `"body":"# Alert thresholds`)

	require.NotNil(t, res.Outcome)
	assert.True(t, res.Outcome.Outcome.Success)
	assert.InDelta(t, 0.1, heat(t, v, alertID)[alertID], 1e-9)
}

func TestWalkNudgesSpendTurns(t *testing.T) {
	ctx := context.Background()
	v, dir := open(t)
	m := turns(
		"The thresholds are probably in the Tidewatch branch.",
		`{"tool":"plant","args":{"node":{"id":"operations/x","type":"note","title":"X","summary":"x"}}}`,
		pickThresholds,
		pickThresholds,
		answerThresh,
	)
	a := newAnswerer(t, m, nil)
	var res *Response
	testforest.Unchanged(t, dir, func() {
		var err error
		res, err = a.Walk(ctx, v, alertQ, Params{Hops: 6, NoCache: true})
		require.NoError(t, err)
	})
	assert.Equal(t, 5, res.Turns)
	require.Len(t, res.Hops, 1, "only the first pick ran")
	assert.Equal(t, 3, res.Hops[0].N)
	assert.Equal(t, nudgeNotTool, lastUser(m.call(2)))
	assert.Contains(t, lastUser(m.call(3)), `"plant" is not a tool here`)
	assert.Equal(t, nudgeRepeat, lastUser(m.call(5)))
	assert.Equal(t, []string{alertID}, res.Evidence)
}

func TestWalkRunsOutOfHops(t *testing.T) {
	ctx := context.Background()
	v, dir := open(t)
	m := turns(
		`{"tool":"pick","args":{"id":"projects/tidewatch/alert-thresholds"}}`,
		`{"tool":"look","args":{"id":"projects/tidewatch/design"}}`,
		`{"tool":"pick","args":{"id":"projects/tidewatch/design"}}`,
	)
	a := newAnswerer(t, m, nil)
	var res *Response
	testforest.Unchanged(t, dir, func() {
		var err error
		res, err = a.Walk(ctx, v, alertQ, Params{Hops: 2, K: 1})
		require.NoError(t, err)
	})
	assert.Equal(t, 3, m.calls(), "budget + 1 model calls")
	assert.True(t, res.Exhausted)
	assert.Empty(t, res.Answer)
	require.Len(t, res.Hops, 2, "the deadline turn's tool call is not executed")
	assert.Equal(t, []string{alertID}, res.Evidence, "evidence is the first k opened")
	assert.Contains(t, lastUser(m.call(3)), deadline)
	assert.NotContains(t, lastUser(m.call(2)), deadline)
	assert.False(t, res.Outcome.Outcome.Success)
	assert.Zero(t, heat(t, v, alertID)[alertID], "an exhausted walk whispers nothing")

	var wire map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(mustJSON(res), &wire))
	assert.JSONEq(t, `""`, string(wire["answer"]))
	assert.JSONEq(t, `true`, string(wire["exhausted"]))

	_, err := a.Walk(ctx, v, alertQ, Params{Hops: 2, K: 1})
	require.NoError(t, err)
	assert.Equal(t, 6, m.calls(), "an exhausted walk is never stored")
}

func TestWalkUnderAScopedPolicyNeverReturnsHiddenIDs(t *testing.T) {
	ctx := context.Background()
	v, dir := open(t)
	sc, err := v.Scoped(vine.Policy{Allow: []string{"projects/"}, Caps: []vine.Capability{vine.CapRead, vine.CapAnswer}})
	require.NoError(t, err)
	m := turns(
		`{"tool":"locate","args":{"query":"budget treasurer approves spending","k":5}}`,
		`{"tool":"pick","args":{"id":"finance/budget-rules"}}`,
		`{"tool":"scan","args":{"parent_id":"_index","recursive":true}}`,
		`{"tool":"sniff","args":{"terms":["budget"],"k":10}}`,
		`{"tool":"pick","args":{"id":"projects/lighthouse/budget"}}`,
		`{"tool":"answer","args":{"text":"R$ 180,000 [projects/lighthouse/budget] [finance/budget-rules]",`+
			`"answer_nodes":["projects/lighthouse/budget","finance/budget-rules","people/ana-ribeiro"]}}`,
	)
	a := newAnswerer(t, m, nil)
	var res *Response
	testforest.Unchanged(t, dir, func() {
		res, err = a.Walk(sc.Context(ctx), v, "What budget rules apply to spending?", Params{Hops: 6})
		require.NoError(t, err)
	})
	require.Len(t, res.Hops, 5)
	assert.False(t, res.Hops[1].OK, "a hidden node reads as absent")
	assert.Equal(t, HopOut{Error: "E_NOT_FOUND", Message: "node not found: finance/budget-rules"}, res.Hops[1].Out,
		"the refusal is the one an absent node gets")
	assert.Equal(t, []string{"projects/lighthouse/budget"}, res.Evidence)
	assert.Equal(t, []string{"projects/lighthouse/budget"}, res.AnswerNodes)
	ids := mentioned(res) // evidence, citations, sources, read, and what ok hops returned
	require.NotEmpty(t, ids)
	for _, id := range ids {
		assert.True(t, strings.HasPrefix(id, "projects/"), "hidden id %s in the response", id)
	}
	for _, s := range res.Sources {
		assert.NotEmpty(t, s.Title, "scent comes from results the caller saw")
	}
	for n := 1; n <= m.calls(); n++ {
		for _, msg := range m.call(n) {
			if msg.Role == "user" {
				assert.NotContains(t, msg.Content, "treasurer approves", "hidden material reached the model")
				assert.NotContains(t, msg.Content, `"id":"finance/`)
				assert.NotContains(t, msg.Content, `"id":"people/`)
			}
		}
	}
}

func TestWalkStoreServesAnUnchangedForestWhole(t *testing.T) {
	ctx := context.Background()
	v, dir := open(t)
	m := turns(pickThresholds, answerThresh)
	a := newAnswerer(t, m, nil)
	first, err := a.Walk(ctx, v, alertQ, Params{Hops: 3})
	require.NoError(t, err)
	require.False(t, first.Cached)
	events := traceEvents(t, dir)

	second, err := a.Walk(ctx, v, alertQ, Params{Hops: 3})
	require.NoError(t, err)
	assert.Equal(t, 2, m.calls(), "served from the store")
	assert.True(t, second.Cached)
	assert.NotEmpty(t, second.CachedAt)
	assert.Equal(t, first.Answer, second.Answer)
	assert.Equal(t, first.Hops, second.Hops, "served whole")
	assert.Equal(t, first.Trace, second.Trace)
	assert.Equal(t, events, traceEvents(t, dir), "a walk hit appends no trace event")
	assert.InDelta(t, 0.2, heat(t, v, alertID)[alertID], 1e-9, "a hit heats its stored trail")

	third, err := a.Walk(ctx, v, alertQ, Params{Hops: 4})
	require.NoError(t, err)
	assert.False(t, third.Cached, "another hop budget is another walk")

	_, err = v.Plant(ctx, vine.NodeSpec{ID: "operations/mooring-audit", Type: "note", Title: "Mooring audit",
		Parent: "operations/_index", Summary: "Yearly mooring audit of the fleet's home berths."}, vine.PlantOptions{})
	require.NoError(t, err)
	calls := m.calls()
	fourth, err := a.Walk(ctx, v, alertQ, Params{Hops: 3})
	require.NoError(t, err)
	assert.False(t, fourth.Cached, "any commit invalidates walks")
	assert.Greater(t, m.calls(), calls)

	tomorrow := newAnswerer(t, m, &Options{Now: func() time.Time { return today.AddDate(0, 0, 1) }})
	fifth, err := tomorrow.Walk(ctx, v, alertQ, Params{Hops: 3})
	require.NoError(t, err)
	assert.False(t, fifth.Cached, "a new day is a miss")
}

func TestWalkStoreIsNotServedAcrossScopes(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := turns(`{"tool":"pick","args":{"id":"finance/budget-rules"}}`,
		`{"tool":"answer","args":{"text":"R$ 5,000 [finance/budget-rules]","answer_nodes":["finance/budget-rules"]}}`)
	a := newAnswerer(t, m, nil) // a host that forgot ScopeKey
	_, err := a.Walk(ctx, v, "Who approves spending?", Params{Hops: 2})
	require.NoError(t, err)
	sc, err := v.Scoped(vine.Policy{Allow: []string{"projects/"}, Caps: []vine.Capability{vine.CapRead, vine.CapAnswer}})
	require.NoError(t, err)
	res, err := a.Walk(sc.Context(ctx), v, "Who approves spending?", Params{Hops: 2})
	require.NoError(t, err)
	assert.False(t, res.Cached, "an entry naming nodes this caller cannot see is never served to it")
	for _, id := range mentioned(res) {
		assert.True(t, strings.HasPrefix(id, "projects/"), id)
	}
}

func TestWalkWindowIsMergedLast(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := turns(
		`{"tool":"locate","args":{"query":"tidewatch buoys","since":"2020","until":"2030","date_field":"created"}}`,
		`{"tool":"calendar","args":{"granularity":"month"}}`,
		`{"tool":"coverage","args":{}}`,
		`{"tool":"answer","args":{"text":"none","answer_nodes":[]}}`,
	)
	a := newAnswerer(t, m, nil)
	res, err := a.Walk(ctx, v, "Which Tidewatch events happened in spring 2026?",
		Params{Hops: 4, Since: "2026-02", Until: "2026-05"})
	require.NoError(t, err)
	require.Len(t, res.Hops, 3)
	loc := res.Hops[0]
	assert.Equal(t, "2026-02-01", loc.Args["since"], "the caller's bound replaces the model's")
	assert.Equal(t, "2026-05-31", loc.Args["until"])
	recs, err := v.Records(ctx, loc.IDs)
	require.NoError(t, err)
	for _, id := range loc.IDs {
		c := recs[id].Created
		assert.True(t, c >= "2026-02-01" && c <= "2026-05-31", "%s created %s is outside the window", id, c)
	}
	assert.Equal(t, "2026-02-01", res.Hops[1].Args["since"], "calendar is windowed too")
	assert.Positive(t, *res.Hops[1].Out.Buckets)
	assert.NotContains(t, res.Hops[2].Args, "since", "coverage is never bounded")
	require.NotNil(t, res.Window)
	assert.Equal(t, "2026-02-01", *res.Window.Since)
	assert.Contains(t, m.call(1)[0].Content, "from 2026-02-01 to 2026-05-31")
	assert.Contains(t, m.call(1)[1].Content, `"window":{"since":"2026-02-01"`, "the entry is windowed")
}

func TestWalkErrorsReachTheModelAsEnvelopes(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := turns(
		`{"tool":"query","args":{"id":"finance/ledger-2026","sql":"DROP TABLE ledger"}}`,
		`{"tool":"query","args":{"id":"finance/ledger-2026","sql":"SELECT account, SUM(amount) AS net FROM ledger GROUP BY account"}}`,
		`{"tool":"answer","args":{"text":"fuel net -30070.4 [finance/ledger-2026]","answer_nodes":["finance/ledger-2026"]}}`,
	)
	a := newAnswerer(t, m, nil)
	res, err := a.Walk(ctx, v, "What was the net fuel cost in the 2026 ledger?", Params{Hops: 3})
	require.NoError(t, err)
	require.Len(t, res.Hops, 2)
	assert.False(t, res.Hops[0].OK)
	assert.Contains(t, lastUser(m.call(2)), `{"error":{"code":"E_QUERY`)
	q := res.Hops[1]
	assert.True(t, q.OK)
	assert.Equal(t, HopOut{Rows: ptr(5)}, q.Out)
	assert.Equal(t, "finance/ledger-2026", q.ID)
	assert.Contains(t, q.Args["sql"], "SELECT account")
	require.Len(t, res.Read, 1)
	mat := res.Read[0].Content[0]
	assert.Equal(t, []string{"account", "net"}, mat.Columns)
	assert.Equal(t, 5, *mat.RowCount)
	assert.Equal(t, []string{"finance/ledger-2026"}, res.Evidence)
}

func TestWalkLabEntrySessionAndCall(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := turns(`{"tool":"pick","args":{"id":"projects/tidewatch/design"}}`,
		`{"tool":"answer","args":{"text":"LoRa [projects/tidewatch/design]","answer_nodes":["projects/tidewatch/design"]}}`)
	a := newAnswerer(t, m, nil)
	var called []string
	res, err := a.Walk(ctx, v, "How do the buoys talk to the harbour?", Params{Hops: 2, Entry: "projects/tidewatch/_index",
		Session: "troop-test", LeaveOpen: true,
		Call: func(ctx context.Context, tool string, args []byte) (any, error) {
			called = append(called, tool)
			return v.Call(ctx, tool, args)
		}})
	require.NoError(t, err)
	assert.Equal(t, []string{"look", "pick"}, called)
	assert.Contains(t, m.call(1)[1].Content, "Your entry node (look projects/tidewatch/_index)")
	assert.Nil(t, res.Outcome, "a lab session is left open for its owner")
	assert.Zero(t, heat(t, v, "projects/tidewatch/design")["projects/tidewatch/design"])
	require.NotNil(t, res.Trace)
	assert.Equal(t, "look", res.Trace.Steps[0].Step)
	assert.Equal(t, 1, res.Trace.Steps[1].Hop)
}

func TestWalkReadsBatchesAndSections(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	m := turns(
		`{"tool":"look","args":{"id":["projects/tidewatch/design","projects/tidewatch/calibration"],"fields":["edges_out"]}}`,
		`{"tool":"pick","args":{"id":["projects/tidewatch/design","projects/tidewatch/calibration"]}}`,
		`{"tool":"pick","args":{"id":"library/harbour-handbook","section":["Chapter 2","Checklist 2"]}}`,
		`{"tool":"pick","args":{"id":"library/harbour-handbook","after":""}}`,
		`{"tool":"answer","args":{"text":"see the handbook","answer_nodes":["library/harbour-handbook"]}}`,
	)
	a := newAnswerer(t, m, nil)
	res, err := a.Walk(ctx, v, "How are Tidewatch buoys designed and calibrated?", Params{Hops: 4})
	require.NoError(t, err)
	require.Len(t, res.Hops, 4)
	for _, h := range res.Hops {
		require.True(t, h.OK, "%s: %+v", h.Tool, h.Out)
	}
	assert.Positive(t, *res.Hops[0].Out.Edges, "edges counted over the batch")
	assert.Greater(t, *res.Hops[1].Out.Tokens, 400, "tokens summed over both bodies")
	assert.Positive(t, *res.Hops[2].Out.Tokens)
	assert.Empty(t, res.Hops[0].ID, "a list of ids is not one node")

	read := map[string]ReadNode{}
	for _, r := range res.Read {
		read[r.ID] = r
	}
	assert.Len(t, read["projects/tidewatch/design"].Content, 1, "a look digest is never material")
	book := read["library/harbour-handbook"]
	require.Len(t, book.Content, 3, "two sections, then a page")
	assert.Equal(t, "Chapter 2", *book.Content[0].Section)
	assert.Equal(t, "Checklist 2", *book.Content[1].Section)
	assert.Nil(t, book.Content[2].Section)
	assert.Contains(t, book.Content[2].Body, "# Harbour operations handbook", "page one of the body")
	assert.Equal(t, []string{"library/harbour-handbook"}, res.Evidence)
	var opened []string
	for _, s := range res.Sources {
		opened = append(opened, s.ID)
	}
	assert.Equal(t, []string{"projects/tidewatch/design", "projects/tidewatch/calibration", "library/harbour-handbook"}, opened)

	st, err := a.StoreStats(ctx, v)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Held)
	require.NoError(t, a.ClearStore(ctx, v))
	st, err = a.StoreStats(ctx, v)
	require.NoError(t, err)
	assert.Zero(t, st.Held)
	assert.Equal(t, 1, st.Misses, "clearing keeps the tallies")
}
