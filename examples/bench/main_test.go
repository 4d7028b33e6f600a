// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/internal/testforest"
)

var (
	idRE      = regexp.MustCompile(`"id":"([^"]+)"`)
	excerptRE = regexp.MustCompile(`(?s)^(?:Round \d+ excerpts:\n)?\[([^\]]+)\] [^\n]*\n(.*?)(?:\n\n\[|\n\nQuestion:|\z)`)
)

// greedy is a scripted model that plays every arm's role without
// judgement: a walker picks the first unread non-index node it was shown
// and answers with that node's first line of prose; a RAG reader answers
// with the first excerpt. Deterministic for a given prompt.
func greedy(msgs []answer.Message) string {
	sys, last := msgs[0].Content, msgs[len(msgs)-1].Content
	switch {
	case strings.HasPrefix(sys, "You explore"):
		return greedyWalk(msgs, last)
	case strings.HasPrefix(sys, "You answer from excerpts of a document collection"):
		id, text := firstExcerpt(last)
		return string(mustJSON(map[string]any{"tool": "answer", "args": map[string]any{"text": text, "answer_nodes": []string{id}}}))
	case strings.HasPrefix(sys, "You answer from the excerpts"):
		id, text := firstExcerpt(last)
		return text + "\n\nSource [" + id + "]"
	default: // the sweep: material as JSON
		var items []struct{ ID, Title, Summary string }
		body := strings.TrimPrefix(last, "Material (JSON):\n")
		_ = json.NewDecoder(strings.NewReader(body)).Decode(&items)
		if len(items) == 0 {
			return "The material does not say."
		}
		return items[0].Summary + "\n\n" + items[0].Title + " [" + items[0].ID + "]"
	}
}

func greedyWalk(msgs []answer.Message, last string) string {
	picked := map[string]bool{}
	for _, m := range msgs {
		if tool, args, ok := answer.ToolCall(m.Content); m.Role == "assistant" && ok && tool == "pick" {
			var a struct{ ID string }
			_ = json.Unmarshal(args, &a)
			picked[a.ID] = true
		}
	}
	if strings.HasPrefix(last, "Result of pick:") {
		var res struct{ ID, Body string }
		_ = json.Unmarshal([]byte(strings.TrimPrefix(last, "Result of pick:\n")), &res)
		return string(mustJSON(map[string]any{"tool": "answer", "args": map[string]any{
			"text": prose(res.Body) + " [" + res.ID + "]", "answer_nodes": []string{res.ID}}}))
	}
	for _, m := range idRE.FindAllStringSubmatch(last, -1) {
		if !picked[m[1]] && !strings.HasSuffix(m[1], "_index") {
			return `{"tool":"pick","args":{"id":"` + m[1] + `"}}`
		}
	}
	return `{"tool":"answer","args":{"text":"I could not find it.","answer_nodes":[]}}`
}

// prose is the first line of a body that is not a heading.
func prose(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}

func firstExcerpt(user string) (id, text string) {
	m := excerptRE.FindStringSubmatch(user)
	if m == nil {
		return "", "Nothing matched."
	}
	return m[1], prose(m[2])
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func greedyModel() answer.Model {
	return answer.ModelFunc(func(_ context.Context, msgs []answer.Message, _ int) (*answer.Reply, error) {
		text := greedy(msgs)
		return &answer.Reply{Content: text, FinishReason: "stop", PromptTokens: len(joined(msgs)) / 4,
			CompletionTokens: len(text) / 4}, nil
	})
}

func joined(msgs []answer.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
	}
	return b.String()
}

func TestBenchOnTheFixture(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	before := testforest.TreeDigest(t, dir)
	qs, err := LoadQuestions(filepath.Join("testdata", "questions.json"))
	require.NoError(t, err)
	require.Len(t, qs, 10)

	v, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer v.Close()
	cfg := &config{model: "greedy", arms: AllArms, hops: 4, k: 3, ragK: 6, rounds: 3}
	arms, err := newArms(cfg, v, greedyModel())
	require.NoError(t, err)
	var progress []string
	r := &Runner{Arms: arms, Progress: func(done, total int, rec Record) {
		progress = append(progress, fmt.Sprintf("%d/%d %s", done, total, rec.Arm))
	}}
	rep, err := r.Run(ctx, qs)
	require.NoError(t, err)

	require.Len(t, rep.Records, 40)
	require.Len(t, progress, 40)
	assert.Equal(t, "40/40 sweep", progress[39])
	require.Len(t, rep.Arms, 4)
	for _, a := range rep.Arms {
		assert.Equal(t, 10, a.Questions, a.Arm)
		assert.Zero(t, a.Errors, a.Arm)
		assert.Positive(t, a.Correct, "%s answered nothing right", a.Arm)
		assert.Positive(t, a.Bananas, a.Arm)
		require.NotNil(t, a.HopsToBanana, a.Arm)
		require.NotNil(t, a.TokensToBanana, a.Arm)
		assert.Positive(t, *a.TokensToBanana, a.Arm)
		require.NotNil(t, a.Precision, a.Arm)
		assert.True(t, *a.Precision >= 0 && *a.Precision <= 1, a.Arm)
		assert.Positive(t, a.Tokens, a.Arm)
	}
	for _, rec := range rep.Records {
		if rec.Arm == "monkey" && rec.Question == "alert-thresholds" {
			assert.True(t, rec.Correct, "%+v", rec.Trial)
			require.NotNil(t, rec.Trial.HopsToBanana)
			assert.Equal(t, 1, *rec.Trial.HopsToBanana, "the greedy walker picks the banana first")
			assert.Equal(t, 2, rec.Trial.Calls)
			assert.Equal(t, rec.Trial.Tokens, *rec.Trial.TokensToBanana, "it answered on the call that read it")
			assert.Equal(t, 1.0, *rec.Precise)
		}
		if rec.Arm == "rag-top6" {
			assert.Equal(t, 1, rec.Trial.Calls, "one completion")
		}
	}

	var table bytes.Buffer
	require.NoError(t, rep.WriteTable(&table))
	out := table.String()
	for _, h := range []string{"arm", "correct", "hops-to-banana", "tokens-to-banana", "banana precision", "wall ms (median)"} {
		assert.Contains(t, out, h)
	}
	for _, a := range AllArms {
		assert.Regexp(t, `(?m)^\s*`+regexp.QuoteMeta(a)+`\s+\d+/10\s+\d+/10`, out)
	}
	t.Log("\n" + out)

	h, err := v.Trails().Heat(ctx, []string{"projects/tidewatch/alert-thresholds"}, "")
	require.NoError(t, err)
	assert.Zero(t, h["projects/tidewatch/alert-thresholds"], "the bench deposits no heat")
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "the bench writes nothing to the forest")
}

