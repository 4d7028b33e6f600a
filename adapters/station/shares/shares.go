// SPDX-License-Identifier: Apache-2.0

// Package shares keeps the Station's share links (spec 09 §11, J.17): a
// link that opens one node of one forest to anyone holding it, for a
// bounded time, on the authority of the person who issued it.
//
// The registry opens the SQLite file; this package owns the shares
// table in it and migrates it itself:
//
//	store, err := shares.New(ctx, reg.DB(), &shares.Options{})
//	made, err := store.Create(ctx, "acme", "notes/tide", "ana", 7)
//	url := "/s/" + made.Token                  // shown once, never stored
//	sh, ok, err := store.Resolve(ctx, token)   // live rows only
//
// A token is 128 random bits (32 hex, as the reference); only its SHA-256
// hex digest is kept, so no listing or route can ever show it again. A
// share always expires (1 to 90 days, 7 by default). Revoked and expired
// rows are kept, and answer exactly as rows that never existed: Resolve,
// Get and Active see live rows only.
//
// What a share may show is decided when it is served, not here: the
// host re-reads the issuer's authority at every serve, so a lapsed grant
// suspends every share it issued. Every dead state answers [NotFound].
//
// A Store is safe for concurrent use.
package shares

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/monkeyllm/vine"
)

// Lifetime bounds of a share, in days (J.17 rule 4).
const (
	DefaultDays = 7
	MaxDays     = 90
)

// tsLayout is a row's time: ISO-8601 UTC to the second.
const tsLayout = "2006-01-02T15:04:05Z"

// Options configure a Store. The zero value uses the wall clock.
type Options struct {
	// Now is the clock of creation and expiry; nil means time.Now.
	Now func() time.Time
}

// Share is one share row as listed: never its token.
type Share struct {
	ID      string `json:"id"`
	Forest  string `json:"forest"`
	Node    string `json:"node"`
	Issuer  string `json:"issuer"`
	Created string `json:"created"`
	Expires string `json:"expires"`
}

// Created is a share just made, with its token: the only moment the
// token exists outside the link's holder.
type Created struct {
	Share
	Token string
}

// Store is the shares table of one registry file.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// New migrates the shares table in db (additively) and returns its
// Store. ctx bounds the migration only.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	s := &Store{db: db, now: time.Now}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	return s, nil
}

// NotFound is the one answer of every dead link: revoked, expired,
// suspended, unreadable and never-existed alike, so a link's holder
// learns nothing from the refusal (09 §11).
func NotFound() *vine.Error {
	return &vine.Error{Code: vine.ENotFound, Message: "share not found",
		Hint: "The link may have expired or been revoked."}
}

// Days reads a share's requested lifetime: absent or null is
// DefaultDays; anything but a JSON integer from 1 to MaxDays (a boolean,
// a fraction, a string) is refused, never clamped.
func Days(raw json.RawMessage) (int, error) {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return DefaultDays, nil
	}
	var n json.Number
	// A JSON string would decode into a Number too: only a bare number is one.
	if (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) && json.Unmarshal(v, &n) == nil {
		if i, err := n.Int64(); err == nil && i >= 1 && i <= MaxDays {
			return int(i), nil
		}
		if f, err := n.Float64(); err == nil && f == float64(int64(f)) && f >= 1 && f <= MaxDays {
			return int(f), nil // 7.0 is an integer written as JSON may write it
		}
	}
	return 0, badDays()
}

func badDays() *vine.Error {
	return &vine.Error{Code: vine.ESchema, Message: "days must be an integer 1..90",
		Hint: "A share always expires (J.17 rule 4)."}
}

// Create makes a share of node in forest on issuer's authority, living
// days days, and returns it with its token. The caller has checked the
// issuer may read the node.
func (s *Store) Create(ctx context.Context, forest, node, issuer string, days int) (Created, error) {
	if days < 1 || days > MaxDays {
		return Created{}, badDays()
	}
	token, err := randomHex(16)
	if err != nil {
		return Created{}, err
	}
	now := s.now().UTC()
	c := Created{Token: token, Share: Share{Forest: forest, Node: node, Issuer: issuer,
		Created: now.Format(tsLayout), Expires: now.Add(time.Duration(days) * 24 * time.Hour).Format(tsLayout)}}
	for range 3 { // an id collision (48 bits) is retried, never surfaced
		if c.ID, err = newID(); err != nil {
			return Created{}, err
		}
		_, err = s.db.ExecContext(ctx, `INSERT INTO shares (id, token_hash, forest, node, issuer, created, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, c.ID, Digest(token), forest, node, issuer, c.Created, c.Expires)
		if err == nil {
			return c, nil
		}
	}
	return Created{}, err
}

// Resolve finds the live share a token opens: not revoked, not expired.
// ok is false for every other token.
func (s *Store) Resolve(ctx context.Context, token string) (Share, bool, error) {
	return s.one(ctx, `token_hash = ?`, Digest(token))
}

// Get is forest's live share id; ok is false when it is revoked,
// expired, of another forest or unknown.
func (s *Store) Get(ctx context.Context, forest, id string) (Share, bool, error) {
	return s.one(ctx, `id = ? AND forest = ?`, id, forest)
}

// Active lists forest's live shares, newest first: issuer's own, or
// every issuer's when issuer is "".
func (s *Store) Active(ctx context.Context, forest, issuer string) ([]Share, error) {
	where, args := `forest = ?`, []any{forest}
	if issuer != "" {
		where, args = where+` AND issuer = ?`, append(args, issuer)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, forest, node, issuer, created, expires FROM shares
		WHERE `+where+` AND revoked_at IS NULL AND expires > ? ORDER BY created DESC, id`, append(args, s.stamp())...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Share{}
	for rows.Next() {
		var sh Share
		if err := rows.Scan(&sh.ID, &sh.Forest, &sh.Node, &sh.Issuer, &sh.Created, &sh.Expires); err != nil {
			return nil, err
		}
		out = append(out, sh)
	}
	return out, rows.Err()
}

// Revoke ends a live share at once; a share already dead or unknown is
// NotFound.
func (s *Store) Revoke(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE shares SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND expires > ?`,
		s.stamp(), id, s.stamp())
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, NotFound())
	}
	return nil
}

// one reads the live share matching where.
func (s *Store) one(ctx context.Context, where string, args ...any) (Share, bool, error) {
	var sh Share
	err := s.db.QueryRowContext(ctx, `SELECT id, forest, node, issuer, created, expires FROM shares
		WHERE `+where+` AND revoked_at IS NULL AND expires > ?`, append(args, s.stamp())...).
		Scan(&sh.ID, &sh.Forest, &sh.Node, &sh.Issuer, &sh.Created, &sh.Expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Share{}, false, nil
	}
	return sh, err == nil, err
}

func (s *Store) stamp() string { return s.now().UTC().Format(tsLayout) }

// Digest is how a token is kept: its SHA-256, hex.
func Digest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newID is a share's listing id and revocation handle: "sh_" + 12 hex.
func newID() (string, error) {
	h, err := randomHex(6)
	return "sh_" + h, err
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
