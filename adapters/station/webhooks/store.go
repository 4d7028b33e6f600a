// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"

	"github.com/monkeyllm/vine"
)

// Webhook is a webhook's public shape (09 §10): never its secret, never
// a header's value.
type Webhook struct {
	ID              string   `json:"id"`
	Scope           string   `json:"scope"`
	Owner           string   `json:"owner"`
	Label           string   `json:"label"`
	URL             string   `json:"url"`
	Events          []string `json:"events"`
	Branches        []string `json:"branches"`
	Headers         []string `json:"headers"`
	IncludeMetadata bool     `json:"include_metadata"`
	Enabled         bool     `json:"enabled"`
	// Suspended is the reason deliveries stopped ("failing",
	// "authority"), or nil.
	Suspended  *string `json:"suspended"`
	FailStreak int     `json:"fail_streak"`
	Created    string  `json:"created"`
	LastStatus *int    `json:"last_status"`
	LastAt     *string `json:"last_at"`
}

// stored is a webhook row with what the public shape withholds.
type stored struct {
	Webhook
	secret  string
	headers map[string]string
}

const selectHook = `SELECT id, scope, owner, label, url, secret, events, branches, headers, include_metadata,
	enabled, suspended, fail_streak, created, last_status, last_at FROM webhooks`

// errNoSuchWebhook is the one answer for a webhook that does not exist
// or lies outside the caller's scopes: the same bytes either way.
func errNoSuchWebhook() *vine.Error {
	return &vine.Error{Code: vine.ENotFound, Message: "no such webhook"}
}

// load reads one webhook; found is false when there is none.
func (h *Hooks) load(ctx context.Context, id string) (stored, bool, error) {
	w, err := scanHook(h.db.QueryRowContext(ctx, selectHook+" WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return stored{}, false, nil
	}
	return w, err == nil, err
}

// inScopes lists the webhooks of the given stored scopes, oldest first.
func (h *Hooks) inScopes(ctx context.Context, scopes []string) ([]stored, error) {
	out := []stored{}
	for _, sc := range scopes {
		rows, err := h.db.QueryContext(ctx, selectHook+" WHERE scope = ? ORDER BY created, id", sc)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			w, err := scanHook(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, w)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanHook(row interface{ Scan(...any) error }) (stored, error) {
	var w stored
	var events, branches, headers string
	var suspended sql.NullString
	var lastStatus sql.NullInt64
	var lastAt sql.NullString
	err := row.Scan(&w.ID, &w.Scope, &w.Owner, &w.Label, &w.URL, &w.secret, &events, &branches, &headers,
		&w.IncludeMetadata, &w.Enabled, &suspended, &w.FailStreak, &w.Created, &lastStatus, &lastAt)
	if err != nil {
		return stored{}, err
	}
	w.Events, w.Branches, w.headers = []string{}, []string{}, map[string]string{}
	if err := errors.Join(json.Unmarshal([]byte(events), &w.Events), json.Unmarshal([]byte(branches), &w.Branches),
		json.Unmarshal([]byte(headers), &w.headers)); err != nil {
		return stored{}, err
	}
	w.Headers = headerNames(w.headers)
	w.Suspended = suspensionOf(suspended)
	if lastStatus.Valid {
		s := int(lastStatus.Int64)
		w.LastStatus = &s
	}
	if lastAt.Valid {
		w.LastAt = &lastAt.String
	}
	return w, nil
}

// suspensionOf reads the suspended column, a reason or the reference's
// 0/1.
func suspensionOf(s sql.NullString) *string {
	switch {
	case !s.Valid || s.String == "" || s.String == "0":
		return nil
	case s.String == "1":
		r := suspendedFailing
		return &r
	}
	return &s.String
}

// The reasons a webhook stops delivering.
const (
	suspendedFailing   = "failing"
	suspendedAuthority = "authority"
)

// put writes a whole webhook row (create or replace).
func (h *Hooks) put(ctx context.Context, w stored) error {
	events, _ := json.Marshal(w.Events)
	branches, _ := json.Marshal(w.Branches)
	headers, _ := json.Marshal(w.headers)
	_, err := h.db.ExecContext(ctx, `INSERT INTO webhooks (id, scope, owner, label, url, secret, events, branches,
		headers, include_metadata, enabled, suspended, fail_streak, created, last_status, last_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, NULL, NULL)
		ON CONFLICT(id) DO UPDATE SET scope = excluded.scope, owner = excluded.owner, label = excluded.label,
		url = excluded.url, events = excluded.events, branches = excluded.branches, headers = excluded.headers,
		include_metadata = excluded.include_metadata, enabled = excluded.enabled, suspended = NULL, fail_streak = 0`,
		w.ID, w.Scope, w.Owner, w.Label, w.URL, w.secret, string(events), string(branches), string(headers),
		w.IncludeMetadata, w.Enabled, w.Created)
	if err != nil {
		return err
	}
	return h.refresh(ctx)
}

// setSuspended records a suspension reason ("" resumes).
func (h *Hooks) setSuspended(ctx context.Context, id, reason string) error {
	var v any
	if reason != "" {
		v = reason
	}
	if _, err := h.db.ExecContext(ctx, "UPDATE webhooks SET suspended = ? WHERE id = ?", v, id); err != nil {
		return err
	}
	return h.refresh(ctx)
}

// remove deletes a webhook and its deliveries.
func (h *Hooks) remove(ctx context.Context, id string) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM webhook_deliveries WHERE webhook = ?", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM webhooks WHERE id = ?", id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return h.refresh(ctx)
}

// newSecret is a signing secret: whsec_ and 43 base64url characters
// (256 bits), shown once.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

// newID is prefix and n random bytes in hex.
func newID(prefix string, n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// hostOf is the destination host an audit row may name: never the path,
// the query, a user or a port's neighbour secret.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "-"
	}
	return u.Hostname()
}
