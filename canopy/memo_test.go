// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
)

func openCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), filepath.Join(t.TempDir(), "_derived", "catalog.db"), catalog.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func memoRows(t *testing.T, c *catalog.Catalog) int {
	t.Helper()
	var n int
	require.NoError(t, c.DB().QueryRow("SELECT count(*) FROM embed_memo").Scan(&n))
	return n
}

func TestMemoEmbedsOncePerModelAndText(t *testing.T) {
	ctx := context.Background()
	cat := openCatalog(t)
	e := &counting{Embedder: NewHash("hash", 16)}
	m := NewMemo(cat, MemoOptions{})

	first, err := m.Embed(ctx, e, "storm  warning\n")
	require.NoError(t, err)
	want, _ := NewHash("hash", 16).Embed(ctx, []string{"storm warning"})
	assert.Equal(t, want[0], first, "the collapsed text is what gets embedded")
	for _, same := range []string{"storm warning", "  storm\twarning  "} {
		v, err := m.Embed(ctx, e, same)
		require.NoError(t, err)
		assert.Equal(t, first, v)
	}
	calls, texts := e.seen()
	assert.Equal(t, 1, calls, "white space variants share one embedding")
	assert.Equal(t, []string{"storm warning"}, texts)
	assert.Equal(t, 1, memoRows(t, cat))

	_, err = m.Embed(ctx, e, "Storm warning")
	require.NoError(t, err)
	calls, _ = e.seen()
	assert.Equal(t, 2, calls, "case is kept in the key")

	other := &counting{Embedder: NewHash("other", 16)}
	_, err = m.Embed(ctx, other, "storm warning")
	require.NoError(t, err)
	calls, _ = other.seen()
	assert.Equal(t, 1, calls, "another model, another key")

	// A new memo over the same catalog (a reopened forest) reads the rows.
	fresh := &counting{Embedder: NewHash("hash", 16)}
	v, err := NewMemo(cat, MemoOptions{}).Embed(ctx, fresh, "storm warning")
	require.NoError(t, err)
	assert.Equal(t, first, v)
	calls, _ = fresh.seen()
	assert.Equal(t, 0, calls, "stored rows survive the process")
}

func TestMemoIsBoundedLRU(t *testing.T) {
	ctx := context.Background()
	cat := openCatalog(t)
	e := NewHash("hash", 8)
	m := NewMemo(cat, MemoOptions{Capacity: 3})
	for _, q := range []string{"a", "b", "c"} {
		_, err := m.Embed(ctx, e, q)
		require.NoError(t, err)
	}
	// Read "a" through a memo without the in-memory front, so the stored
	// row's recency is what a hit refreshes.
	_, err := NewMemo(cat, MemoOptions{Capacity: 3}).Embed(ctx, e, "a")
	require.NoError(t, err)
	_, err = m.Embed(ctx, e, "d")
	require.NoError(t, err)
	assert.Equal(t, 3, memoRows(t, cat), "never more rows than the capacity")

	c := &counting{Embedder: e}
	cold := NewMemo(cat, MemoOptions{Capacity: 3})
	for _, q := range []string{"a", "c", "d"} {
		_, err := cold.Embed(ctx, c, q)
		require.NoError(t, err)
	}
	calls, _ := c.seen()
	assert.Equal(t, 0, calls, "a, c and d were kept")
	_, err = cold.Embed(ctx, c, "b")
	require.NoError(t, err)
	calls, _ = c.seen()
	assert.Equal(t, 1, calls, "b, the least recently used, was evicted")
}

func TestMemoRefusesUntrustedRowsAndFailures(t *testing.T) {
	ctx := context.Background()
	cat := openCatalog(t)
	e := NewHash("hash", 8)
	_, err := NewMemo(cat, MemoOptions{}).Embed(ctx, e, "tide")
	require.NoError(t, err)
	require.NoError(t, cat.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec("UPDATE embed_memo SET vector = x'0000c07f0000c07f0000c07f0000c07f0000c07f0000c07f0000c07f0000c07f'")
		return err
	}))
	c := &counting{Embedder: e}
	v, err := NewMemo(cat, MemoOptions{}).Embed(ctx, c, "tide")
	require.NoError(t, err)
	calls, _ := c.seen()
	assert.Equal(t, 1, calls, "a stored vector that is not finite is a miss")
	assert.True(t, finite(v))

	wider := &counting{Embedder: NewHash("hash", 16)}
	v, err = NewMemo(cat, MemoOptions{}).Embed(ctx, wider, "tide")
	require.NoError(t, err)
	assert.Len(t, v, 16, "a row of another dimension is a miss")
	calls, _ = wider.seen()
	assert.Equal(t, 1, calls)

	before := memoRows(t, cat)
	_, err = NewMemo(cat, MemoOptions{}).Embed(ctx, scripted{model: "m", err: errors.New("down")}, "new text")
	assert.ErrorContains(t, err, "down")
	_, err = NewMemo(cat, MemoOptions{}).Embed(ctx, scripted{model: "m", vecs: [][]float32{{0, 0}}}, "new text")
	assert.ErrorContains(t, err, "zero or non-finite")
	_, err = NewMemo(cat, MemoOptions{}).Embed(ctx, scripted{model: "m", vecs: [][]float32{{1}, {1}}}, "new text")
	assert.ErrorContains(t, err, "2 vectors")
	assert.Equal(t, before, memoRows(t, cat), "failures store nothing")
}

func TestMemoOnReadOnlyCatalogStillEmbeds(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "_derived", "catalog.db")
	w, err := catalog.Open(ctx, path, catalog.Options{})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	ro, err := catalog.Open(ctx, path, catalog.Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	c := &counting{Embedder: NewHash("hash", 8)}
	m := NewMemo(ro, MemoOptions{})
	for range 2 {
		v, err := m.Embed(ctx, c, "tide")
		require.NoError(t, err)
		assert.Len(t, v, 8)
	}
	calls, _ := c.seen()
	assert.Equal(t, 1, calls, "the in-memory front still serves the repeat")
}
