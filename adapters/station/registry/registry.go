// SPDX-License-Identifier: Apache-2.0

// Package registry is the Station's host registry (spec 09 §2): one
// SQLite file holding who may use the Station and what each may do —
// principals, their passwords and the owner bit, bearer keys and
// sessions, grants per principal × forest, and per-forest settings. It
// never lives inside a forest: a forest handed on carries no credentials.
//
// A *Registry is the keys.Resolver of a Station, so the REST and MCP
// adapters run on it unchanged:
//
//	reg, err := registry.Open(ctx, "/registry/station.db", &registry.Options{})
//	defer reg.Close()
//	sess, err := reg.Setup(ctx, "ada", "correct horse battery", "")
//	p, ok := reg.Resolve(ctx, sess.Key) // live grants ∩ key mask, owner bit
//
// Authority is read at the moment of use: Resolve builds the principal
// from the grants as they stand, so revoking a grant narrows every key at
// once. The checks that create authority (setup, the bootstrap key,
// break-glass) run in one immediate transaction, never check-then-write;
// a unique index makes "exactly one owner" structural.
//
// Secrets are never stored: keys as their SHA-256 hex digest, passwords
// as a salted scrypt hash; the break-glass password lives only in memory.
// Refusals are *vine.Error envelopes carrying the spec's sentences; a
// failure of the file itself is a plain error, which the host's last
// resort answers as E_INTERNAL.
//
// Sibling packages that own tables in the same file (audit, webhooks,
// shares) reach it through DB and migrate their own tables.
//
// A Registry is safe for concurrent use.
package registry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/monkeyllm/vine/internal/sqlitefile"
)

// ErrSetupClosed is what Setup and BootstrapKey answer outside the setup
// window, and to the loser of a race for it. It is not an envelope on
// purpose: a closed setup route answers exactly as an unrouted path, which
// only the host can render.
var ErrSetupClosed = errors.New("registry: the setup window is closed")

// BreakGlass is the environment's administrator (spec 09 §3): a user name
// and password given at start, compared in constant time and never
// written anywhere. Both must be non-empty, or the account does not exist.
type BreakGlass struct {
	User     string
	Password string
}

// Options configure Open; a nil *Options is the defaults.
type Options struct {
	// Now is the clock that stamps rows and decides expiry; nil is
	// time.Now.
	Now func() time.Time
	// BreakGlass, when both fields are set, is ensured at open: the
	// principal exists, takes the owner seat if it is free (or already
	// its own), and otherwise holds every capability on Forests. While it
	// is configured, setup does not exist.
	BreakGlass BreakGlass
	// Forests are the forests existing at boot, granted in full to a
	// break-glass account that finds the owner seat taken.
	Forests []string
	// Logger receives what cannot be returned (a failed last-use stamp);
	// nil is slog.Default().
	Logger *slog.Logger
}

// Registry is an open host registry. Close it when done.
type Registry struct {
	db           *sql.DB
	now          func() time.Time
	log          *slog.Logger
	glass        BreakGlass
	repairedFrom int

	usage *usage // last_used_at stamps, written behind the call

	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating it and its directory if needed) the registry file
// at path, brings its schema up to date with additive migrations, runs
// the one-time data repairs it has not seen, and ensures the break-glass
// account when one is configured. A file written by the reference
// implementation opens in place.
func Open(ctx context.Context, path string, opt *Options) (*Registry, error) {
	if opt == nil {
		opt = &Options{}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	db, err := sqlitefile.Open(path, "_txlock=immediate", nil)
	if err != nil {
		return nil, fmt.Errorf("registry: open %s: %w", path, err)
	}
	// Every request resolves a key here: keep connections (each its own
	// SQLite instance) warm rather than reopening them under load.
	db.SetMaxIdleConns(8)
	r := &Registry{db: db, now: time.Now, log: slog.Default()}
	if opt.Now != nil {
		r.now = opt.Now
	}
	if opt.Logger != nil {
		r.log = opt.Logger
	}
	if opt.BreakGlass.User != "" && opt.BreakGlass.Password != "" {
		r.glass = opt.BreakGlass
	}
	if r.repairedFrom, err = migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("registry: %s: %w", path, err)
	}
	if err := r.ensureBreakGlass(ctx, opt.Forests); err != nil {
		db.Close()
		return nil, fmt.Errorf("registry: break-glass: %w", err)
	}
	// Opportunistic: a session that expired while the Station was down
	// is nobody's to list; minting a session sweeps them too.
	if _, err := db.ExecContext(ctx, "DELETE FROM api_keys WHERE kind = 'session' AND expires_at <= ?", r.stamp()); err != nil {
		db.Close()
		return nil, fmt.Errorf("registry: %s: %w", path, err)
	}
	r.usage = startUsage(r)
	return r, nil
}

// Close writes the pending last-use stamps and closes the file.
func (r *Registry) Close() error {
	r.closeOnce.Do(func() {
		r.usage.stop()
		r.closeErr = r.db.Close()
	})
	return r.closeErr
}

// DB is the registry's database, for the sibling packages that keep their
// own tables in the same file (audit, webhooks, shares). Each migrates and
// owns its tables; none writes to the tables of this package.
func (r *Registry) DB() *sql.DB { return r.db }

// RepairedFrom is the data-repair stamp (PRAGMA user_version) the file
// carried when it was opened, before this package's repairs ran. Stamp 1,
// the answer binding's max_tokens (v0.63), belongs to the package that
// owns model_bindings: it applies that repair itself when this is below 1.
func (r *Registry) RepairedFrom() int { return r.repairedFrom }

// stamp is now as the registry writes it: ISO-8601 UTC to the second.
func (r *Registry) stamp() string { return formatTime(r.now()) }

func formatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// parseTime reads a stored time: the "Z" this package writes or the
// "+00:00" of a registry written by the reference.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// immediate runs fn in one BEGIN IMMEDIATE transaction (the DSN's
// _txlock), committing when fn returns nil.
func (r *Registry) immediate(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
