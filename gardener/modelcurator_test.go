// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

// scriptedChat answers from a script, one entry per call, and records
// every call. An entry is a reply string or an error.
type scriptedChat struct {
	script []any
	calls  []scriptedCall
}

type scriptedCall struct {
	msgs      []Message
	maxTokens int
}

func (s *scriptedChat) Chat(ctx context.Context, msgs []Message, maxTokens int) (string, error) {
	s.calls = append(s.calls, scriptedCall{msgs: append([]Message(nil), msgs...), maxTokens: maxTokens})
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(s.script) == 0 {
		return "", errors.New("script exhausted")
	}
	next := s.script[0]
	s.script = s.script[1:]
	if err, ok := next.(error); ok {
		return "", err
	}
	return next.(string), nil
}

const (
	tideTitle   = "Tide table March 2026"
	tideBody    = "| date | high water | height |\n|---|---|---|\n| 2026-03-18 | 04:12 | 3.9 m |\n| 2026-03-19 | 05:01 | 3.7 m |\n"
	goodSummary = "Tide table for Maré Alta harbour, March 2026: 62 high waters. Peak 3.9 m on 18 March."
	goodReply   = `{"summary": "` + goodSummary + `", "tags": ["tides", "maré-alta", "2026-03"], "aliases": ["TT-03"]}`
)

// longSummary is three sentences, well over 60 tokens, each fine alone.
var longSummary = "Tide table for Maré Alta harbour covering every day of March 2026 with both daily high waters. " +
	"It lists 62 high waters with times in local time and heights in metres above chart datum for the pier. " +
	"The spring peak of 3.9 m falls on 18 March and the neap low of 2.1 m on 25 March at the outer gauge."

func tideInput() CurateInput { return CurateInput{Title: tideTitle, Body: tideBody} }

func TestModelCuratorGoodReply(t *testing.T) {
	chat := &scriptedChat{script: []any{"Here you go:\n```json\n" + goodReply + "\n```"}}
	in := tideInput()
	in.Lang, in.Directives = "pt", "Name the harbour."
	out, err := NewModelCurator(chat).Curate(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, goodSummary, out.Summary)
	assert.Equal(t, []string{"tides", "maré-alta", "2026-03"}, out.Tags)
	assert.Equal(t, []string{"TT-03"}, out.Aliases)
	assert.Empty(t, out.Related)
	assert.Equal(t, CurateStats{LLMSummaries: 1}, out.Stats)

	require.Len(t, chat.calls, 1)
	call := chat.calls[0]
	assert.Equal(t, CuratorReplyTokens, call.maxTokens)
	require.Len(t, call.msgs, 2)
	assert.Equal(t, "system", call.msgs[0].Role)
	assert.Equal(t, Message{Role: "user", Content: "Title: " + tideTitle + "\n\nContent:\n" + tideBody}, call.msgs[1])
	sys := call.msgs[0].Content
	for _, must := range []string{"240 characters", "1 to 3 sentences", "up to 12", `{"summary"`, `"tags"`, `"aliases"`,
		"month and the year", "This document describes", `"pt"`, "Name the harbour.", "occur in its content"} {
		assert.Contains(t, sys, must)
	}
}

func TestModelCuratorPromptVariants(t *testing.T) {
	sys := curatorSystemPrompt(CurateInput{Dataset: true})
	assert.Contains(t, sys, "language of the content")
	assert.Contains(t, sys, "sample map of a dataset")
	assert.NotContains(t, sys, "Directives")
}

