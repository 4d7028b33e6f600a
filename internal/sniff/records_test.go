// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeLinesAgreesWithEncodingJSON(t *testing.T) {
	sec := "Chapter \"2\" — ção"
	recs := []Line{
		{Line: 1, Pos: 0, Text: "plain"},
		{Line: 7, Section: &sec, Pos: 12, Text: "tab\there \\ and \"quotes\" and \u2028 sep"},
		{Line: 9, Section: &sec, Pos: 3, Text: ""},
	}
	raw, err := json.Marshal(recs)
	require.NoError(t, err)
	got, err := decodeLines(string(raw))
	require.NoError(t, err)
	assert.Equal(t, recs, got)

	empty, err := decodeLines("[]")
	require.NoError(t, err)
	assert.Empty(t, empty)
	_, err = decodeLines(`[[1,null,2]]`)
	assert.Error(t, err, "a damaged row is an error, never a half answer")
}

func FuzzDecodeLines(f *testing.F) {
	f.Add(`[[1,null,0,"a"],[2,"S",3,"b\"c"]]`)
	f.Add(`[[1, null, 0, "spaced"]]`)
	f.Fuzz(func(t *testing.T, raw string) {
		var want []Line
		wantErr := json.Unmarshal([]byte(raw), &want)
		got, err := decodeLines(raw)
		if wantErr != nil {
			assert.Error(t, err)
			return
		}
		require.NoError(t, err)
		assert.Equal(t, len(want), len(got))
		for i := range want {
			assert.Equal(t, want[i].Line, got[i].Line)
			assert.Equal(t, want[i].Pos, got[i].Pos)
			assert.Equal(t, want[i].Text, got[i].Text)
			assert.Equal(t, want[i].Section == nil, got[i].Section == nil)
		}
	})
}
