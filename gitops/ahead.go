// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// entriesAhead are the pack entries of a commit's large blobs, made on
// another goroutine (startEntries) while the commit's trees and commit
// object are written.
type entriesAhead struct {
	done chan struct{}
	ents map[plumbing.Hash]pendingObject
	err  error
}

// startEntries makes the pack entries (pending.entry) of the blobs of
// r.batch of at least prehashMin bytes on another goroutine: a folder's
// index is diffed against its base and compressed, about a quarter of a
// millisecond at 2,000 entries, and nothing else the commit writes before
// its pack depends on that. nil when there is no such blob. The goroutine
// reads r.pend and uses r.zwAhead: until wait returns, neither may change.
func (r *Repo) startEntries() *entriesAhead {
	var big []newObject
	for _, o := range r.batch {
		if o.typ == plumbing.BlobObject && len(o.data) >= prehashMin {
			big = append(big, o)
		}
	}
	if len(big) == 0 {
		return nil
	}
	if r.zwAhead == nil {
		r.zwAhead, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed)
	}
	a := &entriesAhead{done: make(chan struct{}), ents: make(map[plumbing.Hash]pendingObject, len(big))}
	go func() {
		defer close(a.done)
		for _, o := range big {
			e, err := r.pend.entry(o, r.zwAhead)
			if err != nil {
				a.err = err
				return
			}
			a.ents[o.hash] = e
		}
	}()
	return a
}

// wait returns once the entries are made; a nil entriesAhead waits for
// nothing.
func (a *entriesAhead) wait() {
	if a != nil {
		<-a.done
	}
}

// entry returns the entry of o made ahead, if it was.
func (a *entriesAhead) entry(o newObject) (pendingObject, bool, error) {
	if a == nil {
		return pendingObject{}, false, nil
	}
	a.wait()
	if a.err != nil {
		return pendingObject{}, false, a.err
	}
	e, ok := a.ents[o.hash]
	return e, ok, nil
}
