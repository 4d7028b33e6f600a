// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlainList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`["a"]`, []string{"a"}, true},
		{`["a", "b c" ,"Ω"]`, []string{"a", "b c", "Ω"}, true},
		{`[ "x" ]`, []string{"x"}, true},
		{`["a\"b"]`, nil, false},
		{`["a",]`, nil, false},
		{`["a" "b"]`, nil, false},
		{`[1]`, nil, false},
		{`["a"`, nil, false},
		{"[\"a\tb\"]", nil, false},
		{"[\"a\"\v]", nil, false},
	} {
		got, ok := plainList(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

// FuzzPlainListAgreesWithJSON proves the fast path never answers what
// encoding/json would not.
func FuzzPlainListAgreesWithJSON(f *testing.F) {
	for _, s := range []string{`["a","b"]`, `[ "x" , "y" ]`, `["\u00e9"]`, `[""]`, `["a",]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := plainList(s)
		if !ok {
			return
		}
		var want []string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("plainList(%q) = %q, but JSON refuses it: %v", s, got, err)
		}
		assert.Equal(t, want, got)
	})
}

// FuzzPlainTriplesAgreeWithJSON proves the edge-list fast path never
// answers what encoding/json would not, nor anything different.
func FuzzPlainTriplesAgreeWithJSON(f *testing.F) {
	for _, s := range []string{`[["a","links_to",1.0]]`, `[["a","b",1],["c","d",0.5]]`, `[["a","b",1e400]]`, `[["a","b",01]]`, `[["a\"","b",1]]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := plainTriples(s)
		if !ok {
			return
		}
		var raw [][3]any
		if err := json.Unmarshal([]byte(s), &raw); err != nil {
			t.Fatalf("plainTriples(%q) = %v, but JSON refuses it: %v", s, got, err)
		}
		require.Len(t, got, len(raw))
		for i, e := range raw {
			assert.Equal(t, e[0], got[i].a)
			assert.Equal(t, e[1], got[i].b)
			assert.Equal(t, e[2], got[i].n)
		}
	})
}
