// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/adapters/keys"
)

// BootstrapPrincipal is the principal the bootstrap key is minted for.
const BootstrapPrincipal = "admin"

// Session is the answer of a password door (setup, login): a session key
// shown once, and what it may do as the grants stand now.
type Session struct {
	Key       string `json:"key"`
	Principal string `json:"principal"`
	ExpiresAt string `json:"expires_at"`
	Admin     bool   `json:"admin"`
	Owner     bool   `json:"owner"`
}

// SetupOpen reports whether the one-shot setup exists now (spec 09 §4):
// no break-glass account configured, no owner, and no credential of any
// kind — no stored password, no key but sessions. Clearing every
// credential never reopens it while the owner exists.
func (r *Registry) SetupOpen(ctx context.Context) (bool, error) {
	return r.setupOpen(ctx, r.db)
}

func (r *Registry) setupOpen(ctx context.Context, q execer) (bool, error) {
	if r.BreakGlassConfigured() {
		return false, nil
	}
	var closed bool
	err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM principals WHERE owner = 1 OR pw_hash IS NOT NULL)
  OR EXISTS (SELECT 1 FROM api_keys WHERE kind != 'session')`).Scan(&closed)
	return !closed, err
}

// Setup creates the owner with a password and opens its first session,
// in one immediate transaction with the window check, so concurrent
// first calls make exactly one owner. Outside the window, and to every
// loser of the race, it answers ErrSetupClosed, before looking at its
// arguments. Missing user or password, or a password shorter than
// MinPasswordLen, is E_SCHEMA. email is stored locally, never sent.
func (r *Registry) Setup(ctx context.Context, user, password, email string) (Session, error) {
	if open, err := r.SetupOpen(ctx); err != nil || !open {
		return Session{}, orClosed(err)
	}
	if strings.TrimSpace(user) == "" || password == "" {
		return Session{}, errCredentialsRequired()
	}
	if len([]rune(password)) < MinPasswordLen {
		return Session{}, errPasswordShort()
	}
	var m Minted
	err := r.immediate(ctx, func(tx *sql.Tx) error {
		if open, err := r.setupOpen(ctx, tx); err != nil || !open {
			return orClosed(err)
		}
		// Hashed under the write lock: the losers of a race then wait
		// and never hash at all.
		salt, hash, err := hashPassword(password)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO principals (id, kind, created, pw_salt, pw_hash, owner, email)
VALUES (?, 'user', ?, ?, ?, 1, ?)
ON CONFLICT(id) DO UPDATE SET kind = 'user', pw_salt = excluded.pw_salt, pw_hash = excluded.pw_hash,
  owner = 1, email = excluded.email`, user, r.stamp(), salt, hash, nullIfEmpty(strings.TrimSpace(email))); err != nil {
			return orClosed(err)
		}
		m, err = r.mintTx(ctx, tx, user, MintOptions{Kind: KindSession})
		return err
	})
	if err != nil {
		return Session{}, err
	}
	return Session{Key: m.Secret, Principal: user, ExpiresAt: m.Key.ExpiresAt, Admin: true, Owner: true}, nil
}

// orClosed is err, or ErrSetupClosed when there is none: a unique-index
// violation inside the window means somebody got there first.
func orClosed(err error) error {
	if err == nil || errors.Is(err, sqlite3.CONSTRAINT_UNIQUE) {
		return ErrSetupClosed
	}
	return err
}

// BootstrapKey spends the setup window on a key instead of a password
// (spec 09 §4, --bootstrap-key): principal BootstrapPrincipal takes the
// owner bit and an API key labelled "bootstrap" living 365 days, in the
// same atomic check as Setup. Outside the window it mints nothing and
// answers ErrSetupClosed.
func (r *Registry) BootstrapKey(ctx context.Context) (Minted, error) {
	var m Minted
	err := r.immediate(ctx, func(tx *sql.Tx) error {
		if open, err := r.setupOpen(ctx, tx); err != nil || !open {
			return orClosed(err)
		}
		if err := r.ensurePrincipal(ctx, tx, BootstrapPrincipal, KindUser); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE principals SET owner = 1 WHERE id = ?", BootstrapPrincipal); err != nil {
			return orClosed(err)
		}
		var err error
		m, err = r.mintTx(ctx, tx, BootstrapPrincipal, MintOptions{Label: "bootstrap", ExpiresIn: keys.MaxExpiry})
		return err
	})
	return m, err
}

// OpenSession mints a session for principal (spec 09 §3): an unmasked
// key of kind session, label "session", living 12 hours. Expired session
// rows are deleted on the way, since nobody lists them.
func (r *Registry) OpenSession(ctx context.Context, principal string) (Session, error) {
	m, err := r.Mint(ctx, principal, MintOptions{Kind: KindSession})
	if err != nil {
		return Session{}, err
	}
	s := Session{Key: m.Secret, Principal: principal, ExpiresAt: m.Key.ExpiresAt}
	if p, ok, err := r.Live(ctx, principal, nil); err == nil && ok {
		s.Admin, s.Owner = p.Admin(), p.IsOwner()
	}
	return s, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