func TestModelCuratorRetriesThenAccepts(t *testing.T) {
	tooLong := `{"summary": "` + longSummary + `", "tags": ["x"]}`
	chat := &scriptedChat{script: []any{tooLong, goodReply}}
	out, err := NewModelCurator(chat, WithReplyTokens(300)).Curate(context.Background(), tideInput())
	require.NoError(t, err)
	assert.Equal(t, goodSummary, out.Summary)
	assert.Equal(t, 1, out.Stats.LLMSummaries)
	assert.Equal(t, 1, out.Stats.Retries)
	assert.Zero(t, out.Stats.Repaired)
	assert.Contains(t, out.Stats.LastReject, "over the limit of 60 tokens")

	require.Len(t, chat.calls, 2)
	assert.Equal(t, 300, chat.calls[1].maxTokens)
	retry := chat.calls[1].msgs
	require.Len(t, retry, 4)
	assert.Equal(t, Message{Role: "assistant", Content: tooLong}, retry[2])
	assert.Equal(t, "user", retry[3].Role)
	assert.Contains(t, retry[3].Content, "rejected")
	assert.Contains(t, retry[3].Content, "over the limit of 60 tokens")
	assert.Contains(t, retry[3].Content, "240 characters")
}

func TestModelCuratorRepairsLengthOnlyFailures(t *testing.T) {
	tooLong := `{"summary": "` + longSummary + `", "tags": ["tides"], "aliases": []}`
	chat := &scriptedChat{script: []any{tooLong, tooLong, tooLong}}
	out, err := NewModelCurator(chat).Curate(context.Background(), tideInput())
	require.NoError(t, err)
	assert.Len(t, chat.calls, CuratorAttempts)
	require.NoError(t, forest.ValidateSummary(out.Summary))
	assert.True(t, strings.HasPrefix(longSummary, out.Summary), "trimmed by dropping trailing sentences: %q", out.Summary)
	assert.Equal(t, []string{"tides"}, out.Tags)
	assert.Equal(t, CurateStats{LLMSummaries: 1, Repaired: 1, Retries: 2,
		LastReject: out.Stats.LastReject, LastReply: out.Stats.LastReply}, out.Stats)
	assert.LessOrEqual(t, utf8.RuneCountInString(out.Stats.LastReply), 400)
}

func TestModelCuratorFallsBack(t *testing.T) {
	tests := []struct {
		name   string
		script []any
		reject string
	}{
		{"garbage", []any{"I cannot help with that.", "Sure! The summary is tides.", "???"}, "no JSON object"},
		{"empty replies", []any{"", "  \n", ""}, "the reply was empty"},
		{"blank summary", []any{`{"summary": "  "}`, `{"summary": ""}`, `{"tags": ["x"]}`}, `"summary" is blank`},
		{"summary not a string", []any{`{"summary": 3}`, `{"summary": ["a"]}`, `{"summary": {}}`}, "must be a string"},
		{"anti-pattern is never rescued", []any{
			`{"summary": "This document describes tides. ` + longSummary + `"}`,
			`{"summary": "This document describes tides."}`,
			`{"summary": "File containing tides for March."}`}, "says nothing about the content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := &scriptedChat{script: tt.script}
			out, err := NewModelCurator(chat).Curate(context.Background(), tideInput())
			require.NoError(t, err)
			assert.Empty(t, out.Summary, "an empty summary keeps the derived one")
			assert.Len(t, chat.calls, CuratorAttempts)
			assert.Equal(t, 1, out.Stats.Fallbacks)
			assert.Equal(t, 2, out.Stats.Retries)
			assert.Zero(t, out.Stats.LLMSummaries)
			assert.Zero(t, out.Stats.Repaired)
			assert.Contains(t, out.Stats.LastReject, tt.reject)
		})
	}
}

func TestModelCuratorLastReplyIsClipped(t *testing.T) {
	huge := strings.Repeat("no json here ", 100)
	chat := &scriptedChat{script: []any{huge, huge, huge}}
	out, err := NewModelCurator(chat).Curate(context.Background(), tideInput())
	require.NoError(t, err)
	assert.Equal(t, 400, utf8.RuneCountInString(out.Stats.LastReply))
	assert.True(t, strings.HasSuffix(out.Stats.LastReply, "…"))
}

