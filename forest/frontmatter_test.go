// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"math"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFrontmatterOrder(t *testing.T) {
	f := NewFrontmatter(Field{"id", "a"}, Field{"type", "note"}, Field{"id", "b"})
	assert.Equal(t, []string{"id", "type"}, f.Keys(), "a repeated key keeps its first position")
	assert.Equal(t, "b", f.String("id"), "and its last value")

	f.Set("title", "T")
	f.Set("type", "concept")
	assert.Equal(t, []string{"id", "type", "title"}, f.Keys(), "set replaces in place, appends new keys")
	assert.Equal(t, "concept", f.String("type"))

	assert.True(t, f.Delete("type"))
	assert.False(t, f.Delete("type"))
	assert.Equal(t, []string{"id", "title"}, f.Keys())
	assert.Equal(t, 2, f.Len())

	fields := f.Fields()
	fields[0].Value = "changed"
	assert.Equal(t, "b", f.String("id"), "Fields returns a copy")
}

func TestFrontmatterGetHas(t *testing.T) {
	f := NewFrontmatter(Field{"null", nil}, Field{"s", "x"})
	v, ok := f.Get("null")
	assert.True(t, ok)
	assert.Nil(t, v)
	assert.True(t, f.Has("null"), "a null value is present")
	_, ok = f.Get("missing")
	assert.False(t, ok)
	assert.False(t, f.Has("missing"))

	var nilF *Frontmatter
	assert.Equal(t, 0, nilF.Len())
	assert.Nil(t, nilF.Keys())
	assert.Nil(t, nilF.Fields())
	assert.False(t, nilF.Has("x"))
	assert.Equal(t, "", nilF.String("x"))
	assert.Nil(t, nilF.Clone())
}

func TestFrontmatterString(t *testing.T) {
	f := NewFrontmatter(
		Field{"s", "text"}, Field{"i", 2026}, Field{"f", 0.5}, Field{"whole", 1.0}, Field{"b", true},
		Field{"n", nil}, Field{"l", []string{"a"}}, Field{"m", NewFrontmatter(Field{"k", "v"})},
	)
	tests := map[string]string{"s": "text", "i": "2026", "f": "0.5", "whole": "1.0", "b": "true",
		"n": "", "l": "", "m": "", "absent": ""}
	for key, want := range tests {
		assert.Equal(t, want, f.String(key), key)
	}
}

func TestFrontmatterCloneIsDeep(t *testing.T) {
	link := NewFrontmatter(Field{"rel", "part-of"}, Field{"target", "a/_index"})
	f := NewFrontmatter(Field{"links", []any{link}}, Field{"tags", []string{"a"}})
	c := f.Clone()
	require.Equal(t, f, c)

	cl, _ := c.Get("links")
	cl.([]any)[0].(*Frontmatter).Set("target", "b/_index")
	ct, _ := c.Get("tags")
	ct.([]any)[0] = "changed"
	c.Set("new", 1)

	assert.Equal(t, "a/_index", link.String("target"))
	tags, _ := f.Get("tags")
	assert.Equal(t, []any{"a"}, tags)
	assert.False(t, f.Has("new"))
}

type stringer struct{}

func (stringer) String() string { return "from Stringer" }

func TestFrontmatterNormalize(t *testing.T) {
	type named string
	var nilFront *Frontmatter
	var nilPtr *int
	seven := 7
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"int", 3, int64(3)},
		{"int8", int8(-3), int64(-3)},
		{"uint32", uint32(3), int64(3)},
		{"uint64 in range", uint64(3), int64(3)},
		{"uint64 beyond int64 keeps its digits", uint64(math.MaxUint64), "18446744073709551615"},
		{"float32", float32(0.5), 0.5},
		{"named string", named("x"), "x"},
		{"string slice", []string{"a", "b"}, []any{"a", "b"}},
		{"int slice", []int{1, 2}, []any{int64(1), int64(2)}},
		{"array", [2]bool{true, false}, []any{true, false}},
		{"map sorted by key", map[string]any{"b": 1, "a": "x"}, NewFrontmatter(Field{"a", "x"}, Field{"b", int64(1)})},
		{"ordered YAML map", yaml.MapSlice{{Key: "z", Value: uint64(1)}, {Key: 2, Value: "two"}},
			NewFrontmatter(Field{"z", int64(1)}, Field{"2", "two"})},
		{"null YAML key", yaml.MapSlice{{Key: nil, Value: "v"}}, NewFrontmatter(Field{"null", "v"})},
		{"date", time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), "2026-06-01"},
		{"datetime", time.Date(2026, 6, 1, 8, 30, 0, 0, time.UTC), "2026-06-01T08:30:00Z"},
		{"UTF-8 bytes", []byte("raw"), "raw"},
		{"binary bytes", []byte{0xff, 0x00}, "/wA="},
		{"invalid UTF-8 is repaired", "a\xffb", "a\uFFFDb"},
		{"nil frontmatter", nilFront, nil},
		{"nil pointer", nilPtr, nil},
		{"pointer", &seven, int64(7)},
		{"stringer", stringer{}, "from Stringer"},
		{"struct", struct{ A int }{1}, "{1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFrontmatter(Field{"k", tt.in})
			got, _ := f.Get("k")
			assert.Equal(t, tt.want, got)
		})
	}
}
