package catalog

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
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