func TestModelCuratorTransportError(t *testing.T) {
	long := "llamacpp chat http://127.0.0.1:8080/v1/chat/completions: " + strings.Repeat("connection refused ", 40)
	chat := &scriptedChat{script: []any{errors.New(long)}}
	out, err := NewModelCurator(chat).Curate(context.Background(), tideInput())
	require.NoError(t, err, "model trouble never fails a draft")
	assert.Empty(t, out.Summary)
	assert.Len(t, chat.calls, 1, "a transport error falls back at once, without retries")
	assert.Equal(t, 1, out.Stats.TransportErrors)
	assert.Equal(t, 1, out.Stats.Fallbacks)
	assert.Zero(t, out.Stats.Retries)
	assert.Equal(t, 300, utf8.RuneCountInString(out.Stats.LastError))
	assert.Contains(t, out.Stats.LastError, "127.0.0.1:8080", "the endpoint detail is kept")
}

func TestModelCuratorSalvagesTruncatedReplies(t *testing.T) {
	tests := []struct {
		name    string
		partial string
		want    string
	}{
		{"cut inside the summary", `{"summary": "Tide table for Maré Alta, March 2026. Peak 3.9 m on 18 Mar`,
			"Tide table for Maré Alta, March 2026. Peak 3.9 m on 18…"},
		{"cut after the summary", `{"summary": "Tide table for Maré Alta, March 2026.", "tags": ["tid`,
			"Tide table for Maré Alta, March 2026."},
		{"cut inside an escape", `{"summary": "Tide \"table\" for March 2026 and the pier \u00`,
			`Tide "table" for March 2026 and the pier…`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := &scriptedChat{script: []any{&TruncatedError{Partial: tt.partial}}}
			out, err := NewModelCurator(chat).Curate(context.Background(), tideInput())
			require.NoError(t, err)
			assert.Equal(t, tt.want, out.Summary)
			assert.Equal(t, 1, out.Stats.LLMSummaries)
			assert.Zero(t, out.Stats.TransportErrors, "a cut reply is not a transport error")
		})
	}

	t.Run("nothing to salvage is retried", func(t *testing.T) {
		chat := &scriptedChat{script: []any{&TruncatedError{Partial: `{"summ`}, goodReply}}
		out, err := NewModelCurator(chat).Curate(context.Background(), tideInput())
		require.NoError(t, err)
		assert.Equal(t, goodSummary, out.Summary)
		assert.Equal(t, 1, out.Stats.Retries)
	})
}

func TestModelCuratorSkipsAnEmptyBody(t *testing.T) {
	chat := &scriptedChat{}
	out, err := NewModelCurator(chat).Curate(context.Background(), CurateInput{Title: "Empty", Body: " \n\t"})
	require.NoError(t, err)
	assert.Equal(t, CurateStats{Skipped: 1}, out.Stats)
	assert.Empty(t, chat.calls)
}

func TestModelCuratorReturnsCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewModelCurator(&scriptedChat{}).Curate(ctx, tideInput())
	require.ErrorIs(t, err, context.Canceled)
}

func TestModelCuratorClipsTheBodyByLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("| station | date | height |\n|---|---|---|\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "| pier-%04d | 2026-03-%02d | %d.%d m |\n", i, i%28+1, i%5, i%10)
	}
	chat := &scriptedChat{script: []any{goodReply}}
	_, err := NewModelCurator(chat).Curate(context.Background(), CurateInput{Title: "Gauges", Body: b.String()})
	require.NoError(t, err)
	content := strings.TrimPrefix(chat.calls[0].msgs[1].Content, "Title: Gauges\n\nContent:\n")
	assert.LessOrEqual(t, budget.EstimateTokens(content), CuratorBodyTokens)
	assert.Greater(t, budget.EstimateTokens(content), CuratorBodyTokens/2, "clipping keeps most of the budget")
	for _, line := range strings.Split(content, "\n") {
		assert.True(t, strings.HasPrefix(line, "|") && strings.HasSuffix(line, "|"), "a table row was split: %q", line)
	}
}

