// SPDX-License-Identifier: Apache-2.0

package window

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNearestMonths(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		require.NoError(t, err)
		return d
	}
	months := []month{
		{month: "2026-01", nodes: 1, first: day("2026-01-10"), last: day("2026-01-20")},
		{month: "2026-02", nodes: 2, first: day("2026-02-01"), last: day("2026-02-28")},
		{month: "2026-03", nodes: 3, first: day("2026-03-12"), last: day("2026-03-12")},
		{month: "2026-05", nodes: 4, first: day("2026-05-01"), last: day("2026-05-02")},
	}
	label := func(ms []month) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.month)
		}
		return out
	}
	// 2026-02-15 lies inside February's span; March is 25 days away,
	// January 26.
	assert.Equal(t, []string{"2026-02", "2026-03", "2026-01"}, label(nearestMonths(months, day("2026-02-15"), 3)))
	assert.Equal(t, []string{"2026-03", "2026-05"}, label(nearestMonths(months, day("2026-04-06"), 2)),
		"Mar 12 and May 1 are both 25 days from Apr 6: the earlier month first")
	assert.Len(t, nearestMonths(months, day("2030-01-01"), 10), 4)
	assert.Empty(t, nearestMonths(nil, day("2030-01-01"), 3))
}
