// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/window"
)

func winMust(t *testing.T, since, until, field string) window.Window {
	t.Helper()
	w, err := window.Parse(since, until, field)
	require.NoError(t, err)
	return w
}

// winSetDates rewrites the created dates of the catalog: every node gets ""
// except those named.
func winSetDates(t *testing.T, v *Vine, dates map[string]string) {
	t.Helper()
	err := v.Catalog().Write(context.Background(), func(tx *sql.Tx) error {
		if _, err := tx.Exec("UPDATE nodes SET created = ''"); err != nil {
			return err
		}
		for id, d := range dates {
			if _, err := tx.Exec("UPDATE nodes SET created = ? WHERE id = ?", d, id); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
}

func TestUndatedCount(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	created, updated := winMust(t, "2026", "", ""), winMust(t, "2026", "", "updated")
	n, err := undatedCount(ctx, &v.stmts, created, "")
	require.NoError(t, err)
	assert.Zero(t, n, "every fixture node is dated")

	locUpsert(t, v,
		catalog.Record{ID: "notes/u1"},
		catalog.Record{ID: "notes/u2", Created: "2026-01-01"},
		catalog.Record{ID: "events/u3"},
		catalog.Record{ID: "eventsx/u4"},
		catalog.Record{ID: "a_b/u5", Created: "2026-02-02", Updated: "2026-02-02"},
		catalog.Record{ID: "axb/u6"},
	)
	for _, tt := range []struct {
		name   string
		w      window.Window
		prefix string
		want   int
	}{
		{"whole forest, created", created, "", 4},
		{"whole forest, updated", updated, "", 5},
		{"a folder, never its lookalike sibling", created, "events/", 1},
		{"the other sibling", created, "eventsx/", 1},
		{"underscore is no wildcard", created, "a_b/", 0},
		{"underscore is no wildcard, the other way", created, "axb/", 1},
		{"a leaf", created, "notes/u1", 1},
		{"a dated leaf", created, "notes/u2", 0},
		{"the same leaf on updated", updated, "notes/u2", 1},
		{"an absent leaf", created, "notes/none", 0},
	} {
		n, err := undatedCount(ctx, &v.stmts, tt.w, tt.prefix)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, n, tt.name)
	}
}

func TestEmptyWindowFactsMatched(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)

	matched, hint, err := windowFacts(ctx, &v.stmts).Empty(ctx, winMust(t, "", "", "updated"))
	require.NoError(t, err)
	assert.Zero(t, matched)
	assert.Empty(t, hint, "no window, nothing to explain")

	// matched counts the window forest-wide; the in-memory twin agrees.
	for _, w := range []window.Window{
		winMust(t, "2026-01", "2026-03", ""),
		winMust(t, "2026-11-05", "", "created"),
		winMust(t, "", "2025-09-01", "updated"),
	} {
		want := 0
		rows, err := v.Catalog().DB().QueryContext(ctx, "SELECT "+w.Column()+" FROM nodes")
		require.NoError(t, err)
		for rows.Next() {
			var d string
			require.NoError(t, rows.Scan(&d))
			if w.Contains(d) {
				want++
			}
		}
		require.NoError(t, rows.Close())
		require.Positive(t, want)

		matched, hint, err := windowFacts(ctx, &v.stmts).Empty(ctx, w)
		require.NoError(t, err)
		assert.Equal(t, want, matched, "%+v", w)
		assert.Contains(t, hint, "The window is not the reason")
		assert.Contains(t, hint, "sniff(terms)")
	}
}

func TestEmptyWindowFactsMissed(t *testing.T) {
	ctx := context.Background()
	v := locFixture(t, nil)
	winSetDates(t, v, map[string]string{
		"people/ana-ribeiro":       "2024-01-15",
		"people/caio-ramos":        "2024-01-20",
		"people/irene-sato":        "2024-03-10T12:00:00",
		"people/marcos-teles":      "2024-06-30",
		"people/pedro-albuquerque": "2024-13-01", // no such month: on no calendar
	})
	tests := []struct {
		name, since, until, want string
	}{
		{"between populated months", "2024-04", "2024-04",
			"The window is the reason: no node has a created date from 2024-04-01 to 2024-04-30. " +
				"Dated nodes: 4, from 2024-01-15 to 2024-06-30. " +
				"Nearest populated months: 2024-03 (1), 2024-01 (2), 2024-06 (1). " +
				"Widen or drop the window, or list the populated periods with calendar."},
		{"until only: distances from until", "", "2023-12",
			"The window is the reason: no node has a created date on or before 2023-12-31. " +
				"Dated nodes: 4, from 2024-01-15 to 2024-06-30. " +
				"Nearest populated months: 2024-01 (2), 2024-03 (1), 2024-06 (1). " +
				"Widen or drop the window, or list the populated periods with calendar."},
		{"after everything", "2025", "",
			"The window is the reason: no node has a created date on or after 2025-01-01. " +
				"Dated nodes: 4, from 2024-01-15 to 2024-06-30. " +
				"Nearest populated months: 2024-06 (1), 2024-03 (1), 2024-01 (2). " +
				"Widen or drop the window, or list the populated periods with calendar."},
	}
	for _, tt := range tests {
		matched, hint, err := windowFacts(ctx, &v.stmts).Empty(ctx, winMust(t, tt.since, tt.until, ""))
		require.NoError(t, err, tt.name)
		assert.Zero(t, matched, tt.name)
		assert.Equal(t, tt.want, hint, tt.name)
	}

	winSetDates(t, v, nil)
	matched, hint, err := windowFacts(ctx, &v.stmts).Empty(ctx, winMust(t, "2024", "", ""))
	require.NoError(t, err)
	assert.Zero(t, matched)
	assert.Equal(t, "The window is the reason: no node has a created date on or after 2024-01-01. "+
		"No node has a created date at all, so no window can match; drop the window.", hint)
}
