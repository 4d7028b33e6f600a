// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/sqlitefile"
)

// StorePath is where a forest keeps its answer store, relative to its
// root (slash-separated): derived, disposable, never in git or snapshots.
const StorePath = forest.DerivedDir + "/cache/answers.db"

// stamp is the store's time format: fixed width, so text order is time
// order.
const stamp = "2006-01-02T15:04:05.000000Z"

const storeSchema = `
CREATE TABLE IF NOT EXISTS entries(
	key TEXT PRIMARY KEY,
	question TEXT NOT NULL,
	response TEXT NOT NULL,
	trail TEXT NOT NULL,
	fingerprint TEXT,
	priced INTEGER NOT NULL DEFAULT 0,
	usd REAL,
	created TEXT NOT NULL,
	last_served TEXT NOT NULL,
	served INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS entries_served ON entries(last_served, created);
CREATE TABLE IF NOT EXISTS tallies(name TEXT PRIMARY KEY, value REAL NOT NULL DEFAULT 0);`

// store is the answer store of one forest (J.10.7). It fronts the model
// call only: retrieval is never cached. Safe for concurrent use.
type store struct {
	db  *sql.DB
	max atomic.Int64 // entries kept
	ttl atomic.Int64 // a time.Duration; 0 keeps entries until evicted
	now func() time.Time
}

// bound applies the forest's current settings: a host may change them
// between two calls.
func (s *store) bound(opt StoreOptions) {
	max := int64(opt.MaxEntries)
	if max <= 0 {
		max = DefaultMaxEntries
	}
	s.max.Store(max)
	s.ttl.Store(int64(opt.TTL))
}

// entry is one stored answer: the response as served (JSON), the ids it
// whispers on when served again, and the sweep's reading fingerprint
// ("" for walks, which are keyed by HEAD instead).
type entry struct {
	key, question string
	response      []byte
	trail         []byte
	fingerprint   string
	priced        bool
	usd           float64
	created       string
}

// openStore opens (creating when needed) the store under the forest dir.
// A file from an older layout, without the fingerprint column, is
// recreated rather than migrated: the store is disposable.
func openStore(ctx context.Context, dir string, opt StoreOptions, now func() time.Time) (*store, error) {
	path := filepath.Join(dir, filepath.FromSlash(StorePath))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("answer: store dir: %w", err)
	}
	db, err := sqlitefile.Open(path, "", nil)
	if err != nil {
		return nil, fmt.Errorf("answer: open store: %w", err)
	}
	if err := ensureSchema(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	s := &store{db: db, now: now}
	s.bound(opt)
	return s, nil
}

func ensureSchema(ctx context.Context, db *sql.DB) error {
	var tables, withFingerprint int
	if err := db.QueryRowContext(ctx,
		`SELECT (SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='entries'),
		        (SELECT COUNT(*) FROM pragma_table_info('entries') WHERE name='fingerprint')`).
		Scan(&tables, &withFingerprint); err != nil {
		return fmt.Errorf("answer: inspect store: %w", err)
	}
	if tables > 0 && withFingerprint == 0 {
		if _, err := db.ExecContext(ctx, `DROP TABLE entries; DROP TABLE IF EXISTS tallies;`); err != nil {
			return fmt.Errorf("answer: recreate store: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, storeSchema); err != nil {
		return fmt.Errorf("answer: create store: %w", err)
	}
	return nil
}

func (s *store) close() error { return s.db.Close() }

// get returns the entry under key. An entry past its TTL is deleted on
// sight and reported absent.
func (s *store) get(ctx context.Context, key string) (*entry, bool, error) {
	e := &entry{key: key}
	var fp sql.NullString
	var usd sql.NullFloat64
	err := s.db.QueryRowContext(ctx,
		`SELECT question, response, trail, fingerprint, priced, usd, created FROM entries WHERE key = ?`, key).
		Scan(&e.question, &e.response, &e.trail, &fp, &e.priced, &usd, &e.created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	e.fingerprint, e.usd = fp.String, usd.Float64
	if ttl := time.Duration(s.ttl.Load()); ttl > 0 {
		if t, err := time.Parse(stamp, e.created); err == nil && s.now().Sub(t) > ttl {
			_, err := s.db.ExecContext(ctx, `DELETE FROM entries WHERE key = ?`, key)
			return nil, false, err
		}
	}
	return e, true, nil
}

// put stores e, replacing any entry under its key, then evicts the
// oldest-served entries beyond the bound.
func (s *store) put(ctx context.Context, e *entry) error {
	now := s.now().UTC().Format(stamp)
	e.created = now
	var fp any
	if e.fingerprint != "" {
		fp = e.fingerprint
	}
	var usd any
	if e.priced {
		usd = e.usd
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO entries
			(key, question, response, trail, fingerprint, priced, usd, created, last_served, served)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
			e.key, e.question, e.response, e.trail, fp, e.priced, usd, now, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE key IN (
			SELECT key FROM entries ORDER BY last_served DESC, created DESC LIMIT -1 OFFSET ?)`, s.max.Load())
		return err
	})
}

// served records a hit: the entry's served count and time, and the
// tallies (money only when the entry was priced).
func (s *store) served(ctx context.Context, e *entry) error {
	now := s.now().UTC().Format(stamp)
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`UPDATE entries SET served = served + 1, last_served = ? WHERE key = ?`, now, e.key); err != nil {
			return err
		}
		if err := bump(ctx, tx, "hits", 1); err != nil {
			return err
		}
		if !e.priced {
			return nil
		}
		if err := bump(ctx, tx, "priced_hits", 1); err != nil {
			return err
		}
		return bump(ctx, tx, "avoided_usd", e.usd)
	})
}

// missed counts a consultation that found no usable entry.
func (s *store) missed(ctx context.Context) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return bump(ctx, tx, "misses", 1) })
}

func bump(ctx context.Context, tx *sql.Tx, name string, by float64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO tallies(name, value) VALUES (?, ?)
		ON CONFLICT(name) DO UPDATE SET value = value + excluded.value`, name, by)
	return err
}

func (s *store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// StoreStats describe one forest's answer store: entries held and the
// tallies. AvoidedUSD is present only once a priced entry was served.
type StoreStats struct {
	Held       int      `json:"held"`
	Hits       int      `json:"hits"`
	Misses     int      `json:"misses"`
	AvoidedUSD *float64 `json:"avoided_usd,omitempty"`
}

func (s *store) stats(ctx context.Context) (StoreStats, error) {
	var st StoreStats
	var priced, avoided float64
	var hits, misses float64
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM entries),
		COALESCE((SELECT value FROM tallies WHERE name = 'hits'), 0),
		COALESCE((SELECT value FROM tallies WHERE name = 'misses'), 0),
		COALESCE((SELECT value FROM tallies WHERE name = 'priced_hits'), 0),
		COALESCE((SELECT value FROM tallies WHERE name = 'avoided_usd'), 0)`).
		Scan(&st.Held, &hits, &misses, &priced, &avoided)
	if err != nil {
		return st, err
	}
	st.Hits, st.Misses = int(hits), int(misses)
	if priced > 0 {
		st.AvoidedUSD = &avoided
	}
	return st, nil
}

// clear drops every entry; the tallies stay.
func (s *store) clear(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM entries`)
	return err
}