func TestScore(t *testing.T) {
	q := Question{ID: "q", ExpectedNodes: []string{"a", "b"}, AnswerContains: []string{"2.5 M", "Itapua"}}
	rec := score("arm", q, Trial{Answer: "Above 2.5 m near Itapuã [a] [c]", AnswerNodes: []string{"a", "c"}})
	assert.True(t, rec.Correct, "case- and accent-insensitive")
	assert.Equal(t, 0.5, *rec.Precise)
	assert.False(t, score("arm", q, Trial{Answer: "Above 2.5 m", AnswerNodes: []string{"a"}}).Correct)
	assert.False(t, score("arm", q, Trial{Answer: "Above 2.5 m near Itapua", Truncated: true}).Correct, "a cut answer is not correct")
	assert.Nil(t, score("arm", q, Trial{Answer: "x"}).Precise, "no citation, no precision")
	noPhrase := Question{ID: "q", ExpectedNodes: []string{"a"}}
	assert.True(t, score("arm", noPhrase, Trial{Answer: "see [a]", AnswerNodes: []string{"a"}}).Correct)
	assert.False(t, score("arm", noPhrase, Trial{Answer: "see [z]", AnswerNodes: []string{"z"}}).Correct)
}

func TestIndexRanksTheRightChunk(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	chunks, err := Chunks(dir)
	require.NoError(t, err)
	assert.Greater(t, len(chunks), 93, "every node, large ones in several chunks")
	for _, c := range chunks {
		assert.NotContains(t, c.ID, "_derived")
		assert.LessOrEqual(t, len(c.Text), 2*chunkChars)
	}
	ix := NewIndex(chunks)
	top := ix.Search("storm alert thresholds Tidewatch", 6, nil)
	require.NotEmpty(t, top)
	assert.Equal(t, "projects/tidewatch/alert-thresholds", chunks[top[0]].ID)
	again := ix.Search("storm alert thresholds Tidewatch", 6, map[int]bool{top[0]: true})
	assert.NotContains(t, again, top[0], "seen chunks are skipped")
	assert.Empty(t, ix.Search("zzqx", 6, nil))
}

func TestLoadQuestionsRefusesIncompleteItems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"id":"a","question":"why?"}]`), 0o644))
	_, err := LoadQuestions(path)
	assert.ErrorContains(t, err, "question 1 needs id, question and expected_nodes")
	require.NoError(t, os.WriteFile(path, []byte(`{`), 0o644))
	_, err = LoadQuestions(path)
	assert.Error(t, err)
}

// llamaServer speaks llama.cpp's streaming chat protocol with greedy.
func llamaServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []answer.Message `json:"messages"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		frame := func(v any) { fmt.Fprintf(w, "data: %s\n\n", mustJSON(v)) }
		frame(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": greedy(req.Messages)}}}})
		frame(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}},
			"usage": map[string]any{"prompt_tokens": 700, "completion_tokens": 30}})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBenchCommand(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	srv := llamaServer(t)
	report := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--endpoint", srv.URL, "--model", "m", "--forest", dir,
		"--questions", filepath.Join("testdata", "questions.json"), "--arms", "monkey,rag-iterative",
		"--json", report}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "rag-iterative")
	assert.NotContains(t, stdout.String(), "rag-top6")
	assert.Contains(t, stderr.String(), "[20/20] rag-iterative frio-sul-share:")
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	var rep Report
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Len(t, rep.Records, 20)
	assert.Equal(t, "monkey", rep.Arms[0].Arm)
}

func TestBenchUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: bench")
	stderr.Reset()
	assert.Equal(t, 2, run(context.Background(), []string{"--endpoint", "http://x", "--model", "m", "--forest", "f",
		"--questions", "q", "--arms", "monkey,oracle"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `unknown arm "oracle"`)
}
