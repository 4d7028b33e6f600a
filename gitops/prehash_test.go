// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrehashedBlobs: a hash computed ahead is used only for the very
// bytes it was computed from; any other bytes at the path are hashed in
// Commit, and what lands is always what the file holds.
func TestPrehashedBlobs(t *testing.T) {
	big := indexText(600) // above aheadMin
	require.GreaterOrEqual(t, len(big), aheadMin)
	tests := []struct {
		name    string
		file    string                     // what the worktree file holds
		written func(hashed []byte) []byte // Options.Written's bytes, given Prehash's
		want    string                     // the committed blob
	}{
		{"the bytes hashed ahead", big, func(h []byte) []byte { return h }, big},
		{"equal bytes in another slice", big, func(h []byte) []byte { return []byte(string(h)) }, big},
		{"a file of another size is read back", big + "tail\n", func(h []byte) []byte { return h }, big + "tail\n"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, r := newForest(t)
			writeFile(t, dir, "g/_index.md", tt.file)
			hashed := []byte(big)
			pre := Prehash(map[string][]byte{"g/_index.md": hashed})
			require.NotNil(t, pre)
			opt := at(i + 1)
			opt.Written, opt.Prehashed = map[string][]byte{"g/_index.md": tt.written(hashed)}, pre
			_, err := r.Commit(context.Background(), Message{Subject: "plant(g): index"}, []string{"g/_index.md"}, nil, opt)
			require.NoError(t, err)
			assert.Equal(t, tt.want, gitCmd(t, dir, "show", "HEAD:g/_index.md"))
			assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
			assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"), "the worktree file is clean to git")
		})
	}
}

// TestPrehashedSumIsUsed: Commit takes the hash handed to it for the very
// slice it was computed from instead of hashing again. A planted wrong sum
// shows it: the index points at it.
func TestPrehashedSumIsUsed(t *testing.T) {
	dir, r := newForest(t)
	data := []byte(indexText(600))
	writeFile(t, dir, "g/_index.md", string(data))
	wrong := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	pre := &Prehashed{data: map[string][]byte{"g/_index.md": data},
		sums: goAhead(func() map[string]plumbing.Hash { return map[string]plumbing.Hash{"g/_index.md": wrong} })}
	c, err := r.loadIndex()
	require.NoError(t, err)
	require.NoError(t, r.stage(c, "g/_index.md", data, pre))
	assert.Equal(t, wrong, c.entry("g/_index.md").Hash)
	require.NoError(t, r.stage(c, "g/_index.md", []byte(string(data)), pre))
	assert.Equal(t, plumbing.ComputeHash(plumbing.BlobObject, data), c.entry("g/_index.md").Hash,
		"other bytes are hashed")
}

func TestPrehashSkipsSmallFiles(t *testing.T) {
	for _, n := range []int{0, 1, aheadMin - 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			pre := Prehash(map[string][]byte{"a.md": make([]byte, n)})
			assert.Nil(t, pre)
			pre.Wait() // a nil Prehashed waits for nothing
			_, ok := pre.sum("a.md", make([]byte, n))
			assert.False(t, ok)
		})
	}
}
