// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInferTypeAndCoerce(t *testing.T) {
	tests := []struct {
		name   string
		values []any
		typ    string
		want   []any
	}{
		{"ints", []any{"1", "-2", " 30 "}, typeInteger, []any{int64(1), int64(-2), int64(30)}},
		{"native ints", []any{int64(7), true, false}, typeInteger, []any{int64(7), int64(1), int64(0)}},
		{"native float never integer", []any{int64(3), 99.0}, typeReal, []any{3.0, 99.0}},
		{"string float", []any{"1", "1.5"}, typeReal, []any{1.0, 1.5}},
		{"money", []any{"10.00", "3.50", "7"}, typeReal, []any{10.0, 3.5, 7.0}},
		{"exponent", []any{"1e3"}, typeReal, []any{1000.0}},
		{"mixed is text", []any{"1", "2.5", "n/a"}, typeText, []any{"1", "2.5", "n/a"}},
		{"text renders natives", []any{int64(1), 2.0, true, "x"}, typeText, []any{"1", "2.0", "True", "x"}},
		{"empty is null", []any{"", nil, "4"}, typeInteger, []any{nil, nil, int64(4)}},
		{"no values is text", []any{"", nil}, typeText, []any{nil, nil}},
		{"inf and nan are words", []any{"inf", "NaN"}, typeText, []any{"inf", "NaN"}},
		{"hex and separators are words", []any{"0x10", "1_000"}, typeText, []any{"0x10", "1_000"}},
		{"integer wider than int64 keeps its digits", []any{"12345678901234567890123"}, typeText,
			[]any{"12345678901234567890123"}},
		{"leading zeros stay integers", []any{"007"}, typeInteger, []any{int64(7)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			records := make([][]any, len(tt.values))
			for i, v := range tt.values {
				records[i] = []any{v}
			}
			typ := inferType(records, 0)
			require.Equal(t, tt.typ, typ)
			got := make([]any, len(tt.values))
			for i, v := range tt.values {
				got[i] = coerce(v, typ)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTablesConversionKeepsOrder(t *testing.T) {
	conv := tablesConversion("book", []rawTable{
		{name: "zeta", header: []string{"B", "A"}, records: [][]any{{"1", "x"}, {"2"}}},
		{name: "alpha", header: []string{"Only"}, records: [][]any{{1.5}}},
	})
	assert.Equal(t, KindDataset, conv.Kind)
	assert.Equal(t, []string{"zeta", "alpha"}, conv.Tables)
	assert.Equal(t, []string{"b", "a"}, conv.Columns["zeta"])
	assert.Equal(t, map[string]string{"b": typeInteger, "a": typeText}, conv.Schema["zeta"])
	assert.Equal(t, [][]any{{int64(1), "x"}, {int64(2), nil}}, conv.Rows["zeta"], "a short record is padded with NULL")
	assert.Equal(t, [][]any{{1.5}}, conv.Rows["alpha"])
}

func TestFormatFloat(t *testing.T) {
	for in, want := range map[float64]string{
		3: "3.0", 99.5: "99.5", -0.25: "-0.25", 1e16: "1e+16", 1e-5: "1e-05", 123456789.125: "123456789.125", 0: "0.0",
	} {
		assert.Equal(t, want, formatFloat(in), "formatFloat(%v)", in)
	}
}
