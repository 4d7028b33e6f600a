// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEntriesAheadAreTheEntries: the pack entries made on another
// goroutine are byte for byte those writeCommitPack makes itself, for a
// first version (whole), versions stored as deltas, and a version whose
// delta no longer fits (whole again); small blobs are left to the commit.
func TestEntriesAheadAreTheEntries(t *testing.T) {
	_, r := newForest(t)
	r.zw, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed) // as writeCommitPack sets it up
	tests := []struct {
		entries int // of the folder's index
		whole   bool
	}{{600, true}, {601, false}, {640, false}, {5000, true}}
	for i, tt := range tests {
		n := tt.entries
		text := indexText(n)
		r.mu.Lock()
		r.batch = []newObject{
			{hash: plumbing.ComputeHash(plumbing.BlobObject, []byte(text)), typ: plumbing.BlobObject, data: []byte(text), key: "g/_index.md"},
			{hash: plumbing.ComputeHash(plumbing.BlobObject, []byte("small\n")), typ: plumbing.BlobObject, data: []byte("small\n"), key: "g/page.md"},
		}
		made := r.startEntries()
		require.NotNil(t, made)
		got, ok, err := made.wait().entry(r.batch[0])
		require.NoError(t, err)
		require.True(t, ok, "version %d: the index was made ahead", i)
		_, ok, err = made.wait().entry(r.batch[1])
		require.NoError(t, err)
		assert.False(t, ok, "a small blob is the commit's")
		want, err := r.pend.entry(r.batch[0], r.zw)
		require.NoError(t, err)
		assert.Equal(t, want, got, "version %d", i)
		assert.Equal(t, tt.whole, got.base.IsZero(), "version %d stored whole", i)
		require.NoError(t, r.writeCommitPack(nil)) // the version joins the round: later ones are deltas against it
		r.mu.Unlock()
	}
}