func TestCuratorClipByLine(t *testing.T) {
	assert.Equal(t, "short\ntext", curatorClipByLine("short\ntext", 10))

	oneLine := strings.Repeat("word ", 100) // 500 runes on one line
	got := curatorClipByLine(oneLine, 20)
	assert.LessOrEqual(t, budget.EstimateTokens(got), 20)
	assert.True(t, strings.HasPrefix(oneLine, got), "words are dropped from the end")

	oneWord := strings.Repeat("x", 500)
	assert.Equal(t, strings.Repeat("x", 80), curatorClipByLine(oneWord, 20))
}

func TestCuratorFit(t *testing.T) {
	assert.Equal(t, goodSummary, curatorFit(goodSummary))

	fitted := curatorFit(longSummary)
	require.NoError(t, forest.ValidateSummary(fitted))
	sentences := strings.SplitAfter(longSummary, ". ")
	assert.Equal(t, sentences[0]+strings.TrimSpace(sentences[1]), fitted, "trailing sentences go first")

	oneSentence := strings.Repeat("tide gauge reading, ", 30) + "end."
	fitted = curatorFit(oneSentence)
	require.NoError(t, forest.ValidateSummary(fitted))
	assert.True(t, strings.HasSuffix(fitted, "reading…"), fitted)
}

// ---- edge proposals ----

var tideCandidates = []Candidate{
	{ID: "harbour/pier", Title: "The pier", Summary: "Pier gauge and moorings."},
	{ID: "harbour/storms-2026", Title: "Storms 2026", Summary: "Storm log for 2026."},
	{ID: "people/harbourmaster", Title: "Harbourmaster", Summary: "Who runs the harbour."},
	{ID: "ops/dredging", Title: "Dredging", Summary: "Dredging schedule."},
}

func TestModelCuratorProposesFromTheClosedList(t *testing.T) {
	longNote := strings.Repeat("é", 200)
	proposal := `{"related": [
		{"id": "harbour/invented", "note": "not offered"},
		{"id": "harbour/pier", "note": "` + longNote + `"},
		{"id": "harbour/pier", "note": "duplicate"},
		{"id": " harbour/storms-2026 ", "note": "storm surges raise high water"},
		{"id": 7},
		{"id": "people/harbourmaster"},
		{"id": "ops/dredging", "note": "over the cap"}]}`
	chat := &scriptedChat{script: []any{goodReply, proposal}}
	in := tideInput()
	in.Candidates = tideCandidates
	out, err := NewModelCurator(chat).Curate(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, goodSummary, out.Summary)
	assert.Equal(t, []Related{
		{ID: "harbour/pier", Note: strings.Repeat("é", 120)},
		{ID: "harbour/storms-2026", Note: "storm surges raise high water"},
		{ID: "people/harbourmaster"},
	}, out.Related)
	assert.Zero(t, out.Stats.ProposalFallbacks)

	require.Len(t, chat.calls, 2)
	msgs := chat.calls[1].msgs
	assert.Contains(t, msgs[0].Content, "0 to 3")
	assert.Contains(t, msgs[0].Content, `{"related": [{"id"`)
	assert.Contains(t, msgs[1].Content, "Summary: "+goodSummary)
	for _, c := range tideCandidates {
		assert.Contains(t, msgs[1].Content, "- id: "+c.ID+" | title: "+c.Title+" | summary: "+c.Summary)
	}
}

