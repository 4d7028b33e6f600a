// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// writeTree stores the trees the index describes and returns the root's.
// Directories whose tree is cached are not descended into.
func (r *Repo) writeTree(c *indexCache) (plumbing.Hash, error) {
	ents := make([]*index.Entry, 0, len(c.idx.Entries))
	for _, e := range c.idx.Entries {
		if e.Stage != 0 { // go-git's index.Merged is 1; git's normal stage is 0
			return plumbing.ZeroHash, fmt.Errorf("gitops: index has an unmerged entry %s; resolve the conflict with git first", e.Name)
		}
		if !e.IntentToAdd {
			ents = append(ents, e)
		}
	}
	// Entries are in bytewise order of full paths, which is git's tree
	// order: a directory "a" sorts as "a/", exactly as its entries do.
	b := treeBuilder{r: r, c: c, stack: r.treeStack[:0]}
	h, err := b.build(ents, 0)
	r.treeStack = b.stack
	return h, err
}

// treeBuilder encodes the trees of a sorted index bottom-up. Every level
// lists its items on one shared stack (a subtree pushes above its parent's
// items and pops back to them), and each tree is encoded into a slice of
// its exact size, which putObject keeps: a folder of 1,800 files is a
// 90 KB tree written on every commit into it, and growing a buffer, then
// cloning it, made trees a sixth of what a commit allocated. A large tree
// built before is spliced instead (treeEnc).
type treeBuilder struct {
	r     *Repo
	c     *indexCache
	stack []treeItem
}

