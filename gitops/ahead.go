// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// aheadMin is the size from which a blob's work is done on another
// goroutine (Prehash, startEntries): below it, handing the work over
// costs more than doing it.
const aheadMin = 32 << 10

// ahead is a result computed on another goroutine while the caller goes
// on. The goroutine owns whatever it reads or writes until wait returns.
type ahead[T any] struct {
	done chan struct{}
	v    T
}

// goAhead runs f on another goroutine.
func goAhead[T any](f func() T) *ahead[T] {
	a := &ahead[T]{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.v = f()
	}()
	return a
}

// wait returns f's result once it is done; it may be called again. A nil
// ahead waits for nothing and returns the zero T.
func (a *ahead[T]) wait() T {
	if a == nil {
		var zero T
		return zero
	}
	<-a.done
	return a.v
}

// entriesMade are pack entries made ahead, by object hash (startEntries).
type entriesMade struct {
	ents map[plumbing.Hash]pendingObject
	err  error
}

// entry returns the entry of o made ahead, if it was.
func (m entriesMade) entry(o newObject) (pendingObject, bool, error) {
	if m.err != nil {
		return pendingObject{}, false, m.err
	}
	e, ok := m.ents[o.hash]
	return e, ok, nil
}

// startEntries makes the pack entries (pending.entry) of the blobs of
// r.batch of at least aheadMin bytes on another goroutine: a folder's
// index is diffed against its base and compressed, about a quarter of a
// millisecond at 2,000 entries, and nothing else the commit writes before
// its pack depends on that. nil when there is no such blob. The goroutine
// reads r.pend and uses r.zwAhead: until wait returns, neither may change.
func (r *Repo) startEntries() *ahead[entriesMade] {
	var big []newObject
	for _, o := range r.batch {
		if o.typ == plumbing.BlobObject && len(o.data) >= aheadMin {
			big = append(big, o)
		}
	}
	if len(big) == 0 {
		return nil
	}
	if r.zwAhead == nil {
		r.zwAhead, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed)
	}
	return goAhead(func() entriesMade {
		m := entriesMade{ents: make(map[plumbing.Hash]pendingObject, len(big))}
		for _, o := range big {
			e, err := r.pend.entry(o, r.zwAhead)
			if err != nil {
				return entriesMade{err: err}
			}
			m.ents[o.hash] = e
		}
		return m
	})
}
