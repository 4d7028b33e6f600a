// SPDX-License-Identifier: Apache-2.0

package reindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
)

// writeNotes writes n small node files under notes/ in a fresh forest.
func writeNotes(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
	for i := range n {
		id := fmt.Sprintf("notes/n%04d", i)
		body := fmt.Sprintf("---\nid: %s\ntype: note\ntitle: Note %d\nsummary: Note number %d.\n---\n\nBody %d.\n", id, i, i, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt), []byte(body), 0o644))
	}
	return dir
}

func TestParseAheadStopsWhenTheConsumerDoes(t *testing.T) {
	root, err := forest.NewRoot(writeNotes(t, 800))
	require.NoError(t, err)
	var files []walkedFile
	_, err = root.Walk(func(id, path string) error { files = append(files, walkedFile{id, path}); return nil })
	require.NoError(t, err)
	require.Len(t, files, 800)
	w := parser{
		record: func(n *forest.Node) catalog.Record { return catalog.Record{ID: n.ID} },
		fold:   func(n *forest.Node, _ catalog.Record) []byte { return []byte(n.Body) },
	}
	goroutines := runtime.NumGoroutine()
	seen := 0
	for i, p := range parseAhead(context.Background(), files, w) {
		require.Equal(t, seen, i)
		require.NoError(t, p.err)
		require.Equal(t, files[i].id, p.rec.ID)
		if seen++; seen == 100 {
			break
		}
	}
	assert.Equal(t, 100, seen)
	assert.True(t, settles(goroutines), "workers and feeder end with the loop")

	var none []walkedFile
	for range parseAhead(context.Background(), none, w) {
		t.Fatal("nothing to parse yields nothing")
	}
}

// settles waits up to five seconds for the goroutine count to fall back
// to n. It polls on the test's own goroutine: assert.Eventually would
// count its own.
func settles(n int) bool {
	for range 500 {
		if runtime.NumGoroutine() <= n {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
