// SPDX-License-Identifier: Apache-2.0

package gitops

import "github.com/go-git/go-git/v5/plumbing"

// Prehashed holds the git blob hashes of files a writer is about to
// commit, computed on another goroutine while it writes them (Prehash).
// A commit into a large folder hashes the folder's index whole (450 KB
// after 2,000 documents, about 0.3 ms), work the writer's own file writes
// can cover instead of preceding.
type Prehashed struct {
	data map[string][]byte
	sums *ahead[map[string]plumbing.Hash]
}

// Prehash starts hashing, as git blobs, the files of written (a path and
// the bytes written to it, as [Options.Written]) of at least 32 KiB, and
// returns them for [Options.Prehashed]; nil when none is that large:
// handing a small file to another goroutine costs more than hashing it.
// The bytes must not change until Commit or Wait has returned.
func Prehash(written map[string][]byte) *Prehashed {
	data := map[string][]byte{}
	for path, b := range written {
		if len(b) >= aheadMin {
			data[path] = b
		}
	}
	if len(data) == 0 {
		return nil
	}
	return &Prehashed{data: data, sums: goAhead(func() map[string]plumbing.Hash {
		sums := make(map[string]plumbing.Hash, len(data))
		for path, b := range data {
			sums[path] = plumbing.ComputeHash(plumbing.BlobObject, b)
		}
		return sums
	})}
}

// Wait returns once the hashing is done: a writer that does not reach
// Commit calls it before it reuses the bytes. Commit waits on its own.
func (p *Prehashed) Wait() {
	if p != nil {
		p.sums.wait()
	}
}

// sum returns the blob hash of data, the bytes at path, when they are the
// very bytes Prehash was given.
func (p *Prehashed) sum(path string, data []byte) (plumbing.Hash, bool) {
	if p == nil {
		return plumbing.ZeroHash, false
	}
	sums := p.sums.wait()
	had, ok := p.data[path]
	if !ok || len(had) != len(data) || len(data) == 0 || &had[0] != &data[0] {
		return plumbing.ZeroHash, false
	}
	return sums[path], true
}
