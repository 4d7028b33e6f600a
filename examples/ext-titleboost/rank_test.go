// SPDX-License-Identifier: Apache-2.0

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine/ext"
)

func TestTitleFirst(t *testing.T) {
	items := []ext.Ranked{
		{ID: "a", Title: "Harbour fees"},
		{ID: "b", Title: "Tide sensor calibration"},
		{ID: "c", Title: "Sensor list"},
		{ID: "d", Title: "Calibration of the tide sensor, 2025"},
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"tide sensor calibration", []string{"b", "d", "a", "c"}},
		{"Sensor?", []string{"b", "c", "d", "a"}},
		{"of a", []string{"a", "b", "c", "d"}}, // only short words: order kept
		{"", []string{"a", "b", "c", "d"}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, TitleFirst(tc.query, items, 3), tc.query)
	}
}

func TestManifestIsValid(t *testing.T) {
	m := titleBoost{}.Manifest()
	assert.Equal(t, "titleboost", m.ID)
	assert.Equal(t, "title_first", m.Contributes.Ranking[0].Name)
}
