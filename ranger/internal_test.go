// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine/forest"
)

func entry(rel, target string, confidence any) *forest.Frontmatter {
	e := forest.NewFrontmatter(forest.Field{Key: "rel", Value: rel}, forest.Field{Key: "target", Value: target})
	if confidence != nil {
		e.Set("confidence", confidence)
	}
	return e
}

func TestRewriteLink(t *testing.T) {
	promoteTo := 0.8
	tests := []struct {
		name    string
		rel     string
		links   []any
		set     *float64
		changed bool
		want    []any // nil: the links key is gone
	}{
		{"prune the only link", "related-to", []any{entry("related-to", "b", 0.3)}, nil, true, nil},
		{"prune keeps the authored twin and other links", "related-to",
			[]any{entry("related-to", "b", nil), entry("related-to", "b", 0.3), entry("author", "c", 0.2)}, nil, true,
			[]any{entry("related-to", "b", nil), entry("author", "c", 0.2)}},
		{"prune drops every managed duplicate", "related-to",
			[]any{entry("related-to", "b", 0.3), entry("related-to", "b", 0.4)}, nil, true, nil},
		{"promote raises the managed entry in place", "related-to",
			[]any{entry("author", "c", nil), entry("related-to", "b", 0.3)}, &promoteTo, true,
			[]any{entry("author", "c", nil), entry("related-to", "b", 0.8)}},
		{"promote leaves a higher managed entry", "related-to", []any{entry("related-to", "b", 0.9)}, &promoteTo, false,
			[]any{entry("related-to", "b", 0.9)}},
		{"a link accepted meanwhile is left alone", "related-to", []any{entry("related-to", "b", 1.0)}, nil, false,
			[]any{entry("related-to", "b", 1.0)}},
		{"a structural link is left alone", "part-of", []any{entry("part-of", "b", 0.3)}, nil, false,
			[]any{entry("part-of", "b", 0.3)}},
		{"a malformed item survives", "related-to", []any{"not a mapping", entry("related-to", "b", 0.3)}, nil, true,
			[]any{"not a mapping"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := &forest.Node{ID: "a", Front: forest.NewFrontmatter(forest.Field{Key: "id", Value: "a"},
				forest.Field{Key: "links", Value: tc.links})}
			assert.Equal(t, tc.changed, rewriteLink(n, tc.rel, "b", tc.set))
			got, has := n.Front.Get("links")
			if tc.want == nil {
				assert.False(t, has)
				return
			}
			assert.Equal(t, forest.NewFrontmatter(forest.Field{Key: "links", Value: tc.want}).Fields()[0].Value, got)
		})
	}
}

func TestManaged(t *testing.T) {
	tests := []struct {
		rel  string
		conf any
		ok   bool
	}{
		{"related-to", 0.3, true},
		{"related-to", int64(0), true},
		{"related-to", 0.999, true},
		{"related-to", 1.0, false},
		{"related-to", int64(1), false},
		{"related-to", nil, false},
		{"related-to", "0.3", false},
		{"related-to", true, false},
		{"related-to", math.NaN(), false},
		{"part-of", 0.3, false},
	}
	for _, tc := range tests {
		_, ok := Managed(forest.Link{Rel: tc.rel, Target: "b", Entry: entry(tc.rel, "b", tc.conf)})
		assert.Equal(t, tc.ok, ok, "%s %v", tc.rel, tc.conf)
	}
	_, ok := Managed(forest.Link{Rel: "related-to", Target: "b"})
	assert.False(t, ok, "a link without its entry is not managed")
}

func TestCacheBudget(t *testing.T) {
	assert.Equal(t, int64(0), cacheBudget(0), "0 GB keeps nothing")
	assert.Equal(t, int64(5e9), cacheBudget(5), "decimal gigabytes")
	assert.Equal(t, int64(1), cacheBudget(1e-12), "never below one byte for a positive cap")
	assert.Equal(t, int64(math.MaxInt64), cacheBudget(1e20))
}

func TestDuration(t *testing.T) {
	assert.Equal(t, 30*24*time.Hour, duration(30*24, time.Hour))
	assert.Equal(t, time.Duration(0), duration(0, time.Hour))
	assert.Equal(t, time.Duration(1), duration(1e-15, time.Hour), "a positive span stays positive")
	assert.Equal(t, time.Duration(math.MaxInt64), duration(1e12, time.Hour), "clamped, not overflowed")
}
