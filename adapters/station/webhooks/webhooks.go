// SPDX-License-Identifier: Apache-2.0

// Package webhooks is the Station's webhook delivery (spec 09 §10, J.16):
// the webhooks and webhook_deliveries tables of the host registry, the
// subscription routes' logic (list, create or replace, one with its
// deliveries, delete, and the test, rotate and redeliver actions), and
// the delivery of the event catalogue (08 §11) to subscribers.
//
// Emission is cheap and never fails: Emit looks the event up in an
// in-memory index of (scope, event) over the enabled webhooks, refreshed
// on every webhook write, and returns at once when nobody subscribes; a
// match is queued (bound 1000, the oldest dropped) for one worker.
// The worker re-reads the owner's authority at every attempt (a lapse
// suspends the webhook, its return resumes it on a later matching
// emission), builds one body per delivery — rationed, and never carrying
// an id the owner's policy or the webhook's branches hide — signs it per
// attempt, and retries at 5, 30, 120 and 600 s; ten deliveries in a row
// that exhaust their retries suspend the webhook. A restart forgets
// pending retries.
//
// Destinations pass the address rule of package destination when named
// and again when dialled.
package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/station/destination"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

// The limits of 09 §10, reported with the listing.
const (
	MaxAttempts    = 5
	SuspendAfter   = 10
	Timeout        = 10 * time.Second
	MaxHeaders     = 5
	KeepDeliveries = 100
	QueueBound     = 1000
	MaxBranches    = 20
	MaxLabel       = 80
	MaxHeaderValue = 1024
)

// Backoff is the wait before each retry: attempt n+1 follows attempt n
// by Backoff[n-1].
var Backoff = []time.Duration{5 * time.Second, 30 * time.Second, 120 * time.Second, 600 * time.Second}

// Options configure Hooks. Registry and Forests are required.
type Options struct {
	// Registry is the host registry: the reach predicates and the
	// owners' live grants.
	Registry *registry.Registry
	// Forests are the served forests: which exist (deployment reach) and
	// what an owner's policy lets them see.
	Forests *vine.Registry
	// Recorder receives the admin.webhook.* audit rows; nil writes none.
	Recorder record.Recorder
	// AllowPrivate lifts the address rule (loopback, private, link-local
	// and reserved destinations), as MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE
	// does; the URL must still be http(s) with a host.
	AllowPrivate bool
	// Resolver resolves destination names; nil is net.DefaultResolver.
	Resolver destination.Resolver
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Logger receives what never reaches the wire.
	Logger *slog.Logger
}

// Hooks is the Station's webhooks: their storage, their routes' logic and
// their delivery. It is safe for concurrent use; Close stops the worker.
type Hooks struct {
	db    *sql.DB
	opt   Options
	now   func() time.Time
	log   *slog.Logger
	index atomic.Pointer[index]

	// after waits out a retry's backoff; tests shorten it.
	after  func(time.Duration) <-chan time.Time
	client *http.Client

	mu       sync.Mutex
	queue    []job
	waiting  int   // retries sleeping out their backoff
	dropped  int64 // jobs the bound pushed out
	wake     chan struct{}
	done     chan struct{}
	stopped  chan struct{}
	closeOne sync.Once
}

// New migrates the two tables in db (the registry's DB), loads the index
// and starts the worker.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Hooks, error) {
	if opts == nil || opts.Registry == nil || opts.Forests == nil {
		return nil, errors.New("webhooks: Registry and Forests are required")
	}
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	h := &Hooks{db: db, opt: *opts, now: opts.Now, log: opts.Logger, after: time.After,
		client: destination.Client(Timeout, opts.AllowPrivate),
		wake:   make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if err := h.refresh(ctx); err != nil {
		return nil, err
	}
	go h.work()
	return h, nil
}

// Close stops the worker after the attempt in flight; queued deliveries
// and pending retries are forgotten (09 §18.9).
func (h *Hooks) Close() error {
	h.closeOne.Do(func() {
		close(h.done)
		<-h.stopped
	})
	return nil
}

// Queue is the queue's state as the listing reports it.
type Queue struct {
	Pending int   `json:"pending"`
	Dropped int64 `json:"dropped"`
}

// QueueState reports the deliveries waiting (queued or sleeping out a
// retry) and those the bound dropped.
func (h *Hooks) QueueState() Queue {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Queue{Pending: len(h.queue) + h.waiting, Dropped: h.dropped}
}

// stamp is t as the registry writes times: ISO-8601 UTC to the second.
func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }
