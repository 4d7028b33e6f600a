// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"bytes"
	"encoding/json"
	"github.com/monkeyllm/vine/adapters/llamacpp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstObject(t *testing.T) {
	for _, c := range []struct {
		name, in string
		tool     string // "" means no object
	}{
		{"bare", `{"tool":"look","args":{"id":"x"}}`, "look"},
		{"fenced", "Sure.\n```json\n{\"tool\": \"pick\", \"args\": {\"id\": \"a/b\"}}\n```", "pick"},
		{"brace in string", `{"tool":"sniff","args":{"terms":["}{"]}}`, "sniff"},
		{"escaped quote", `{"tool":"locate","args":{"query":"say \"}\" please"}}`, "locate"},
		{"prose braces first", "Use {curly} things. {\"tool\":\"scan\",\"args\":{}}", "scan"},
		{"unclosed then whole", `{ oops {"tool":"move","args":{"id":"x"}}`, "move"},
		{"first of two", `{"tool":"a"} {"tool":"b"}`, "a"},
		{"no object", "I think the answer is 42.", ""},
		{"array only", `[{"tool":"x"}]`, "x"},
		{"cut reply", `{"tool":"look","args":{"id":"x"}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			call, ok := parseTurn(c.in)
			if c.tool == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, c.tool, call.tool)
		})
	}
}

func FuzzFirstObject(f *testing.F) {
	for _, s := range []string{`{"tool":"look","args":{"id":"x"}}`, "text {\"a\":\"}\"} more", `{{{`, `"\"{"`, "```{}```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		obj := firstObject(s)
		if obj == nil {
			return
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatalf("returned an object that does not encode: %v", err)
		}
		var back map[string]json.RawMessage
		if json.Unmarshal(b, &back) != nil {
			t.Fatalf("returned something that is not an object: %s", b)
		}
		if !strings.Contains(s, "{") || !strings.Contains(s, "}") {
			t.Fatalf("found an object in text without braces: %q", s)
		}
		parseTurn(s) // must not panic either
	})
}

func TestStripThinking(t *testing.T) {
	for _, c := range []struct {
		in, out            string
		stripped, unclosed bool
	}{
		{"plain answer", "plain answer", false, false},
		{"<think>hmm</think>\nThe answer.", "The answer.", true, false},
		{"A <think>x</think>B<think>y</think> C", "A B C", true, false},
		{"<think>never ends", "", true, true},
		{"template opened it</think> The answer.", "The answer.", true, false},
		{"The answer. <think>second thoughts", "The answer.", true, true},
	} {
		out, stripped, unclosed := llamacpp.StripThinking(c.in)
		assert.Equal(t, c.out, out, c.in)
		assert.Equal(t, c.stripped, stripped, c.in)
		assert.Equal(t, c.unclosed, unclosed, c.in)
	}
}

func TestReadEvents(t *testing.T) {
	in := strings.Join([]string{
		`{"ts":1,"session":"s","primitive":"locate","id":null,"tokens_in":3,"tokens_out":40,"elapsed_ms":1.5}`,
		`not json`,
		`{"ts":2,"session":"s","outcome":{"success":true,"answer_nodes":[]},"metrics":{},"suggest_shortcuts":[]}`,
		`{"ts":3,"session":"s","primitive":"pick","id":"a/b","tokens_in":2,"tokens_out":90,"elapsed_ms":0.25,"embed_ms":0.1}`,
		`{"ts":4,"session":"s","primitive":"lo`, // a line cut by a crash
	}, "\n")
	ev, err := readEvents(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, ev, 2)
	st := steps(ev)
	assert.Equal(t, "locate", st[0].Step)
	assert.Empty(t, st[0].ID)
	assert.Equal(t, "a/b", st[1].ID)
	assert.Equal(t, 90, st[1].Tokens)
	tr := newTrace(st, "m", 10)
	assert.Equal(t, 1.8, tr.RetrievalMS)
	assert.Equal(t, 11.8, tr.TotalMS)
	require.NotNil(t, tr.EmbedMS)
	assert.Equal(t, 0.1, *tr.EmbedMS)
	assert.Nil(t, tr.DenseMS, "shares appear only when non-zero")
	assert.Equal(t, Step{Step: "model", MS: 10, Detail: "m"}, tr.Steps[2])
}

func FuzzReadEvents(f *testing.F) {
	f.Add([]byte(`{"ts":1,"session":"s","primitive":"locate","id":null,"tokens_in":3,"tokens_out":40,"elapsed_ms":1.5}` + "\n"))
	f.Add([]byte("{\n}\n{\"primitive\":1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := readEvents(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("a reader over memory failed: %v", err)
		}
		for _, e := range ev {
			if e.Primitive == "" {
				t.Fatalf("kept an event without a primitive")
			}
		}
		newTrace(steps(ev), "m", 0)
	})
}
