// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// Key kinds: an API key is minted and managed; a session is what a
// password door mints, never listed.
const (
	KindAPI     = "api"
	KindSession = "session"
)

// SessionLife is how long a session key lives (spec 09 §3).
const SessionLife = 12 * time.Hour

// prefixLen is how much of a secret a row keeps to recognise it.
const prefixLen = 9

// MintOptions describe a key to mint.
type MintOptions struct {
	// Label names the key for whoever revokes it; sessions are labelled
	// "session" whatever this says.
	Label string
	// Kind is KindAPI (the default) or KindSession.
	Kind string
	// Mask, when non-nil, narrows every grant at the moment of use; nil
	// is unmasked, empty is a key that can do nothing. Sessions are
	// always unmasked.
	Mask []vine.Capability
	// ExpiresIn is the key's life: zero is keys.DefaultExpiry (90 days);
	// negative or beyond keys.MaxExpiry (365 days) is E_SCHEMA, never
	// clamped. Sessions always live SessionLife.
	ExpiresIn time.Duration
}

// Minted is a new key: the secret, shown once and never again, and its
// stored row.
type Minted struct {
	Secret string
	Key    Key
}

// Key is one stored key as a listing shows it: never the secret.
type Key struct {
	// ID is the secret's SHA-256 hex: the listing id and the revocation
	// handle.
	ID         string `json:"id"`
	Principal  string `json:"principal"`
	Label      string `json:"label"`
	Kind       string `json:"-"`
	Created    string `json:"created"`
	Prefix     string `json:"prefix"`
	ExpiresAt  string `json:"expires_at"`
	RevokedAt  string `json:"revoked_at,omitempty"`
	LastUsedAt string `json:"last_used_at,omitempty"`
	// Caps is the mask, nil when unmasked.
	Caps []vine.Capability `json:"caps,omitempty"`
	// Status is keys.StatusActive, StatusRevoked or StatusExpired.
	Status string `json:"status"`
}

// Mint makes a key for principal, creating the principal (a service) when
// it does not exist. Only the digest is stored.
func (r *Registry) Mint(ctx context.Context, principal string, opt MintOptions) (Minted, error) {
	var m Minted
	err := r.immediate(ctx, func(tx *sql.Tx) error {
		var err error
		m, err = r.mintTx(ctx, tx, principal, opt)
		return err
	})
	return m, err
}

// lifeOf is the validated life of a key of opt.
func lifeOf(opt MintOptions) (time.Duration, error) {
	switch {
	case opt.Kind == KindSession:
		return SessionLife, nil
	case opt.ExpiresIn == 0:
		return keys.DefaultExpiry, nil
	case opt.ExpiresIn < 0:
		return 0, errExpiry("must be positive")
	case opt.ExpiresIn > keys.MaxExpiry:
		return 0, errExpiry("must be at most 365")
	}
	return opt.ExpiresIn, nil
}

