// SPDX-License-Identifier: Apache-2.0

package gitops

import "github.com/go-git/go-git/v5/plumbing"

// Prehashed holds the git blob hashes of files a writer is about to
// commit, computed on another goroutine while it writes them (Prehash).
// A commit into a large folder hashes the folder's index whole (450 KB
// after 2,000 documents, about 0.3 ms), work the writer's own file writes
// can cover instead of preceding.
type Prehashed struct {
	done chan struct{}
	data map[string][]byte
	sums map[string]plumbing.Hash
}

// prehashMin is the size below which Commit hashes a file itself: handing
// a small file to another goroutine costs more than hashing it.
const prehashMin = 32 << 10

// Prehash starts hashing, as git blobs, the files of written (a path and
// the bytes written to it, as [Options.Written]) of at least 32 KiB, and
// returns them for [Options.Prehashed]; nil when none is that large. The
// bytes must not change until Commit or Wait has returned.
func Prehash(written map[string][]byte) *Prehashed {
	var p *Prehashed
	for path, data := range written {
		if len(data) < prehashMin {
			continue
		}
		if p == nil {
			p = &Prehashed{done: make(chan struct{}), data: map[string][]byte{}, sums: map[string]plumbing.Hash{}}
		}
		p.data[path] = data
	}
	if p == nil {
		return nil
	}
	go func() {
		defer close(p.done)
		for path, data := range p.data {
			p.sums[path] = plumbing.ComputeHash(plumbing.BlobObject, data)
		}
	}()
	return p
}

// Wait returns once the hashing is done: a writer that does not reach
// Commit calls it before it reuses the bytes. Commit waits on its own.
func (p *Prehashed) Wait() {
	if p != nil {
		<-p.done
	}
}

// sum returns the blob hash of data, the bytes at path, when they are the
// very bytes Prehash was given.
func (p *Prehashed) sum(path string, data []byte) (plumbing.Hash, bool) {
	if p == nil {
		return plumbing.ZeroHash, false
	}
	p.Wait()
	had, ok := p.data[path]
	if !ok || len(had) != len(data) || len(data) == 0 || &had[0] != &data[0] {
		return plumbing.ZeroHash, false
	}
	return p.sums[path], true
}
