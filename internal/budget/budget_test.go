// SPDX-License-Identifier: Apache-2.0

package budget

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2}, {"ção!", 1}, {"çãoçã", 2},
		{strings.Repeat("x", 240), 60}, {strings.Repeat("x", 241), 61},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EstimateTokens(tt.in), tt.in)
	}
}

func TestRenderUsesSpacedSeparatorsAndRawUnicode(t *testing.T) {
	type kv struct {
		B string `json:"b"`
		A []int  `json:"a"`
	}
	got := Render(kv{B: "x, y: ção \"q\"", A: []int{1, 2}})
	assert.Equal(t, `{"b": "x, y: ção \"q\"", "a": [1, 2]}`, got)
}

func TestTruncateText(t *testing.T) {
	assert.Equal(t, "short", TruncateText("short", 10))
	assert.Equal(t, "abcd…", TruncateText("abcd  efgh", 1))
	assert.Equal(t, "çãoé…", TruncateText("çãoéxyz", 1))
	assert.Equal(t, "…", TruncateText("abc", 0))
}

func TestShrinkTail(t *testing.T) {
	items := make([]string, 40)
	for i := range items {
		items[i] = strings.Repeat("w", 40)
	}
	list := items
	render := func() any { return map[string]any{"nodes": list, "truncated": true} }
	dropped := ShrinkTail(&list, 100, render)
	assert.LessOrEqual(t, EstimatePayloadTokens(render()), 100)
	assert.Equal(t, 40-len(list), dropped)
	// One more item would not fit: the cut is the longest prefix.
	longer := items[:len(list)+1]
	assert.Greater(t, EstimatePayloadTokens(map[string]any{"nodes": longer, "truncated": true}), 100)

	fits := items[:2]
	assert.Equal(t, 0, ShrinkTail(&fits, 100, func() any { return fits }))
	assert.Len(t, fits, 2)
}

func FuzzTruncateText(f *testing.F) {
	f.Add("héllo wörld", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1000 {
			return
		}
		out := TruncateText(s, n)
		if EstimateTokens(s) <= n {
			assert.Equal(t, s, out)
			return
		}
		assert.True(t, strings.HasSuffix(out, "…"))
		assert.LessOrEqual(t, len([]rune(out)), n*4+1)
	})
}

// FuzzEstimateCountsTheSpacedRendering proves the allocation-free count
// agrees with counting the rendered string.
func FuzzEstimateCountsTheSpacedRendering(f *testing.F) {
	f.Add("plain", "a, b: c")
	f.Add("é\"q\\", `{"x":[1,2]}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		v := map[string]any{"a": a, "list": []string{b, a}, "n": len(b)}
		if got, want := EstimatePayloadTokens(v), EstimateTokens(Render(v)); got != want {
			t.Fatalf("estimate %d, rendering counts %d", got, want)
		}
	})
}

// FuzzShrinkTailAgreesWithSearch proves the guessed cut is the one a
// binary search over prefixes finds, for lists that are and are not
// rendered additively.
func FuzzShrinkTailAgreesWithSearch(f *testing.F) {
	f.Add("alpha beta gamma delta epsilon", uint8(12), false)
	f.Add("é ü ß \" \\ x", uint8(3), true)
	f.Fuzz(func(t *testing.T, words string, limit uint8, omitEmpty bool) {
		type plain struct {
			Items []string `json:"items"`
			Meta  string   `json:"meta"`
		}
		type omitting struct {
			Items []string `json:"items,omitempty"`
			Meta  string   `json:"meta"`
		}
		items := strings.Fields(words)
		render := func(list *[]string) func() any {
			if omitEmpty {
				return func() any { return omitting{*list, "m"} }
			}
			return func() any { return plain{*list, "m"} }
		}
		got := slices.Clone(items)
		cut := ShrinkTail(&got, int(limit), render(&got))
		want := slices.Clone(items)
		fits := func(n int) bool {
			want = items[:n]
			return EstimatePayloadTokens(render(&want)()) <= int(limit)
		}
		wantCut := 0
		if !fits(len(items)) {
			wantCut = shrinkBySearch(&want, items, fits)
		} else {
			want = items
		}
		if cut != wantCut || !slices.Equal(got, want) {
			t.Fatalf("ShrinkTail cut %d to %q, the search %d to %q", cut, got, wantCut, want)
		}
	})
}

// FuzzCountSeparatorsAgreesWithTheWalk proves the quote-to-quote count
// equals the byte walk's on any input, JSON or not.
func FuzzCountSeparatorsAgreesWithTheWalk(f *testing.F) {
	for _, s := range []string{`{"a":"x, y: z","b":[1,2]}`, `"\"", :`, `"a\\":1,"b\\\"":2`, `"open, :`, `\",:"`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := 0
		for range separators(b) {
			want++
		}
		if got := countSeparators(b); got != want {
			t.Fatalf("%q: counted %d separators, the walk %d", b, got, want)
		}
	})
}