type treeItem struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// build encodes the tree of ents, which share a directory prefix of
// length pre, bottom-up.
func (b *treeBuilder) build(ents []*index.Entry, pre int) (plumbing.Hash, error) {
	prefix := ""
	if len(ents) > 0 {
		prefix = ents[0].Name[:pre]
	}
	if h, ok := b.c.trees[prefix]; ok {
		return h, nil
	}
	var enc treeEnc
	var err error
	if old, ok := b.c.encs[prefix]; ok {
		enc, err = b.splice(ents, pre, old, b.c.dirty[prefix])
	} else {
		enc, err = b.encode(ents, pre)
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := b.r.putObject(plumbing.TreeObject, enc.data, prefix+"/")
	b.c.trees[prefix] = h
	b.c.keep(prefix, enc)
	return h, nil
}

// encode encodes the tree of ents item by item.
func (b *treeBuilder) encode(ents []*index.Entry, pre int) (treeEnc, error) {
	base := len(b.stack)
	defer func() { b.stack = b.stack[:base] }()
	for i := 0; i < len(ents); {
		name := ents[i].Name[pre:]
		dir, _, nested := strings.Cut(name, "/")
		if !nested {
			b.stack = append(b.stack, treeItem{name, ents[i].Mode, ents[i].Hash})
			i++
			continue
		}
		// The directory's entries are one sorted run: find its end by
		// binary search, not a walk over a folder of thousands of files
		// whose tree may even be cached.
		sub := dir + "/"
		j := i + sort.Search(len(ents)-i, func(k int) bool { return !strings.HasPrefix(ents[i+k].Name[pre:], sub) })
		h, err := b.build(ents[i:j], pre+len(dir)+1)
		if err != nil {
			return treeEnc{}, err
		}
		b.stack = append(b.stack, treeItem{dir, filemode.Dir, h})
		i = j
	}
	items := b.stack[base:]
	size := 0
	for _, it := range items {
		size += it.len()
	}
	enc := treeEnc{data: make([]byte, 0, size), at: make([]int32, 0, len(items))}
	for _, it := range items {
		enc.at = append(enc.at, int32(len(enc.data)))
		enc.data = it.append(enc.data)
	}
	return enc, nil
}

// len is the length of the item's encoding in a tree.
func (it treeItem) len() int { return len(octal(it.mode)) + 1 + len(it.name) + 1 + len(it.hash) }

// append appends the item's encoding: mode, name, hash.
func (it treeItem) append(data []byte) []byte {
	data = append(data, octal(it.mode)...)
	data = append(data, ' ')
	data = append(data, it.name...)
	data = append(data, 0)
	return append(data, it.hash[:]...)
}

// octal is a tree entry's mode as git writes it: octal, no leading zero.
func octal(m filemode.FileMode) string {
	switch m {
	case filemode.Regular:
		return "100644"
	case filemode.Dir:
		return "40000"
	}
	return strconv.FormatUint(uint64(m), 8)
}

// treeEnc is a tree's encoding and where each of its items starts in it.
// The encodings of large trees are kept between commits, with the items
// staged since (indexCache.dirty), and a rebuilt directory copies its
// unchanged items from the last encoding in runs, splicing in only the
// items that changed: a folder of 1,800 documents is a tree of 1,800
// items, and a write into it changes one or two.
type treeEnc struct {
	data []byte
	at   []int32
}

// minKept is the fewest items a tree needs for its encoding to be kept:
// a small tree encodes in less time than a splice looks its items up.
const minKept = 64

// maxDirty is how many changed items a kept encoding may owe; past it the
// tree is encoded whole again (a batch of many files).
const maxDirty = 64

// key is the sort key of item k: its name, followed by '/' for a
// directory, which is the order git keeps a tree's items in.
func (e treeEnc) key(k int) string {
	item := e.data[e.at[k]:]
	sp := bytes.IndexByte(item, ' ')
	nul := bytes.IndexByte(item, 0)
	if string(item[:sp]) == octal(filemode.Dir) {
		return string(item[sp+1:nul]) + "/"
	}
	return string(item[sp+1 : nul])
}

// end is where item k's encoding ends.
func (e treeEnc) end(k int) int32 {
	if k+1 < len(e.at) {
		return e.at[k+1]
	}
	return int32(len(e.data))
}

// splice is old with the items named in dirty (sort keys) as ents, which
// share a directory prefix of length pre, now have them: replaced,
// inserted or dropped. It sorts dirty.
func (b *treeBuilder) splice(ents []*index.Entry, pre int, old treeEnc, dirty []string) (treeEnc, error) {
	type change struct {
		at    int  // the old item it replaces, or the one it goes before
		found bool // old has an item under the key
		write bool // ents have one
		item  treeItem
	}
	slices.Sort(dirty)
	changes := make([]change, 0, len(dirty))
	size := len(old.data)
	for _, key := range dirty {
		k := sort.Search(len(old.at), func(k int) bool { return old.key(k) >= key })
		ch := change{at: k, found: k < len(old.at) && old.key(k) == key}
		var err error
		if ch.item, ch.write, err = b.itemOf(ents, pre, key); err != nil {
			return treeEnc{}, err
		}
		if ch.found {
			size -= int(old.end(k) - old.at[k])
		}
		if ch.write {
			size += ch.item.len()
		}
		changes = append(changes, ch)
	}
	enc := newTreeEnc(size, len(old.at)+len(changes))
	next := 0 // the first old item not copied or replaced yet
	copyTo := func(k int) {
		if k <= next {
			return
		}
		shift := int32(len(enc.data)) - old.at[next]
		enc.data = append(enc.data, old.data[old.at[next]:old.end(k-1)]...)
		for _, a := range old.at[next:k] {
			enc.at = append(enc.at, a+shift)
		}
		next = k
	}
	for _, ch := range changes {
		copyTo(ch.at)
		if ch.found {
			next = ch.at + 1
		}
		if ch.write {
			enc.at = append(enc.at, int32(len(enc.data)))
			enc.data = ch.item.append(enc.data)
		}
	}
	copyTo(len(old.at))
	return enc, nil
}

// itemOf is the item key names in the tree of ents (which share a prefix
// of length pre): a file's entry, or a directory with its tree built;
// false when ents have none.
func (b *treeBuilder) itemOf(ents []*index.Entry, pre int, key string) (treeItem, bool, error) {
	i := sort.Search(len(ents), func(i int) bool { return ents[i].Name[pre:] >= key })
	name, dir := strings.CutSuffix(key, "/")
	if !dir {
		if i == len(ents) || ents[i].Name[pre:] != key {
			return treeItem{}, false, nil
		}
		return treeItem{key, ents[i].Mode, ents[i].Hash}, true, nil
	}
	j := i + sort.Search(len(ents)-i, func(k int) bool { return !strings.HasPrefix(ents[i+k].Name[pre:], key) })
	if i == j {
		return treeItem{}, false, nil
	}
	h, err := b.build(ents[i:j], pre+len(key))
	return treeItem{name, filemode.Dir, h}, err == nil, err
}

// keep remembers enc as the encoding of the tree at prefix, with nothing
// changed since, when the tree is large enough to be spliced next time.
func (c *indexCache) keep(prefix string, enc treeEnc) {
	if len(enc.at) < minKept {
		delete(c.encs, prefix)
		delete(c.dirty, prefix)
		return
	}
	if c.encs == nil {
		c.encs, c.dirty = map[string]treeEnc{}, map[string][]string{}
	}
	if old, ok := c.encs[prefix]; ok {
		putTreeEnc(old)
	}
	c.encs[prefix] = enc
	c.dirty[prefix] = c.dirty[prefix][:0]
}

// treeEncs keeps the buffers of encodings a splice replaced, for the next
// splice: a folder of 2,000 files is a 100 KB tree spliced on every commit
// into it. An encoding the cache no longer keeps is free once its commit
// returned (its pack entry is compressed, and a delta base is a copy), and
// a commit that fails drops the whole cache (commitLocked).
var treeEncs = sync.Pool{New: func() any { return new(treeEnc) }}

// newTreeEnc returns an empty encoding with room for size bytes and n
// items, from treeEncs when a buffer there is large enough. A new buffer
// has an eighth more room: the folder a run of writes goes into grows by
// an item per commit.
func newTreeEnc(size, n int) treeEnc {
	enc := *treeEncs.Get().(*treeEnc)
	enc.data, enc.at = enc.data[:0], enc.at[:0]
	if cap(enc.data) < size {
		enc.data = make([]byte, 0, size+size/8)
	}
	if cap(enc.at) < n {
		enc.at = make([]int32, 0, n+n/8)
	}
	return enc
}

// putTreeEnc gives enc's buffers to treeEncs; its owner never reads it
// again.
func putTreeEnc(enc treeEnc) { treeEncs.Put(&enc) }

// touch notes that the item key (a sort key, see treeEnc.key) of the tree
// at prefix changed, when that tree's encoding is kept.
func (c *indexCache) touch(prefix, key string) {
	if _, ok := c.encs[prefix]; !ok {
		return
	}
	d := c.dirty[prefix]
	switch {
	case slices.Contains(d, key):
	case len(d) >= maxDirty:
		delete(c.encs, prefix)
		delete(c.dirty, prefix)
	default:
		c.dirty[prefix] = append(d, key)
	}
}
