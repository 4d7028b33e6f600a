// SPDX-License-Identifier: Apache-2.0

package shares_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/shares"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func openStore(t *testing.T, c *clock) (*shares.Store, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "station.db")
	db, err := sql.Open("sqlite3", "file:"+filepath.ToSlash(file)+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	s, err := shares.New(context.Background(), db, &shares.Options{Now: c.now})
	require.NoError(t, err)
	_, err = shares.New(context.Background(), db, nil) // migrating twice is harmless
	require.NoError(t, err)
	return s, file
}

func TestDays(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int
		ok   bool
	}{
		{"", shares.DefaultDays, true}, {"null", shares.DefaultDays, true}, {"1", 1, true}, {"30", 30, true},
		{"90", 90, true}, {"7.0", 7, true}, {"0", 0, false}, {"91", 0, false}, {"-1", 0, false},
		{"7.5", 0, false}, {"true", 0, false}, {"false", 0, false}, {`"7"`, 0, false}, {"[7]", 0, false},
		{"{}", 0, false}, {"1e400", 0, false},
	} {
		got, err := shares.Days(json.RawMessage(c.raw))
		if c.ok {
			assert.NoError(t, err, c.raw)
			assert.Equal(t, c.want, got, c.raw)
			continue
		}
		var e *vine.Error
		require.ErrorAs(t, err, &e, c.raw)
		assert.Equal(t, vine.ESchema, e.Code)
		assert.Equal(t, "days must be an integer 1..90", e.Message)
		assert.Equal(t, "A share always expires (J.17 rule 4).", e.Hint)
	}
}

func TestShareLife(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	s, file := openStore(t, c)
	a, err := s.Create(ctx, "acme", "notes/tide", "ana", 7)
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^sh_[0-9a-f]{12}$`), a.ID)
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}$`), a.Token, "128 random bits")
	assert.Equal(t, "2026-12-01T09:00:00Z", a.Created)
	assert.Equal(t, "2026-12-08T09:00:00Z", a.Expires)
	b, err := s.Create(ctx, "acme", "notes/moon", "bob", 1)
	require.NoError(t, err)
	_, err = s.Create(ctx, "beta", "notes/sun", "ana", 90)
	require.NoError(t, err)
	_, err = s.Create(ctx, "acme", "notes/sun", "ana", 91)
	require.Error(t, err, "Create states the bound too")

	got, ok, err := s.Resolve(ctx, a.Token)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, a.Share, got)
	_, ok, _ = s.Resolve(ctx, "0123456789abcdef0123456789abcdef")
	assert.False(t, ok, "a token never minted")

	all, err := s.Active(ctx, "acme", "")
	require.NoError(t, err)
	assert.Len(t, all, 2)
	own, err := s.Active(ctx, "acme", "bob")
	require.NoError(t, err)
	assert.Equal(t, []shares.Share{b.Share}, own)
	_, ok, _ = s.Get(ctx, "beta", a.ID)
	assert.False(t, ok, "a share is its forest's")

	c.t = c.t.Add(24 * time.Hour) // bob's one-day share ends now
	_, ok, _ = s.Resolve(ctx, b.Token)
	assert.False(t, ok, "expired")
	assert.ErrorIs(t, s.Revoke(ctx, b.ID), vine.ENotFound, "an expired share cannot be revoked: it is gone")
	require.NoError(t, s.Revoke(ctx, a.ID))
	_, ok, _ = s.Resolve(ctx, a.Token)
	assert.False(t, ok, "revoked")
	assert.ErrorIs(t, s.Revoke(ctx, a.ID), vine.ENotFound, "twice")
	all, err = s.Active(ctx, "acme", "")
	require.NoError(t, err)
	assert.Empty(t, all)

	// No token lies in the file, in any of its parts.
	matches, _ := filepath.Glob(file + "*")
	for _, f := range matches {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, tok := range []string{a.Token, b.Token} {
			assert.NotContains(t, string(data), tok, filepath.Base(f))
		}
	}
}
