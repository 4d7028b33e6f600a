// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

var _ keys.Resolver = (*Registry)(nil)

// Resolve implements keys.Resolver (spec 08 §6): the secret is looked up
// by digest; a revoked key, an expired one (expires_at <= now) and an
// unknown one resolve to ok == false. The principal is built from the
// grants and owner bit as they stand now, with the key's mask. Last use
// is stamped behind the call, best effort, never slowing it.
func (r *Registry) Resolve(ctx context.Context, secret string) (*keys.Principal, bool) {
	if secret == "" {
		return nil, false
	}
	d := keys.Digest(secret)
	var k Key
	var mask sql.NullString
	err := r.db.QueryRowContext(ctx, `SELECT principal, created, COALESCE(expires_at, ''), COALESCE(revoked_at, ''), caps
FROM api_keys WHERE key_hash = ?`, d).Scan(&k.Principal, &k.Created, &k.ExpiresAt, &k.RevokedAt, &mask)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) && ctx.Err() == nil {
			r.log.Error("registry: resolving a key failed; refused", "err", err)
		}
		return nil, false
	}
	now := r.now()
	if status(k, now) != keys.StatusActive {
		return nil, false
	}
	m, _ := parseMask(mask) // an unreadable mask is empty: the key can do nothing
	p, found, err := r.Live(ctx, k.Principal, m)
	if err != nil {
		r.log.Error("registry: reading a principal's grants failed; refused", "principal", k.Principal, "err", err)
		return nil, false
	}
	if !found {
		return nil, false
	}
	r.usage.touch(d, now)
	return p, true
}

// Live is principal's authority as it stands now, seen through mask (nil
// for unmasked): its owner bit and one policy per granted forest. Webhooks
// and shares re-read an issuer's authority with it (mask nil). found is
// false when the principal does not exist.
func (r *Registry) Live(ctx context.Context, principal string, mask []vine.Capability) (p *keys.Principal, found bool, err error) {
	var owner bool
	err = r.db.QueryRowContext(ctx, "SELECT owner FROM principals WHERE id = ?", principal).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	grants, err := r.Grants(ctx, principal)
	if err != nil {
		return nil, false, err
	}
	p = &keys.Principal{Name: principal, Grants: make(map[string]vine.Policy, len(grants)), Mask: mask, Owner: owner}
	for _, g := range grants {
		p.Grants[g.Forest] = g.Policy()
	}
	return p, true, nil
}

// usage stamps last_used_at behind the calls that resolve keys: Resolve
// records the time in memory and a single writer flushes the batch, so a
// busy key costs one write per flush, not one per request, and a slow
// disk never slows a call. Best effort: a stamp lost to a crash or a full
// batch is a last-use a little older than it should be.
type usage struct {
	r        *Registry
	flushing sync.Mutex // one flush at a time, so a flush that returns has written
	mu       sync.Mutex
	pending  map[string]time.Time // by digest
	wake     chan struct{}
	done     chan struct{}
	stopped  chan struct{}
}

// maxPending bounds the batch: beyond it, new keys' stamps are dropped
// until the writer catches up.
const maxPending = 4096

func startUsage(r *Registry) *usage {
	u := &usage{r: r, pending: map[string]time.Time{}, wake: make(chan struct{}, 1),
		done: make(chan struct{}), stopped: make(chan struct{})}
	go u.run()
	return u
}

func (u *usage) touch(digest string, at time.Time) {
	u.mu.Lock()
	if _, ok := u.pending[digest]; ok || len(u.pending) < maxPending {
		u.pending[digest] = at
	}
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

func (u *usage) run() {
	defer close(u.stopped)
	for {
		select {
		case <-u.done:
			u.flush()
			return
		case <-u.wake:
			u.flush()
		}
	}
}

// flush writes the pending stamps in one transaction. A batch that fails
// goes back to the queue, behind any newer stamp of the same key.
func (u *usage) flush() {
	u.flushing.Lock()
	defer u.flushing.Unlock()
	u.mu.Lock()
	batch := u.pending
	u.pending = map[string]time.Time{}
	u.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := u.r.immediate(ctx, func(tx *sql.Tx) error {
		for d, at := range batch {
			if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET last_used_at = ? WHERE key_hash = ?", formatTime(at), d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		u.r.log.Warn("registry: last-use stamps not written yet", "keys", len(batch), "err", err)
		u.mu.Lock()
		for d, at := range batch {
			if _, newer := u.pending[d]; !newer && len(u.pending) < maxPending {
				u.pending[d] = at
			}
		}
		u.mu.Unlock()
	}
}

func (u *usage) stop() {
	close(u.done)
	<-u.stopped
}
