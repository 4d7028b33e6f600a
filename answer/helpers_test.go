// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// today is the host clock of the tests: a date that appears nowhere in
// the fixture, so a prompt that carries it is caught.
var today = time.Date(2031, 4, 5, 9, 0, 0, 0, time.UTC)

// script is a deterministic model: each call's reply is a function of the
// call number and the messages. It records every call.
type script struct {
	mu    sync.Mutex
	seen  [][]Message
	caps  []int
	reply func(n int, msgs []Message) *Reply
}

func (s *script) Complete(_ context.Context, msgs []Message, maxTokens int) (*Reply, error) {
	s.mu.Lock()
	s.seen = append(s.seen, append([]Message(nil), msgs...))
	s.caps = append(s.caps, maxTokens)
	n := len(s.seen)
	s.mu.Unlock()
	r := s.reply(n, msgs)
	if r.PromptTokens == 0 {
		r.PromptTokens, r.CompletionTokens = 100+n, 10+n
	}
	if r.FinishReason == "" {
		r.FinishReason = "stop"
	}
	return r, nil
}

func (s *script) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

// last returns the messages of call n (1-based).
func (s *script) call(n int) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[n-1]
}

// says replies the same text to every call.
func says(text string) *script {
	return &script{reply: func(int, []Message) *Reply { return &Reply{Content: text} }}
}

// turns replies with the given texts in order, then repeats the last.
func turns(texts ...string) *script {
	return &script{reply: func(n int, _ []Message) *Reply {
		return &Reply{Content: texts[min(n, len(texts))-1]}
	}}
}

// open builds a fresh fixture forest and opens it writable.
func open(t *testing.T) (*vine.Vine, string) {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(context.Background(), dir, &vine.Options{Now: func() time.Time { return today }})
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v, dir
}

func newAnswerer(t *testing.T, m Model, opts *Options) *Answerer {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return today }
	}
	if opts.Binding.Model == "" {
		opts.Binding = Binding{Provider: "test", Model: "scripted"}
	}
	a := New(m, opts)
	t.Cleanup(func() { a.Close() })
	return a
}

// heat reads persistent heat.
func heat(t *testing.T, v *vine.Vine, ids ...string) map[string]float64 {
	t.Helper()
	h, err := v.Trails().Heat(context.Background(), ids, "")
	require.NoError(t, err)
	return h
}

// traceEvents counts primitive events across every session trace file.
func traceEvents(t *testing.T, dir string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "_derived", "traces", "*.jsonl"))
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		ev, err := readEvents(fh)
		fh.Close()
		require.NoError(t, err)
		n += len(ev)
	}
	return n
}

func lastUser(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

func joined(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}
