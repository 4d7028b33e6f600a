// SPDX-License-Identifier: Apache-2.0

package window

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func TestParseExpandsPeriods(t *testing.T) {
	tests := []struct {
		since, until, field string
		want                Window
	}{
		{"2026-08", "2026-08", "", Window{"2026-08-01", "2026-08-31", Created}},
		{"2026", "2026", "updated", Window{"2026-01-01", "2026-12-31", Updated}},
		{"", "2024-02", "created", Window{"", "2024-02-29", Created}},
		{" 2026-03-05 ", "", "", Window{"2026-03-05", "", Created}},
		{"", "", "", Window{"", "", Created}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.since, tt.until, tt.field)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
}

func TestParseRefusals(t *testing.T) {
	tests := []struct{ since, until, field, names string }{
		{"2026-02-30", "", "", "since"},
		{"2026-13", "", "", "since"},
		{"", "26-01-01", "", "until"},
		{"yesterday", "", "", "since"},
		{"", "", "ingested", "date_field"},
		{"2026-09", "2026-08", "", "after until"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.since, tt.until, tt.field)
		require.Error(t, err)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
		assert.Contains(t, err.Error(), tt.names)
	}
}

func TestSQLAndContainsAgree(t *testing.T) {
	w, err := Parse("2026-08", "2026-08", "")
	require.NoError(t, err)
	sql, args := w.SQL("n.")
	assert.Equal(t, "(n.created != '' AND n.created IS NOT NULL AND n.created >= ? AND n.created < ?)", sql)
	assert.Equal(t, []any{"2026-08-01", "2026-09-01"}, args)
	for date, in := range map[string]bool{
		"2026-08-01": true, "2026-08-31T14:02": true, "2026-09-01": false,
		"2026-07-31": false, "": false,
	} {
		assert.Equal(t, in, w.Contains(date), date)
	}
	none := Window{Field: Created}
	sql, args = none.SQL("")
	assert.Equal(t, "1", sql)
	assert.Nil(t, args)
	assert.True(t, none.Contains(""))
}

func TestEcho(t *testing.T) {
	w, _ := Parse("2026", "", "updated")
	e := w.Echo()
	require.NotNil(t, e.Since)
	assert.Equal(t, "2026-01-01", *e.Since)
	assert.Nil(t, e.Until)
	assert.Equal(t, "updated", e.DateField)
}

func FuzzParse(f *testing.F) {
	f.Add("2026-08", "2026", "created")
	f.Fuzz(func(t *testing.T, since, until, field string) {
		w, err := Parse(since, until, field)
		if err != nil {
			return
		}
		if w.Since != "" && w.Until != "" {
			assert.LessOrEqual(t, w.Since, w.Until)
		}
	})
}
