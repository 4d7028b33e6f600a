// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"sync"
	"time"
)

// A read replica follows its origin: every interval it fetches, fast-
// forwards (or merges, should the replica have written), and brings the
// catalog in step for the changed nodes only, bumping the catalog
// generation that every in-memory cache (locate's index, move's
// adjacency, sniff's memo) checks. Reads keep being served throughout:
// files are replaced by rename and the catalog by transactions, as for
// any write, so a reader sees the forest before or after a sync, never
// half of one.

// DefaultFollowEvery is how often a follower syncs when no interval is set.
const DefaultFollowEvery = 30 * time.Second

// FollowOptions configure Follow.
type FollowOptions struct {
	RemoteOptions
	// Every is the interval between syncs; 0 means DefaultFollowEvery.
	Every time.Duration
	// Synced, when set, is told the outcome of every sync (on the
	// follower's goroutine; it must not block).
	Synced func(*PullResult, error)
}

// OriginStatus is a follower's view of its origin, for health.
type OriginStatus struct {
	Remote string `json:"remote"`
	URL    string `json:"url,omitempty"`
	// Commit is the origin's commit at the last fetch; Head the replica's.
	Commit string `json:"commit"`
	Head   string `json:"head"`
	// LastSync is when the replica last equalled its origin, and
	// LagSeconds how long ago that was.
	LastSync   time.Time `json:"last_sync"`
	LagSeconds float64   `json:"lag_seconds"`
	// Error is the last sync's failure, "" after a good one.
	Error string `json:"error,omitempty"`
}

// followState is the follower's last result.
type followState struct {
	mu     sync.Mutex
	status *OriginStatus
}

// FollowOnce is one sync of a replica with its origin: Pull, allowed on a
// forest open read-only (its callers still cannot write; the follower
// is the one writer). Its outcome is what Origin reports.
func (v *Vine) FollowOnce(ctx context.Context, opts RemoteOptions) (*PullResult, error) {
	res, err := v.pull(ctx, "follow", PullOptions{RemoteOptions: opts})
	if err == nil || ctx.Err() == nil {
		// A sync its caller cancelled says nothing about the origin.
		v.noteSync(opts, res, err)
	}
	return res, err
}

// Follow syncs the forest with its origin every interval until ctx ends,
// then answers ctx's error. A failed sync is reported (Synced, Origin) and
// retried at the next tick; it never stops the follower.
func (v *Vine) Follow(ctx context.Context, opts FollowOptions) error {
	every := opts.Every
	if every <= 0 {
		every = DefaultFollowEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		res, err := v.FollowOnce(ctx, opts.RemoteOptions)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if opts.Synced != nil {
			opts.Synced(res, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Origin is the follower's view of its origin, nil when the forest never
// followed one.
func (v *Vine) Origin() *OriginStatus {
	v.follow.mu.Lock()
	defer v.follow.mu.Unlock()
	if v.follow.status == nil {
		return nil
	}
	st := *v.follow.status
	if !st.LastSync.IsZero() {
		st.LagSeconds = v.now().Sub(st.LastSync).Seconds()
	}
	return &st
}

// noteSync records a sync's outcome for Origin.
func (v *Vine) noteSync(opts RemoteOptions, res *PullResult, err error) {
	v.follow.mu.Lock()
	defer v.follow.mu.Unlock()
	st := v.follow.status
	if st == nil {
		st = &OriginStatus{Remote: cmpOr(opts.Remote, "origin")}
		v.follow.status = st
		if rs, rerr := v.Remotes(); rerr == nil {
			for _, r := range rs {
				if r.Name == st.Remote {
					st.URL = r.URL
				}
			}
		}
	}
	if err != nil {
		st.Error = err.Error()
		if s, serr := v.remote(); serr == nil {
			if h, herr := s.repo.Head(); herr == nil {
				st.Head = h
			}
		}
		return
	}
	st.Error = ""
	st.Commit, st.Head = res.Origin, res.Head
	if res.Kind == "ahead" || res.Head == res.Origin || res.Kind == "merge" {
		st.LastSync = v.now()
	}
}
