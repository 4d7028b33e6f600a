// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWikilinks(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"plain", "see [[people/ana]] now", []string{"people/ana"}},
		{"display text", "[[projects/mixerllm/architecture|MixerLLM]]", []string{"projects/mixerllm/architecture"}},
		{"anchor ignored", "[[notes/faq#why-markdown]]", []string{"notes/faq"}},
		{"anchor and text", "[[notes/faq#why|the FAQ]]", []string{"notes/faq"}},
		{"trimmed", "[[  people/ana  |Ana]]", []string{"people/ana"}},
		{"order and duplicates kept", "[[b]] [[a]] [[b]]", []string{"b", "a", "b"}},
		{"index entry and cross trail", "- [[concepts/_index]] — x\n- Theory → [[concepts/_index]]",
			[]string{"concepts/_index", "concepts/_index"}},
		{"fenced code is still scanned, as Part B's pattern has no exception",
			"```\n[[in/code]]\n```\n", []string{"in/code"}},
		{"not links", "[single] [[]] [[|text]] [[#anchor]] [[ ]] [[a]x]] [[open", []string{}},
		{"a line break inside is part of the target", "[[a\nb]]", []string{"a\nb"}},
		{"leftmost match wins on extra brackets", "[[[x]]]", []string{"[x"}},
		{"unicode", "[[pessoas/joão]]", []string{"pessoas/joão"}},
		{"none", "no links here", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Wikilinks(tt.body))
		})
	}
}

func FuzzWikilinks(f *testing.F) {
	f.Add("[[a|b]] [[c#d]] [[ e ]]")
	f.Add("[[[[x]]]]")
	f.Fuzz(func(t *testing.T, body string) {
		for _, target := range Wikilinks(body) {
			if target == "" || target != strings.TrimSpace(target) {
				t.Fatalf("target %q is empty or untrimmed", target)
			}
			if strings.ContainsAny(target, "]|#") {
				t.Fatalf("target %q holds a delimiter", target)
			}
		}
	})
}
