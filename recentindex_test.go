// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// plantOperation plants operations/<name>.
func plantOperation(t *testing.T, v *Vine, name string) {
	t.Helper()
	plantNote(t, v, "operations/"+name, "operations/_index", "A note called "+name+" for the remembered index tests.",
		"Body of "+name+".")
}

// remembered reports whether v would take operations/_index from memory.
func remembered(t *testing.T, v *Vine) bool {
	t.Helper()
	path, err := v.root.TrustedPath("operations/_index")
	require.NoError(t, err)
	_, ok := v.recent.node(v.generation(context.Background()), "operations/_index", path)
	return ok
}

// TestRecentIndexesStandOnlyForTheFileTheyDescribe: an index a plant
// wrote is taken from memory by the next plant into the folder, and not
// once anything else changed the file or the forest — an edit in place,
// a file replaced with the same size and time, another handle's write —
// so that change is never lost.
func TestRecentIndexesStandOnlyForTheFileTheyDescribe(t *testing.T) {
	edits := []struct {
		name   string
		change func(t *testing.T, v *Vine, dir string) string // returns a line the index must keep
	}{
		{"edited in place", func(t *testing.T, _ *Vine, dir string) string {
			return editIndex(t, dir, false)
		}},
		{"replaced with the same size and time", func(t *testing.T, _ *Vine, dir string) string {
			return editIndex(t, dir, true)
		}},
		{"written by another handle", func(t *testing.T, _ *Vine, dir string) string {
			other := openT(t, dir, &Options{Now: plantClock})
			plantOperation(t, other, "from-elsewhere")
			return "[[operations/from-elsewhere]]"
		}},
		{"another handle wrote elsewhere", func(t *testing.T, _ *Vine, dir string) string {
			other := openT(t, dir, &Options{Now: plantClock})
			plantNote(t, other, "projects/elsewhere", "projects/_index", "A note in another folder.", "Elsewhere.")
			return "[[operations/first]]" // the file is as this handle left it, but nothing proves that
		}},
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			v, dir := writableFixture(t)
			plantOperation(t, v, "first")
			require.True(t, remembered(t, v), "the index a plant wrote is remembered")
			plantOperation(t, v, "second")
			require.True(t, remembered(t, v), "and taken from memory by the next plant")

			keep := tc.change(t, v, dir)
			assert.False(t, remembered(t, v), "a changed file or forest is read again")
			plantOperation(t, v, "third")

			data, err := os.ReadFile(filepath.Join(dir, "operations", "_index.md"))
			require.NoError(t, err)
			idx, err := forest.Parse("operations/_index", data)
			require.NoError(t, err)
			assert.Contains(t, idx.Body, keep, "the change survives the next plant")
			for _, id := range []string{"operations/first", "operations/second", "operations/third"} {
				assert.Contains(t, forest.EntryIDs(idx.Body, forest.SectionDirect), id)
			}
			assert.True(t, remembered(t, v))
		})
	}
}

// editIndex changes the summary of one entry of operations/_index to a
// text of the same length, in place or by replacing the file, and gives
// the file back its old modification time when same is set. It returns
// the new entry text.
func editIndex(t *testing.T, dir string, replace bool) string {
	t.Helper()
	path := filepath.Join(dir, "operations", "_index.md")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	const from, to = "A note called first", "A NOTE CALLED FIRST"
	require.Contains(t, string(data), from)
	edited := []byte(strings.Replace(string(data), from, to, 1))
	if replace {
		tmp := path + ".tmp"
		require.NoError(t, os.WriteFile(tmp, edited, 0o644))
		require.NoError(t, os.Rename(tmp, path))
		require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	} else {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteAt(edited, 0)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		// An editor's write lands a clock tick or more after ours.
		later := fi.ModTime().Add(10 * time.Millisecond)
		require.NoError(t, os.Chtimes(path, later, later))
	}
	return to
}

// TestRecentIndexBytesOutliveTheirWrites: the remembered bytes of an index
// restore it when a later write fails, byte for byte, and the buffers that
// writes render into and give back never change a file or a commit after
// the fact: after a run of plants, some refused at commit, every commit
// holds exactly the index the worktree had when it was made.
func TestRecentIndexBytesOutliveTheirWrites(t *testing.T) {
	v, dir := writableFixture(t)
	path := filepath.Join(dir, "operations", "_index.md")
	lock := filepath.Join(dir, ".git", "index.lock")
	var commits []string
	var versions [][]byte
	for i := range 12 {
		if i%4 == 3 {
			require.True(t, remembered(t, v) || i == 3, "plant %d starts from memory", i)
			before := testforest.TreeDigest(t, dir)
			require.NoError(t, os.WriteFile(lock, nil, 0o644))
			_, err := v.Plant(context.Background(), NodeSpec{ID: fmt.Sprintf("operations/refused-%d", i), Type: "note",
				Title: "Refused", Summary: "A note whose commit is refused.", Parent: "operations/_index"}, PlantOptions{})
			require.Error(t, err)
			require.NoError(t, os.Remove(lock))
			require.Equal(t, before, testforest.TreeDigest(t, dir), "plant %d: the index is restored", i)
			continue
		}
		plantOperation(t, v, fmt.Sprintf("n%02d", i))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		head, err := v.repo.Head()
		require.NoError(t, err)
		commits, versions = append(commits, head), append(versions, data)
	}
	for i, sha := range commits {
		got, ok, err := v.repo.FileAt(sha, "operations/_index.md")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, string(versions[i]), string(got), "commit %d", i)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	idx, err := forest.Parse("operations/_index", data)
	require.NoError(t, err)
	assert.NotContains(t, idx.Body, "refused")
}
