// SPDX-License-Identifier: Apache-2.0

// Package providers keeps the Station's model providers and the per-forest
// model bindings (spec 09 §8, the host half of J.10): which endpoint
// serves a role — ingest, answer, vision, embed — for one forest, with
// which model and key.
//
// Keys are write-only: no listing returns one, a provider row says only
// whether it has a key, and a key follows its endpoint (changing a keyed
// provider's endpoint requires the key again, so a stored key is never
// sent somewhere new). Providers the environment declares (J.10.1) are
// published at boot with origin "env"; their keys stay in memory, and
// they refuse edits and removal.
//
// The tables live in the host registry's file, beside the registry's own
// (registry.DB); this package owns and migrates them, and applies the
// v0.63 repair of answer bindings to a registry imported from the
// reference.
package providers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/monkeyllm/vine/adapters/station/destination"
	"github.com/monkeyllm/vine/adapters/station/internal/migration"
)

// Provider is one provider as every listing shows it: never its key.
type Provider struct {
	Name     string `json:"name"`
	Endpoint string `json:"endpoint"`
	HasKey   bool   `json:"has_key"`
	Origin   string `json:"origin"` // OriginConsole or OriginEnv
	Created  string `json:"created"`
}

// Origins of a provider row.
const (
	OriginConsole = "console"
	OriginEnv     = "env"
)

// Options configure a Store.
type Options struct {
	// Now is the clock of created stamps; nil is time.Now.
	Now func() time.Time
	// RepairedFrom is the registry's data-repair stamp when it was
	// opened (registry.RepairedFrom): below 1, answer bindings still
	// carry the reference's old max_tokens default and are repaired.
	RepairedFrom int
	// Env are the providers the environment declares, published at
	// boot (the CLI reads MONKEYLLM_LLM_* and MONKEYLLM_EMBED_*).
	Env []EnvProvider
	// AllowPrivate lets a provider test reach loopback, private,
	// link-local and reserved addresses
	// (MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE).
	AllowPrivate bool
	// Resolver resolves a tested endpoint's host; nil is the system's.
	Resolver destination.Resolver
	// Probe is the HTTP client of provider tests; nil is a client that
	// refuses non-public addresses at dial time (unless AllowPrivate)
	// and never follows a redirect.
	Probe *http.Client
}

// Store is the providers and bindings of one host registry. It is safe
// for concurrent use.
type Store struct {
	db  *sql.DB
	opt Options
	now func() time.Time

	mu    sync.RWMutex
	env   map[string]envRow // name -> the environment's provider, key in memory
	extra func() []Role     // roles installed extensions register

	prices priceCache // each endpoint's price listing (Price)
}

// Open migrates the tables in db, applies the v0.63 repair when the
// registry predates it, and publishes the environment's providers.
func Open(ctx context.Context, db *sql.DB, opt Options) (*Store, error) {
	s := &Store{db: db, opt: opt, now: opt.Now, env: map[string]envRow{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.opt.Probe == nil {
		s.opt.Probe = destination.Client(probeTimeout, opt.AllowPrivate)
	}
	if err := migrate(ctx, db); err != nil {
		return nil, fmt.Errorf("providers: migrate: %w", err)
	}
	if opt.RepairedFrom < 1 {
		if err := repairAnswerTokens(ctx, db); err != nil {
			return nil, fmt.Errorf("providers: repair answer bindings: %w", err)
		}
	}
	if err := s.publish(ctx, opt.Env); err != nil {
		return nil, fmt.Errorf("providers: publish the environment's providers: %w", err)
	}
	return s, nil
}

// The tables of 09 §2 under the reference's names.
var tables = []string{
	`CREATE TABLE IF NOT EXISTS providers (
		name     TEXT PRIMARY KEY,
		endpoint TEXT NOT NULL,
		api_key  TEXT,
		created  TEXT NOT NULL,
		origin   TEXT NOT NULL DEFAULT 'console'
	)`,
	`CREATE TABLE IF NOT EXISTS model_bindings (
		forest     TEXT NOT NULL,
		role       TEXT NOT NULL,
		provider   TEXT NOT NULL,
		model      TEXT NOT NULL,
		max_tokens INTEGER NOT NULL DEFAULT 1500,
		reasoning  TEXT NOT NULL DEFAULT 'off',
		PRIMARY KEY (forest, role)
	)`,
}

// migrate creates the tables: additive only, never a row touched.
func migrate(ctx context.Context, db *sql.DB) error {
	return migration.Run(ctx, db, migration.Plan{Create: tables})
}

// repairAnswerTokens is the v0.63 repair: an answer binding still at the
// old 600-token default gets the answer default. The registry stamps the
// file; this runs again harmlessly until it does.
func repairAnswerTokens(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "UPDATE model_bindings SET max_tokens = ? WHERE role = ? AND max_tokens = ?",
		AnswerMaxTokens, RoleAnswer, DefaultMaxTokens)
	return err
}

func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

func (s *Store) stamp() string { return s.now().UTC().Truncate(time.Second).Format(time.RFC3339) }
