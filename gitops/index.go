// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// indexCache keeps the index this Repo last wrote, decoded, with the tree
// hash of every directory in it. A commit then re-hashes only the
// directories on the paths it stages instead of decoding thousands of
// entries and re-hashing every tree: the cost of a commit stays flat as the
// forest grows. The cache is trusted only while the index file is the very
// file this Repo renamed into place (same inode, size and mtime); git
// replaces the index by renaming too, so any outside write shows.
type indexCache struct {
	idx   *index.Index
	file  os.FileInfo
	trees map[string]plumbing.Hash // directory prefix ("" = root, "a/b/") -> tree
	head  plumbing.Hash            // the commit this Repo last made, and its tree
	tree  plumbing.Hash
}

// loadIndex returns the index to stage into, from the cache when it is
// still the file on disk.
func (r *Repo) loadIndex() (*indexCache, error) {
	fi, err := os.Stat(r.indexFile())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("gitops: stat index: %w", err)
	}
	if c := r.cache; c != nil && fi != nil && os.SameFile(fi, c.file) &&
		fi.Size() == c.file.Size() && fi.ModTime().Equal(c.file.ModTime()) {
		return c, nil
	}
	r.cache = nil
	idx, err := r.st.Index()
	if err != nil {
		return nil, fmt.Errorf("gitops: read index: %w", err)
	}
	sortEntries(idx)
	return &indexCache{idx: idx, trees: map[string]plumbing.Hash{}}, nil
}

// indexFile is the index's path on disk: the index belongs to the
// worktree's own git directory even when objects and refs are shared.
func (r *Repo) indexFile() string { return filepath.Join(r.dot.Root(), "index") }

// invalidate forgets the trees of every directory above p.
func (c *indexCache) invalidate(p string) {
	delete(c.trees, "")
	for i := range len(p) {
		if p[i] == '/' {
			delete(c.trees, p[:i+1])
		}
	}
}

// sortEntries puts entries in index order: by name, then stage.
func sortEntries(idx *index.Index) {
	slices.SortFunc(idx.Entries, func(a, b *index.Entry) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return int(a.Stage) - int(b.Stage)
	})
}

// encodeIndex renders idx as a version 2 index file (version 3 when an
// entry carries extended flags), entries already sorted. go-git's encoder
// issues a write per field, which costs more than the rest of a commit.
// Extensions are not written: a cached tree (TREE) would be stale after
// staging, and git rebuilds what it needs.
func encodeIndex(idx *index.Index) []byte { return appendIndex(nil, idx) }

// appendIndex is encodeIndex appending to buf, so a Repo can render every
// commit's index into one buffer: the index lists every file, and a fresh
// 200 KB slice per commit was garbage the collector had to clear.
func appendIndex(buf []byte, idx *index.Index) []byte {
	version := uint32(2)
	for _, e := range idx.Entries {
		if e.IntentToAdd || e.SkipWorktree {
			version = 3
		}
	}
	be := binary.BigEndian
	buf = slices.Grow(buf, 12+len(idx.Entries)*(72+48)+sha1.Size)
	start0 := len(buf)
	buf = append(buf, "DIRC"...)
	buf = be.AppendUint32(buf, version)
	buf = be.AppendUint32(buf, uint32(len(idx.Entries)))
	for _, e := range idx.Entries {
		start := len(buf)
		cs, cn := stamp(e.CreatedAt)
		ms, mn := stamp(e.ModifiedAt)
		for _, v := range []uint32{cs, cn, ms, mn, e.Dev, e.Inode, uint32(e.Mode), e.UID, e.GID, e.Size} {
			buf = be.AppendUint32(buf, v)
		}
		buf = append(buf, e.Hash[:]...)
		flags := uint16(e.Stage&3)<<12 | uint16(min(len(e.Name), 0xFFF))
		extended := e.IntentToAdd || e.SkipWorktree
		if extended {
			flags |= 0x4000
		}
		buf = be.AppendUint16(buf, flags)
		if extended {
			var x uint16
			if e.SkipWorktree {
				x |= 0x4000
			}
			if e.IntentToAdd {
				x |= 0x2000
			}
			buf = be.AppendUint16(buf, x)
		}
		buf = append(buf, e.Name...)
		// NUL-terminated and padded to a multiple of eight: 1 to 8 NULs.
		pad := 8 - (len(buf)-start)%8
		buf = append(buf, make([]byte, pad)...)
	}
	sum := sha1.Sum(buf[start0:])
	return append(buf, sum[:]...)
}

// stamp is an index timestamp: seconds and nanoseconds, zero for the zero
// time and before 1970.
func stamp(t time.Time) (uint32, uint32) {
	if t.IsZero() || t.Unix() < 0 {
		return 0, 0
	}
	return uint32(t.Unix()), uint32(t.Nanosecond())
}
