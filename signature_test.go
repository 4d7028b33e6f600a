// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/jsonerr"
)

var testSig = Signature{Name: "probe", Params: []Param{
	{Name: "id", Type: TStringOrList, Required: true},
	{Name: "k", Type: TInteger, Default: 5},
	{Name: "alpha", Type: TNumber, Default: 0.3},
	{Name: "deep", Type: TBoolean},
	{Name: "filter", Type: TObject},
	{Name: "fields", Type: TStringList},
	{Name: "hops", Type: TBoolOrInteger},
	{Name: "scope", Type: TString, Default: "all", Enum: []string{"all", "branches", "notes"}},
}}

func TestDecodeArgsRefusals(t *testing.T) {
	tests := []struct {
		name, raw string
		wantMsg   []string
	}{
		{"not an object", `[1,2]`, []string{"probe: arguments must be a JSON object, got list"}},
		{"bad json", `{`, []string{"probe: invalid JSON at offset 1: unexpected end of input"}},
		{"truncated object", `{"id":`, []string{"probe: invalid JSON at offset 6: unexpected end of input"}},
		{"trailing data", `{"id":"a"} x`, []string{"invalid JSON at offset 11: invalid character 'x' after top-level value"}},
		{"null", `null`, []string{"probe: arguments must be a JSON object, got null"}},
		{"string", `"{\"id\":1}"`, []string{"probe: arguments must be a JSON object, got string"}},
		{"unknown parameter", `{"id":"a","kk":1}`, []string{"unknown parameter 'kk'"}},
		{"missing required", `{}`, []string{"missing required parameter 'id' (string|string[])"}},
		{"null required", `{"id":null}`, []string{"required parameter 'id'", "is null"}},
		{"string for integer", `{"id":"a","k":"three"}`, []string{"parameter 'k' expects integer, got string"}},
		{"float for integer", `{"id":"a","k":3.0}`, []string{"parameter 'k' expects integer, got number"}},
		{"exponent for integer", `{"id":"a","k":3e0}`, []string{"expects integer, got number"}},
		{"bool for integer", `{"id":"a","k":true}`, []string{"expects integer, got boolean"}},
		{"bool for number", `{"id":"a","alpha":false}`, []string{"expects number, got boolean"}},
		{"list for scalar", `{"id":"a","deep":[true]}`, []string{"expects boolean, got list of boolean"}},
		{"mixed list", `{"id":[1,"a"]}`, []string{"got list of integer/string"}},
		{"empty list for string[] member", `{"id":"a","fields":[[]]}`, []string{"got list of list"}},
		{"object expected", `{"id":"a","filter":"x"}`, []string{"expects object, got string"}},
		{"enum", `{"id":"a","scope":"everything"}`, []string{"'scope' got \"everything\"", "all, branches, notes"}},
		{"hops string", `{"id":"a","hops":"2"}`, []string{"expects boolean|integer, got string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeArgs(testSig, []byte(tt.raw))
			require.Error(t, err)
			assert.Equal(t, ESchema, CodeOf(err))
			for _, m := range tt.wantMsg {
				assert.Contains(t, err.Error(), m)
			}
			assert.NotRegexp(t, `unmarshal|Go value|json:|JSON object, got object`, err.Error(), "wire words, never the decoder's")
		})
	}
}

func TestDecodeArgsValuesAndDefaults(t *testing.T) {
	a, err := DecodeArgs(testSig, []byte(`{"id":"a/b","k":null,"deep":true,"fields":["x","y"],"hops":3,"filter":{"t":1}}`))
	require.NoError(t, err)
	assert.Equal(t, "a/b", a.String("id"))
	assert.False(t, a.IsList("id"))
	assert.Equal(t, []string{"a/b"}, a.Strings("id"))
	assert.False(t, a.Has("k"), "null is absent")
	assert.Equal(t, 5, a.Int("k"), "default applies")
	assert.Equal(t, 0.3, a.Float("alpha"))
	assert.True(t, a.Bool("deep"))
	assert.Equal(t, []string{"x", "y"}, a.Strings("fields"))
	assert.Equal(t, "all", a.String("scope"))
	assert.Contains(t, a.Object("filter"), "t")
	hops, _ := a.Value("hops")
	assert.Equal(t, int64(3), hops)

	b, err := DecodeArgs(testSig, []byte(`{"id":["x"]}`))
	require.NoError(t, err)
	assert.True(t, b.IsList("id"), "a one-element list keeps the list shape")

	_, err = DecodeArgs(Signature{Name: "none"}, nil)
	require.NoError(t, err, "no input means no arguments")
}

func FuzzDecodeArgs(f *testing.F) {
	f.Add(`{"id":"a","k":2}`)
	f.Add(`{"id":[1],"hops":true}`)
	f.Fuzz(func(t *testing.T, raw string) {
		a, err := DecodeArgs(testSig, []byte(raw))
		if err != nil {
			assert.Equal(t, ESchema, CodeOf(err))
			return
		}
		assert.True(t, a.Has("id"))
	})
}

func TestDecodeArgsRefusesDeepNesting(t *testing.T) {
	nest := func(depth int) string {
		return `{"id":"a","filter":{"v":` + strings.Repeat("[", depth-2) + strings.Repeat("]", depth-2) + `}}`
	}
	tests := []struct {
		name   string
		raw    string
		refuse bool
	}{
		{"at the default depth", nest(DefaultJSONDepth), false},
		{"one level past it", nest(DefaultJSONDepth + 1), true},
		{"ten thousand levels", nest(10_000), true},
		{"brackets in a string do not nest", `{"id":"` + strings.Repeat("[", 1000) + `"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeArgs(testSig, []byte(tt.raw))
			if !tt.refuse {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, ESchema, CodeOf(err))
			assert.Contains(t, err.Error(), fmt.Sprintf("nesting depth limit of %d levels", DefaultJSONDepth))
		})
	}
}

func TestCallJSONDepthOption(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "f")
	_, err := Init(ctx, dir, "Depth", nil)
	require.NoError(t, err)
	args := []byte(`{"id": "_index", "fields": [[["summary"]]]}`)

	v := openT(t, dir, &Options{ReadOnly: true, JSONDepth: 2})
	_, err = v.Call(ctx, "look", args)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nesting depth limit of 2 levels", "the option bounds Call")

	v = openT(t, dir, &Options{ReadOnly: true})
	_, err = v.Call(ctx, "look", args)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expects string[]", "within the default the signature decides")
}

// asString reads a plain string without the decoder and any other as
// json.Unmarshal does: the same value or the same refusal either way.
func TestAsStringReadsAsTheDecoder(t *testing.T) {
	for _, raw := range []string{`""`, `"products/tidewatch-buoy"`, `"a b ~!"`, `"q\"uote"`, `"back\\slash"`,
		`"ção"`, `"tab\tx"`, "\"raw\ttab\"", `"\u0041"`, "\"del\x7f\"", "\"bad\xff\"", `"unterminated`, `"`, `3`, `null`, `["x"]`} {
		var want string
		wantErr := jsonerr.Kind(json.RawMessage(raw)) != "string" || json.Unmarshal([]byte(raw), &want) != nil
		got, err := asString(json.RawMessage(raw))
		assert.Equal(t, wantErr, err != nil, raw)
		if !wantErr {
			assert.Equal(t, want, got, raw)
		}
	}
}
