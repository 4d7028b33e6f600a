// SPDX-License-Identifier: Apache-2.0

package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStripThinking(t *testing.T) {
	tests := []struct {
		in, out            string
		stripped, unclosed bool
	}{
		{"plain answer", "plain answer", false, false},
		{"  spaced  ", "  spaced  ", false, false},
		{"<think>plan</think>answer", "answer", true, false},
		{"<think>\nplan\n</think>\n\nanswer\n", "answer", true, false},
		{"a<think>x</think>b<think>y</think>c", "abc", true, false},
		{"plan</think>answer", "answer", true, false},
		{"answer<think>never closed", "answer", true, true},
		{"<think>never closed", "", true, true},
		{"<think>a</think>b</think>c", "b</think>c", true, false},
		{"</think>", "", true, false},
	}
	for _, tt := range tests {
		out, stripped, unclosed := StripThinking(tt.in)
		assert.Equal(t, tt.out, out, tt.in)
		assert.Equal(t, tt.stripped, stripped, tt.in)
		assert.Equal(t, tt.unclosed, unclosed, tt.in)
	}
}

func FuzzStripThinking(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "x</think>y", "<think>", "a<think>b<think>c</think>d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, stripped, _ := StripThinking(s)
		if strings.Contains(out, thinkOpen) {
			t.Fatalf("%q kept an opening tag: %q", s, out)
		}
		if !strings.Contains(s, thinkOpen) && !strings.Contains(s, thinkClose) && (stripped || out != s) {
			t.Fatalf("%q has no tags but changed to %q", s, out)
		}
		if len(out) > len(s) {
			t.Fatalf("output longer than input")
		}
	})
}
