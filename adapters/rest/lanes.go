// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monkeyllm/vine"
)

// lanes are where calls run (spec 08 §8): per forest, one writer — the
// served Registry's instance, behind a mutex, so writes, ingest steps and
// reindex take turns — and a pool of read-only instances that reads go
// to round-robin, one call per instance at a time. A write never blocks
// a read, and a writer lock held by another process stops writes only.
//
// The pool is reachable only through withReader and withWriter.
type lanes struct {
	reg  *vine.Registry
	open func() (*vine.Registry, error) // nil: single lane
	k    int

	mu      sync.Mutex
	readers map[string]*readerSet
	writers map[string]*sync.Mutex
	closed  bool

	inUse  atomic.Int64                       // read-only instances running a call now
	waited func(lane string, d time.Duration) // set before serving; nil: nobody asks
}

// wait reports how long a call waited for its lane ("read" or "write").
func (l *lanes) wait(lane string, since time.Time) {
	if l.waited != nil {
		l.waited(lane, time.Since(since))
	}
}

// readerSet is one forest's pool.
type readerSet struct {
	next  atomic.Uint64
	slots []readerSlot
}

// readerSlot is one read-only instance, opened on first use and after a
// reset. Its registry holds only this forest, so resetting one forest
// closes nothing of another.
type readerSlot struct {
	mu  sync.Mutex
	reg *vine.Registry
}

func newLanes(reg *vine.Registry, open func() (*vine.Registry, error), k int) *lanes {
	return &lanes{reg: reg, open: open, k: k, readers: map[string]*readerSet{}, writers: map[string]*sync.Mutex{}}
}

// errClosed answers calls that arrive after Close.
var errClosed = errors.New("rest: server closed")

// openError marks a failure to open the forest, as opposed to a failure
// of the call, so the handler can answer it as the forest's refusal.
type openError struct{ err error }

func (e openError) Error() string { return e.err.Error() }
func (e openError) Unwrap() error { return e.err }

// size is the pool size per forest, 0 on the single lane.
func (l *lanes) size() int {
	if l.open == nil {
		return 0
	}
	return l.k
}

// withReader runs fn on a read-only instance of forest id: a free one if
// any, else the next in turn, waited for. On the single lane it runs on
// the served instance.
func (l *lanes) withReader(ctx context.Context, id string, fn func(*vine.Vine) error) error {
	if l.open == nil {
		v, err := l.reg.Forest(ctx, id)
		if err != nil {
			return openError{err}
		}
		return fn(v)
	}
	set, err := l.set(id)
	if err != nil {
		return err
	}
	since := time.Now()
	slot := set.take()
	l.wait("read", since)
	l.inUse.Add(1)
	err = l.onSlot(ctx, slot, id, fn)
	l.inUse.Add(-1)
	if oe := (openError{}); errors.As(err, &oe) && vine.CodeOf(oe.err) == vine.ENotFound {
		// No such forest: keep no pool for a name a caller made up.
		l.forget(id, set)
	}
	return err
}

// onSlot runs fn on the slot's instance of forest id, opening it if need
// be, and releases the slot.
func (l *lanes) onSlot(ctx context.Context, slot *readerSlot, id string, fn func(*vine.Vine) error) error {
	defer slot.mu.Unlock()
	if slot.reg == nil {
		reg, err := l.open()
		if err != nil {
			return openError{err}
		}
		slot.reg = reg
	}
	v, err := slot.reg.Forest(ctx, id)
	if err != nil {
		return openError{err}
	}
	return fn(v)
}

// forget drops the pool of a forest that turned out not to exist.
func (l *lanes) forget(id string, set *readerSet) {
	l.mu.Lock()
	if l.readers[id] == set {
		delete(l.readers, id)
	}
	l.mu.Unlock()
	set.close()
}

// take locks and returns a slot: the first free one from the next in
// turn, else the next in turn once it is free.
func (rs *readerSet) take() *readerSlot {
	n := uint64(len(rs.slots))
	start := rs.next.Add(1)
	for i := range n {
		s := &rs.slots[(start+i)%n]
		if s.mu.TryLock() {
			return s
		}
	}
	s := &rs.slots[start%n]
	s.mu.Lock()
	return s
}

func (l *lanes) set(id string) (*readerSet, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errClosed
	}
	rs, ok := l.readers[id]
	if !ok {
		rs = &readerSet{slots: make([]readerSlot, l.k)}
		l.readers[id] = rs
	}
	return rs, nil
}

// withWriter runs fn on the forest's writable instance, one task at a
// time per forest.
func (l *lanes) withWriter(ctx context.Context, id string, fn func(*vine.Vine) error) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errClosed
	}
	mu, ok := l.writers[id]
	if !ok {
		mu = &sync.Mutex{}
		l.writers[id] = mu
	}
	l.mu.Unlock()
	since := time.Now()
	mu.Lock()
	defer mu.Unlock()
	l.wait("write", since)
	v, err := l.reg.Forest(ctx, id)
	if err != nil {
		return openError{err}
	}
	return fn(v)
}

// reset closes the forest's read-only instances, waiting for the calls
// on them; they reopen on next use and see the catalog as it now is.
func (l *lanes) reset(id string) error {
	l.mu.Lock()
	rs := l.readers[id]
	l.mu.Unlock()
	if rs == nil {
		return nil
	}
	return rs.close()
}

func (rs *readerSet) close() error {
	var errs []error
	for i := range rs.slots {
		s := &rs.slots[i]
		s.mu.Lock()
		if s.reg != nil {
			errs = append(errs, s.reg.Close())
			s.reg = nil
		}
		s.mu.Unlock()
	}
	return errors.Join(errs...)
}

// opened counts the forest's read-only instances open now.
func (l *lanes) opened(id string) int {
	l.mu.Lock()
	rs := l.readers[id]
	l.mu.Unlock()
	if rs == nil {
		return 0
	}
	n := 0
	for i := range rs.slots {
		s := &rs.slots[i]
		s.mu.Lock()
		if s.reg != nil {
			n++
		}
		s.mu.Unlock()
	}
	return n
}

// close refuses new calls and closes every read-only instance.
func (l *lanes) close() error {
	l.mu.Lock()
	l.closed = true
	sets := make([]*readerSet, 0, len(l.readers))
	for _, rs := range l.readers {
		sets = append(sets, rs)
	}
	l.mu.Unlock()
	var errs []error
	for _, rs := range sets {
		errs = append(errs, rs.close())
	}
	return errors.Join(errs...)
}