func TestModelCuratorProposalFallbacks(t *testing.T) {
	tests := []struct {
		name      string
		reply     any
		fallbacks int
	}{
		{"no list", `{"related": "harbour/pier"}`, 1},
		{"null list", `{"related": null}`, 1},
		{"no key", `{"links": []}`, 1},
		{"prose", "The pier is related.", 1},
		{"cut reply", &TruncatedError{Partial: `{"related": [{"id": "harbour/pi`}, 1},
		{"transport error", errors.New("connection reset"), 1},
		{"none is valid", `{"related": []}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := &scriptedChat{script: []any{goodReply, tt.reply}}
			in := tideInput()
			in.Candidates = tideCandidates
			out, err := NewModelCurator(chat).Curate(context.Background(), in)
			require.NoError(t, err)
			assert.Equal(t, goodSummary, out.Summary, "a proposal failure never touches the summary")
			assert.Empty(t, out.Related)
			assert.Equal(t, tt.fallbacks, out.Stats.ProposalFallbacks)
			assert.Zero(t, out.Stats.TransportErrors)
		})
	}
}

func TestModelCuratorProposesEvenAfterASummaryFallback(t *testing.T) {
	chat := &scriptedChat{script: []any{"junk", "junk", "junk", `{"related": [{"id": "ops/dredging"}]}`}}
	in := tideInput()
	in.Candidates = tideCandidates
	out, err := NewModelCurator(chat).Curate(context.Background(), in)
	require.NoError(t, err)
	assert.Empty(t, out.Summary)
	assert.Equal(t, 1, out.Stats.Fallbacks)
	assert.Equal(t, []Related{{ID: "ops/dredging"}}, out.Related)
	assert.NotContains(t, chat.calls[3].msgs[1].Content, "Summary:")
}

func TestTruncatedError(t *testing.T) {
	err := fmt.Errorf("chat: %w", &TruncatedError{Partial: "abc"})
	assert.ErrorIs(t, err, ErrTruncated)
	assert.Contains(t, err.Error(), "after 3 characters")
}

// FuzzCuratorReply: whatever the model says, a reply the Curator accepts
// is an A.4-valid summary, and parsing never panics.
func FuzzCuratorReply(f *testing.F) {
	for _, s := range []string{goodReply, `{"summary": "` + longSummary + `"}`, `{"summary": "cut off mid`,
		`{"summary": "a\"b"}`, "{{{", `{"summary": "\u00`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		r, lengthOnly, err := curatorJudge(reply)
		if err == nil {
			if verr := forest.ValidateSummary(r.Summary); verr != nil {
				t.Fatalf("accepted an invalid summary %q: %v", r.Summary, verr)
			}
		}
		if lengthOnly {
			if verr := forest.ValidateSummary(curatorFit(r.Summary)); verr != nil {
				t.Fatalf("length-only %q does not fit: %v", r.Summary, verr)
			}
		}
	})
}

// FuzzCuratorProposals: only offered ids, once each, at most three, notes
// at most 120 characters.
func FuzzCuratorProposals(f *testing.F) {
	f.Add(`{"related": [{"id": "harbour/pier", "note": "x"}, {"id": "nope"}]}`)
	f.Add(`{"related": [{"id": "ops/dredging"}, {"id": "ops/dredging"}]}`)
	f.Fuzz(func(t *testing.T, reply string) {
		related, _ := curatorParseProposals(reply, tideCandidates)
		if len(related) > 3 {
			t.Fatalf("%d proposals", len(related))
		}
		seen := map[string]bool{}
		for _, r := range related {
			offered := false
			for _, c := range tideCandidates {
				offered = offered || c.ID == r.ID
			}
			if !offered || seen[r.ID] || utf8.RuneCountInString(r.Note) > 120 {
				t.Fatalf("bad proposal %+v from %q", r, reply)
			}
			seen[r.ID] = true
		}
	})
}

func ExampleNewModelCurator() {
	// Any chat model will do; adapters/llamacpp.Client is the usual one.
	model := ChatFunc(func(ctx context.Context, msgs []Message, maxTokens int) (string, error) {
		return `{"summary": "Tide table for Maré Alta harbour, March 2026: 62 high waters, peak 3.9 m on 18 March.",
			"tags": ["tides", "maré-alta"], "aliases": []}`, nil
	})
	out, err := NewModelCurator(model).Curate(context.Background(), CurateInput{
		Title: "Tide table March 2026",
		Body:  "| date | high water | height |\n|---|---|---|\n| 2026-03-18 | 04:12 | 3.9 m |\n",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Summary)
	fmt.Println(out.Tags, out.Stats.LLMSummaries)
	// Output:
	// Tide table for Maré Alta harbour, March 2026: 62 high waters, peak 3.9 m on 18 March.
	// [tides maré-alta] 1
}
