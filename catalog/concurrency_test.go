// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func TestConcurrentWriterAndReaders(t *testing.T) {
	ctx := context.Background()
	c, _ := openTest(t)
	require.NoError(t, c.Upsert(ctx, note("seed")))
	const writes = 60

	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 16)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := range writes {
			r := note(fmt.Sprintf("n%03d", i))
			r.Edges = []Edge{{"related", "seed", 1}}
			if err := c.Upsert(ctx, r); err != nil {
				errs <- err
				return
			}
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				st, err := c.Stats(ctx)
				if err != nil {
					errs <- err
					return
				}
				if st.Nodes < last {
					errs <- fmt.Errorf("node count went back from %d to %d", last, st.Nodes)
					return
				}
				last = st.Nodes
				var n int
				if err := c.DB().QueryRowContext(ctx, `SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?`,
					MatchExpr([]string{"about"})).Scan(&n); err != nil {
					errs <- err
					return
				}
				if _, _, err := c.Get(ctx, "seed"); err != nil {
					errs <- err
					return
				}
				if _, err := c.InEdges(ctx, "seed"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	in, err := c.InEdges(ctx, "seed")
	require.NoError(t, err)
	assert.Len(t, in, writes)
}

func TestReadOnlyBesideWriter(t *testing.T) {
	ctx := context.Background()
	w, path := openTest(t)
	ro, err := Open(ctx, path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	assert.True(t, ro.ReadOnly())
	assert.False(t, w.ReadOnly())

	_, ok, err := ro.Get(ctx, "a")
	require.NoError(t, err)
	assert.False(t, ok)

	a := note("a")
	a.MovedFrom = []string{"z"}
	require.NoError(t, w.Upsert(ctx, a))
	got, ok, err := ro.Get(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok, "a reader sees every committed write")
	assert.Equal(t, "a", got.ID)
	to, _, err := ro.MovedTo(ctx, "z")
	require.NoError(t, err)
	assert.Equal(t, "a", to)
	assert.Equal(t, []string{"a"}, ftsIDs(t, ro, "about"))
	require.NoError(t, ro.Warm(ctx))

	require.NoError(t, w.Delete(ctx, "a"))
	_, ok, err = ro.Get(ctx, "a")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	ctx := context.Background()
	_, path := openTest(t)
	ro, err := Open(ctx, path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	calls := map[string]func() error{
		"Upsert":  func() error { return ro.Upsert(ctx, note("a")) },
		"Delete":  func() error { return ro.Delete(ctx, "a") },
		"Rebuild": func() error { _, err := ro.Rebuild(ctx, records(note("a")), nil); return err },
		"Write":   func() error { return ro.Write(ctx, nil) },
	}
	for op, call := range calls {
		err := call()
		var e *envelope.Error
		require.ErrorAs(t, err, &e, op)
		assert.Equal(t, envelope.ReadOnly, e.Code, op)
		assert.Contains(t, e.Message, op+" refused")
		assert.NotEmpty(t, e.Hint)
	}
	_, err = ro.DB().Exec(`INSERT INTO moves VALUES ('x', 'y')`)
	assert.Error(t, err)
}

func TestReadOnlyNeedsCatalog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "catalog.db")
	_, err := Open(ctx, path, Options{ReadOnly: true})
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))
	assert.NoFileExists(t, path, "a read-only open creates nothing")
}
