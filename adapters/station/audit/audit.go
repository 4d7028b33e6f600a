// SPDX-License-Identifier: Apache-2.0

// Package audit keeps the Station's audit trail (spec 09 §9): the audit
// table in the host registry file, a [Log] that records one row per call
// without ever failing or slowing the act, and the query the admin route
// serves.
//
// The registry opens the SQLite file; this package owns one table in it
// and migrates it itself:
//
//	log, err := audit.New(ctx, reg.DB(), &audit.Options{RetainDays: 90})
//	rest.New(forests, &rest.Options{Recorder: log})  // and mcp.Options.Recorder
//	defer log.Close()                                 // drains what is queued
//	page, err := log.Query(ctx, audit.Scope{Forests: administered}, filter)
//
// # Writing
//
// Record hands the row to a bounded queue and returns; one writer
// goroutine takes the rows off it in batches, one transaction per batch.
// When the queue is full (the file is locked by a long transaction, the
// disk is slow) the row is dropped and counted, and the drop is logged:
// the act it describes has already been answered and is never held up.
// A batch the database refuses is logged and counted the same way. Rows
// older than Options.RetainDays are pruned by the writer, at start and
// then at most hourly.
//
// # Reading
//
// One WHERE builder serves the page, the totals and the facets, so the
// three can never disagree about what the caller may see: the caller's
// [Scope] comes first, in SQL (the forests it administers; rows of no
// forest, "-", only for the owner), then the [Filter]; the page is cut
// last (ts desc, rowid desc), never filtered after the fact, so a short
// page leaks nothing and the totals are over exactly what the page
// could show.
//
// Times are ISO-8601 UTC to the second. Absent optional columns stay
// NULL and are omitted from entries: an old row claims neither 0 ms nor
// $0.00.
package audit

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monkeyllm/vine/adapters/record"
)

// Defaults of Options.
const (
	DefaultQueue = 4096
	DefaultBatch = 256
)

// tsLayout is a row's time: ISO-8601 UTC to the second.
const tsLayout = "2006-01-02T15:04:05Z"

// pruneEvery spaces the retention sweeps.
const pruneEvery = time.Hour

// Options configure a Log. The zero value keeps every row forever, with
// the default queue and batch sizes, the wall clock and no logging.
type Options struct {
	// RetainDays prunes rows older than this many days; 0 keeps every
	// row (the reference's behaviour, and the default).
	RetainDays int
	// Queue bounds the rows waiting to be written; past it a row is
	// dropped and counted. Zero means DefaultQueue.
	Queue int
	// Batch bounds the rows written in one transaction. Zero means
	// DefaultBatch.
	Batch int
	// Now is the clock of rows recorded without a time, and of pruning;
	// nil means time.Now.
	Now func() time.Time
	// Logger receives dropped rows and failed writes (counts, never row
	// contents). Nil discards them.
	Logger *slog.Logger
}

// Log is the audit trail of one registry file. It implements
// record.Recorder; Record never blocks. Safe for concurrent use.
type Log struct {
	db  *sql.DB
	opt Options
	log *slog.Logger

	closed atomic.Bool
	queue  chan item     // never closed: a late Record must not panic
	stop   chan struct{} // closed by Close
	done   chan struct{} // closed by the writer once drained
	once   sync.Once

	dropped atomic.Int64
	failed  atomic.Int64
}

// item is one queued row, or a flush marker (ack set).
type item struct {
	c   record.Call
	ack chan struct{}
}

// New migrates the audit table in db (additively: a registry written by
// an older Station or by the reference keeps its rows and gains the
// columns it lacks) and starts the writer. ctx bounds the migration
// only. Close the Log before closing db.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Log, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := migrate(ctx, db); err != nil {
		return nil, fmt.Errorf("audit: migrate: %w", err)
	}
	l := &Log{db: db, opt: o, log: o.Logger, queue: make(chan item, o.Queue),
		stop: make(chan struct{}), done: make(chan struct{})}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	go l.write()
	return l, nil
}

// Record queues c and returns at once. A full queue, or a closed Log,
// drops the row and counts it (Dropped); the first drop, and every
// thousandth after it, is logged.
func (l *Log) Record(_ context.Context, c record.Call) {
	if c.Time.IsZero() {
		c.Time = l.opt.Now()
	}
	if !l.closed.Load() {
		select {
		case l.queue <- item{c: c}:
			return
		default:
		}
	}
	l.drop(1)
}

// drop counts n lost rows, logging the first and every thousandth.
func (l *Log) drop(n int64) {
	total := l.dropped.Add(n)
	if total-n < 1 || (total-n)/1000 != total/1000 {
		l.log.Warn("audit rows dropped: the queue is full or the log closed", "dropped", total)
	}
}

// Flush waits until every row queued before it is written (or failed),
// or ctx ends. Rows are written in order, so a reader after Flush sees
// them all.
func (l *Log) Flush(ctx context.Context) error {
	if l.closed.Load() {
		return nil // Close drains every row
	}
	ack := make(chan struct{})
	select {
	case l.queue <- item{ack: ack}:
	case <-l.done:
		return nil // closed: everything was drained
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-l.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops taking rows, writes every row already queued, and stops
// the writer. Rows recorded after Close are dropped. It is safe to call
// more than once.
func (l *Log) Close() error {
	l.once.Do(func() {
		l.closed.Store(true)
		close(l.stop)
	})
	<-l.done
	l.leftovers()
	return nil
}

// leftovers counts as dropped what a Record racing Close queued after
// the writer's last drain, and releases a Flush waiting on it.
func (l *Log) leftovers() {
	for {
		select {
		case it := <-l.queue:
			if it.ack != nil {
				close(it.ack)
			} else {
				l.drop(1)
			}
		default:
			return
		}
	}
}

// Dropped is the number of rows dropped because the queue was full or
// the Log closed.
func (l *Log) Dropped() int64 { return l.dropped.Load() }

// Failed is the number of rows lost because the database refused their
// batch.
func (l *Log) Failed() int64 { return l.failed.Load() }
