// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"errors"
	"strings"
)

// Principal kinds.
const (
	KindUser    = "user"
	KindService = "service"
)

// Principal is one row of the People view (spec 09 §7), without grants
// or keys, which Grants and ListKeys give.
type Principal struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Created     string `json:"created"`
	HasPassword bool   `json:"has_password"`
	// Owner is the stored owner bit; a key's mask may still hide it.
	Owner bool `json:"owner"`
	// Keys counts the principal's unrevoked API keys (sessions aside).
	Keys int `json:"keys"`
	// LastSeen is the latest last_used_at of its keys, "" when none was
	// ever used.
	LastSeen string `json:"last_seen,omitempty"`
}

// checkID refuses an empty principal id.
func checkID(id string) error {
	if strings.TrimSpace(id) == "" {
		return errPrincipalRequired()
	}
	return nil
}

// ensurePrincipal creates id with kind unless it exists (an existing
// principal keeps its kind): principals are made implicitly by a grant, a
// key or a password.
func (r *Registry) ensurePrincipal(ctx context.Context, q execer, id, kind string) error {
	_, err := q.ExecContext(ctx, "INSERT INTO principals (id, kind, created) VALUES (?,?,?) ON CONFLICT(id) DO NOTHING",
		id, kind, r.stamp())
	return err
}

// execer is what both *sql.DB and *sql.Tx offer.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Principals lists every principal, ordered by id. The host narrows the
// list to the caller's reach (spec 09 §5).
func (r *Registry) Principals(ctx context.Context) ([]Principal, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT p.id, p.kind, p.created, p.pw_hash IS NOT NULL, p.owner,
  (SELECT COUNT(*) FROM api_keys k WHERE k.principal = p.id AND k.kind = 'api' AND k.revoked_at IS NULL),
  (SELECT COALESCE(MAX(k.last_used_at), '') FROM api_keys k WHERE k.principal = p.id)
FROM principals p ORDER BY p.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Principal{}
	for rows.Next() {
		var p Principal
		if err := rows.Scan(&p.ID, &p.Kind, &p.Created, &p.HasPassword, &p.Owner, &p.Keys, &p.LastSeen); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Owner is the id of the owner, "" when the seat is free.
func (r *Registry) Owner(ctx context.Context) (string, error) {
	return ownerOf(ctx, r.db)
}

func ownerOf(ctx context.Context, q execer) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, "SELECT id FROM principals WHERE owner = 1").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// IsBreakGlass reports whether id is the configured environment account.
func (r *Registry) IsBreakGlass(id string) bool { return r.glass.User != "" && id == r.glass.User }

// BreakGlassConfigured reports whether an environment account exists.
func (r *Registry) BreakGlassConfigured() bool { return r.glass.User != "" }

// ensureBreakGlass makes the environment account exist (spec 09 §3): the
// principal, the owner seat when it is free or already its own, else every
// capability on the forests existing at boot. It never demotes an owner
// and never writes the password.
func (r *Registry) ensureBreakGlass(ctx context.Context, forests []string) error {
	if r.glass.User == "" {
		return nil
	}
	return r.immediate(ctx, func(tx *sql.Tx) error {
		if err := r.ensurePrincipal(ctx, tx, r.glass.User, KindUser); err != nil {
			return err
		}
		owner, err := ownerOf(ctx, tx)
		if err != nil {
			return err
		}
		if owner == "" || owner == r.glass.User {
			_, err := tx.ExecContext(ctx, "UPDATE principals SET owner = 1 WHERE id = ?", r.glass.User)
			return err
		}
		full := Grant{Caps: allCapsSorted()}
		for _, f := range forests {
			full.Forest = f
			if err := putGrant(ctx, tx, r.glass.User, full); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetPassword sets the principal's password, or clears it when password
// is "" (a cleared password is no door at all, never a blank one). The
// principal is created as a user if it does not exist. The break-glass
// account's password lives in the environment and is refused here.
func (r *Registry) SetPassword(ctx context.Context, principal, password string) error {
	if err := checkID(principal); err != nil {
		return err
	}
	if r.IsBreakGlass(principal) {
		return errBreakGlassPassword()
	}
	if password == "" {
		return r.immediate(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, "UPDATE principals SET pw_salt = NULL, pw_hash = NULL WHERE id = ?", principal)
			return err
		})
	}
	if len([]rune(password)) < MinPasswordLen {
		return errPasswordShort()
	}
	salt, hash, err := hashPassword(password) // outside the transaction: it is the slow part
	if err != nil {
		return err
	}
	return r.immediate(ctx, func(tx *sql.Tx) error {
		if err := r.ensurePrincipal(ctx, tx, principal, KindUser); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE principals SET pw_salt = ?, pw_hash = ? WHERE id = ?", salt, hash, principal)
		return err
	})
}

// VerifyPassword is the one verifier of both password doors (spec 09
// §4): the break-glass account is compared with the environment in
// constant time, everyone else with the stored hash. An unknown user, a
// principal without a password and a wrong password all answer false,
// after the same work.
func (r *Registry) VerifyPassword(ctx context.Context, user, password string) (bool, error) {
	if r.IsBreakGlass(user) {
		checkPassword(password, "", "") // the same work as a stored hash
		// Digests first: ConstantTimeCompare returns early on a length
		// mismatch, which would time the environment password's length.
		got, want := sha256.Sum256([]byte(password)), sha256.Sum256([]byte(r.glass.Password))
		return subtle.ConstantTimeCompare(got[:], want[:]) == 1, nil
	}
	var salt, hash sql.NullString
	err := r.db.QueryRowContext(ctx, "SELECT pw_salt, pw_hash FROM principals WHERE id = ?", user).Scan(&salt, &hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	ok := checkPassword(password, salt.String, hash.String)
	return ok && password != "" && hash.Valid, nil
}

// Login verifies a password and opens a session for it: ErrInvalidLogin
// when the password does not verify, whatever the reason. Rate limiting
// belongs to the door that calls it.
func (r *Registry) Login(ctx context.Context, user, password string) (Session, error) {
	ok, err := r.VerifyPassword(ctx, user, password)
	if err != nil {
		return Session{}, err
	}
	if !ok {
		return Session{}, ErrInvalidLogin()
	}
	return r.OpenSession(ctx, user)
}
