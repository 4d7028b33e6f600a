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
	// encs keeps the encodings of large trees by directory prefix, and
	// dirty the sort keys of their items staged or removed since (tree.go).
	encs  map[string]treeEnc
	dirty map[string][]string
	head  plumbing.Hash // the commit this Repo last made, and its tree
	tree  plumbing.Hash
	// enc is where each entry starts in the index file this Repo last
	// wrote (Repo.indexBufs[0]), noEnc for an entry changed since; nil
	// until this cache has been written once. Encoding copies the runs of
	// unchanged entries instead of rendering them: a commit changes two or
	// three entries of thousands.
	enc []uint32
}

// noEnc marks an entry without an encoding to copy.
const noEnc = ^uint32(0)

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

// invalidate forgets the trees of every directory above p, and notes in
// each the item on the way to p as changed (touch).
func (c *indexCache) invalidate(p string) {
	dir := 0 // length of the prefix of the directory the next item is in
	for {
		prefix, key := p[:dir], p[dir:]
		delete(c.trees, prefix)
		j := strings.IndexByte(key, '/')
		if j >= 0 {
			key = key[:j+1]
		}
		c.touch(prefix, key)
		if j < 0 {
			return
		}
		dir += j + 1
	}
}

// find is the position of the first entry named p in sorted entries (any
// stage), or where one named p would go.
func find(ents []*index.Entry, p string) (int, bool) {
	return slices.BinarySearchFunc(ents, p, func(e *index.Entry, p string) int { return strings.Compare(e.Name, p) })
}

// remove drops the first entry named p, as go-git's Index.Remove does,
// keeping the entries sorted.
func (c *indexCache) remove(p string) {
	if i, ok := find(c.idx.Entries, p); ok {
		c.idx.Entries = slices.Delete(c.idx.Entries, i, i+1)
		if c.enc != nil {
			c.enc = slices.Delete(c.enc, i, i+1)
		}
	}
	c.invalidate(p)
}

// entry returns the first entry named p for the caller to fill in,
// inserting a new one in order when there is none, so the entries stay
// sorted without a sort per commit.
func (c *indexCache) entry(p string) *index.Entry {
	i, ok := find(c.idx.Entries, p)
	switch {
	case !ok:
		c.idx.Entries = slices.Insert(c.idx.Entries, i, &index.Entry{Name: p})
		if c.enc != nil {
			c.enc = slices.Insert(c.enc, i, noEnc)
		}
	case c.enc != nil:
		c.enc[i] = noEnc
	}
	c.invalidate(p)
	return c.idx.Entries[i]
}

// holds reports whether the index has an entry named p for the blob h.
func (c *indexCache) holds(p string, h plumbing.Hash) bool {
	i, ok := find(c.idx.Entries, p)
	return ok && c.idx.Entries[i].Hash == h
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
func encodeIndex(idx *index.Index) []byte {
	buf, _ := appendIndex(nil, idx, nil, nil)
	return buf
}

// appendIndex is encodeIndex appending to buf, so a Repo can render every
// commit's index into a buffer it reuses: the index lists every file, and
// a fresh 200 KB slice per commit was garbage the collector had to clear.
// enc, when not nil, says where each entry starts in prev, the index file
// the entries were last written to (see indexCache.enc); prev must not
// share memory with buf. appendIndex rewrites enc to say where each entry
// starts in the returned buffer, or allocates one when enc is nil.
func appendIndex(buf []byte, idx *index.Index, prev []byte, enc []uint32) ([]byte, []uint32) {
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
	if enc == nil {
		enc = make([]uint32, len(idx.Entries), len(idx.Entries)+len(idx.Entries)/16+4)
		for i := range enc {
			enc[i] = noEnc
		}
	}
	// Unchanged entries that were neighbours in prev are copied as one run.
	run, runEnd := 0, 0
	for i, e := range idx.Entries {
		at := uint32(len(buf) - start0 + runEnd - run)
		if old := enc[i]; old != noEnc && int(old) == runEnd {
			runEnd += entryLen(e)
		} else if old != noEnc {
			buf = append(buf, prev[run:runEnd]...)
			run, runEnd = int(old), int(old)+entryLen(e)
		} else {
			buf = append(buf, prev[run:runEnd]...)
			run, runEnd = 0, 0
			buf = appendEntry(buf, e)
		}
		enc[i] = at
	}
	buf = append(buf, prev[run:runEnd]...)
	sum := sha1.Sum(buf[start0:])
	return append(buf, sum[:]...), enc
}

// entryLen is the length of e's encoding by appendEntry.
func entryLen(e *index.Entry) int {
	n := 62 + len(e.Name)
	if e.IntentToAdd || e.SkipWorktree {
		n += 2
	}
	return n + 8 - n%8
}

// appendEntry appends e as an index entry: stat data, hash, flags, and
// the NUL-padded name.
func appendEntry(buf []byte, e *index.Entry) []byte {
	be := binary.BigEndian
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
	return append(buf, make([]byte, pad)...)
}

// stamp is an index timestamp: seconds and nanoseconds, zero for the zero
// time and before 1970.
func stamp(t time.Time) (uint32, uint32) {
	if t.IsZero() || t.Unix() < 0 {
		return 0, 0
	}
	return uint32(t.Unix()), uint32(t.Nanosecond())
}
