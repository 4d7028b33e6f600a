// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventJSONIsWhatMarshalWrites: the trace line written without
// reflection is json.Marshal's, byte for byte, across ids that need
// escaping, floats in every notation and the optional shares.
func TestEventJSONIsWhatMarshalWrites(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(f float64) *float64 { return &f }
	ids := []*string{nil, str(""), str("crm/accounts/acme"), str(`a"b\c`), str("<&>"), str("ação/ü"),
		str("tab\there"), str("bad\xffutf8"), str("line\u2028sep"), str("del\x7f")}
	floats := []float64{0, 1, -1, 0.054, 1764780000.123456, 1e-7, 5e-7, 1e-6, 123456789012345678901234.0, 1e21,
		1e20, 3.0000000000000004, math.SmallestNonzeroFloat64, math.MaxFloat64, -2.5e-9}
	n := 0
	for i, id := range ids {
		for j, f := range floats {
			e := Event{TS: f, Session: "abcdef012345", Primitive: "move", ID: id, TokensIn: i * 7, TokensOut: -j,
				ElapsedMS: floats[(i+j)%len(floats)]}
			switch (i + j) % 4 {
			case 1:
				e.EmbedMS = num(f)
			case 2:
				e.DenseMS = num(0.001)
			case 3:
				e.EmbedMS, e.DenseMS = num(0), num(12.5)
			}
			if j%3 == 1 {
				e.Extensions = []string{"ext:rank", *str(`ext:"q"<&>`)}
			}
			want, err := json.Marshal(e)
			require.NoError(t, err)
			got, err := e.appendJSON(nil)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			n++
		}
	}
	assert.Equal(t, len(ids)*len(floats), n)

	_, err := Event{Session: "s", TS: math.NaN()}.appendJSON(nil)
	assert.Error(t, err, "what Marshal refuses is refused")
	_, err = Event{Session: "s", EmbedMS: num(math.Inf(1))}.appendJSON(nil)
	assert.Error(t, err)
}