func (r *Registry) mintTx(ctx context.Context, tx *sql.Tx, principal string, opt MintOptions) (Minted, error) {
	if err := checkID(principal); err != nil {
		return Minted{}, err
	}
	if opt.Kind == "" {
		opt.Kind = KindAPI
	}
	if opt.Kind != KindAPI && opt.Kind != KindSession {
		return Minted{}, schemaErr("unknown key kind: "+opt.Kind, "a key is api or session")
	}
	life, err := lifeOf(opt)
	if err != nil {
		return Minted{}, err
	}
	var mask any // NULL: unmasked
	var stored []vine.Capability
	if opt.Kind == KindSession {
		opt.Label = "session"
	} else if opt.Mask != nil {
		names, err := capNames(opt.Mask)
		if err != nil {
			return Minted{}, err
		}
		b, _ := json.Marshal(names)
		mask = string(b)
		stored = []vine.Capability{}
		for _, n := range names {
			stored = append(stored, vine.Capability(n))
		}
	}
	secret, err := keys.NewSecret()
	if err != nil {
		return Minted{}, err
	}
	now := r.now()
	k := Key{ID: keys.Digest(secret), Principal: principal, Label: opt.Label, Kind: opt.Kind,
		Created: formatTime(now), Prefix: secret[:prefixLen], ExpiresAt: formatTime(now.Add(life)),
		Caps: stored, Status: keys.StatusActive}
	kind := KindService
	if opt.Kind == KindSession {
		kind = KindUser
		// Opportunistic: expired sessions are nobody's business to list.
		if _, err := tx.ExecContext(ctx, "DELETE FROM api_keys WHERE kind = 'session' AND expires_at <= ?", k.Created); err != nil {
			return Minted{}, err
		}
	}
	if err := r.ensurePrincipal(ctx, tx, principal, kind); err != nil {
		return Minted{}, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO api_keys (key_hash, principal, label, created, prefix, kind, expires_at, caps)
VALUES (?,?,?,?,?,?,?,?)`, k.ID, principal, nullIfEmpty(k.Label), k.Created, k.Prefix, k.Kind, k.ExpiresAt, mask)
	if err != nil {
		return Minted{}, err
	}
	return Minted{Secret: secret, Key: k}, nil
}

// capNames checks caps and returns them deduplicated, sorted, as stored.
func capNames(caps []vine.Capability) ([]string, error) {
	var names, unknown []string
	for _, c := range caps {
		switch {
		case !slices.Contains(keys.AllCaps, c):
			unknown = append(unknown, string(c))
		case !slices.Contains(names, string(c)):
			names = append(names, string(c))
		}
	}
	if unknown != nil {
		slices.Sort(unknown)
		return nil, errUnknownCaps(slices.Compact(unknown))
	}
	slices.Sort(names)
	if names == nil {
		names = []string{}
	}
	return names, nil
}

const keyColumns = `key_hash, principal, COALESCE(label, ''), kind, created, COALESCE(prefix, ''),
  COALESCE(expires_at, ''), COALESCE(revoked_at, ''), COALESCE(last_used_at, ''), caps`

// ListKeys lists API keys, newest first, never sessions: those of the
// given principals, or of everyone when principals is nil (an empty,
// non-nil list matches nobody). The host passes the principals the caller
// fully administers.
func (r *Registry) ListKeys(ctx context.Context, principals []string) ([]Key, error) {
	q, args := "SELECT "+keyColumns+" FROM api_keys WHERE kind = 'api'", []any{}
	if principals != nil {
		if len(principals) == 0 {
			return []Key{}, nil
		}
		q += " AND principal IN (?" + strings.Repeat(",?", len(principals)-1) + ")"
		for _, p := range principals {
			args = append(args, p)
		}
	}
	rows, err := r.db.QueryContext(ctx, q+" ORDER BY created DESC, rowid DESC", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	now, out := r.now(), []Key{}
	for rows.Next() {
		k, err := scanKey(rows, now)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func scanKey(row interface{ Scan(...any) error }, now time.Time) (Key, error) {
	var k Key
	var mask sql.NullString
	if err := row.Scan(&k.ID, &k.Principal, &k.Label, &k.Kind, &k.Created, &k.Prefix,
		&k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt, &mask); err != nil {
		return Key{}, err
	}
	k.Caps, _ = parseMask(mask)
	k.Status = status(k, now)
	return k, nil
}

// status is revoked, expired or active. A row without expires_at (an
// imported reference key, minted to live forever) expires 365 days after
// it was created: every key expires (spec 09 §17.1).
func status(k Key, now time.Time) string {
	if k.RevokedAt != "" {
		return keys.StatusRevoked
	}
	if exp, ok := expiry(k.ExpiresAt, k.Created); !ok || !exp.After(now) {
		return keys.StatusExpired
	}
	return keys.StatusActive
}

func expiry(expiresAt, created string) (time.Time, bool) {
	if expiresAt != "" {
		return parseTime(expiresAt)
	}
	c, ok := parseTime(created)
	return c.Add(keys.MaxExpiry), ok
}

// parseMask reads a stored mask: NULL or "" is unmasked (nil); a JSON
// list keeps the capabilities it names that exist. ok is false when the
// text is not a list, and the key must then do nothing.
func parseMask(s sql.NullString) (mask []vine.Capability, ok bool) {
	if !s.Valid || s.String == "" {
		return nil, true
	}
	var names []string
	if err := json.Unmarshal([]byte(s.String), &names); err != nil {
		return []vine.Capability{}, false
	}
	mask = []vine.Capability{}
	for _, n := range names {
		if c := vine.Capability(n); slices.Contains(keys.AllCaps, c) {
			mask = append(mask, c)
		}
	}
	return mask, true
}

// KeyOwner is the principal a key belongs to, so a caller can authorise
// before revoking. An unknown id is E_NOT_FOUND "no such token".
func (r *Registry) KeyOwner(ctx context.Context, id string) (string, error) {
	var p string
	err := r.db.QueryRowContext(ctx, "SELECT principal FROM api_keys WHERE key_hash = ?", id).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", errNoSuchToken()
	}
	return p, err
}

// RevokeKey revokes one key by its id and returns the key as it now
// stands. Revoking a revoked key keeps its first time. An unknown id is
// E_NOT_FOUND "no such token".
func (r *Registry) RevokeKey(ctx context.Context, id string) (Key, error) {
	var k Key
	err := r.immediate(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL",
			r.stamp(), id); err != nil {
			return err
		}
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE key_hash = ?", id), r.now())
		if errors.Is(err, sql.ErrNoRows) {
			return errNoSuchToken()
		}
		return err
	})
	return k, err
}

// RevokeKeys revokes keys of principal and returns the keys it revoked:
// every key, sessions included (spec 09 §17.14), when ids is nil; else
// those of ids that belong to principal, the others ignored.
func (r *Registry) RevokeKeys(ctx context.Context, principal string, ids []string) ([]Key, error) {
	if err := checkID(principal); err != nil {
		return nil, err
	}
	out := []Key{}
	err := r.immediate(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE principal = ? AND revoked_at IS NULL", principal)
		if err != nil {
			return err
		}
		now := r.now()
		for rows.Next() {
			k, err := scanKey(rows, now)
			if err != nil {
				rows.Close()
				return err
			}
			if ids == nil || slices.Contains(ids, k.ID) {
				k.RevokedAt, k.Status = formatTime(now), keys.StatusRevoked
				out = append(out, k)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, k := range out {
			if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?", k.RevokedAt, k.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}
