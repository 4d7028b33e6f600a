// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/terms"
)

func TestScanBodySplitsLikePython(t *testing.T) {
	body := "# T\r\nalpha\u2028## S1\nbeta alpha\x0bgamma\n#### deep\nalpha"
	got := ScanBody(body, [][]rune{[]rune(terms.Fold("alpha"))})
	require.Len(t, got[0], 3)
	assert.Equal(t, 2, got[0][0].Line)
	assert.Nil(t, got[0][0].Section)
	assert.Equal(t, 4, got[0][1].Line)
	assert.Equal(t, "S1", *got[0][1].Section)
	assert.Equal(t, 5, got[0][1].Pos)
	assert.Equal(t, 7, got[0][2].Line)
	assert.Equal(t, "S1", *got[0][2].Section, "H4 does not change the section")
}

func FuzzScanBody(f *testing.F) {
	f.Add("## A\nfoo bar\nFOO", "foo")
	f.Fuzz(func(t *testing.T, body, term string) {
		ft := []rune(strings.TrimSpace(terms.Fold(term)))
		if len(ft) < 2 {
			return
		}
		for _, l := range ScanBody(body, [][]rune{ft})[0] {
			assert.GreaterOrEqual(t, l.Pos, 0)
			assert.LessOrEqual(t, l.Pos+len(ft), len([]rune(l.Text)))
		}
	})
}
