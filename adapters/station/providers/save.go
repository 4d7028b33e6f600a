// SPDX-License-Identifier: Apache-2.0

package providers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/destination"
)

// maxName bounds a provider's name.
const maxName = 64

// List is every provider, sorted by name; never a key.
func (s *Store) List(ctx context.Context) ([]Provider, error) {
	rows, err := s.db.QueryContext(ctx,
		"SELECT name, endpoint, COALESCE(api_key, '') != '', created, origin FROM providers ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Provider{}
	for rows.Next() {
		var p Provider
		if err := rows.Scan(&p.Name, &p.Endpoint, &p.HasKey, &p.Created, &p.Origin); err != nil {
			return nil, err
		}
		if e, ok := s.envOf(p.Name); ok && p.Origin == OriginEnv {
			p.HasKey = e.key != ""
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// stored is a provider's row, key included.
type stored struct {
	endpoint, key, origin string
}

// get reads the provider named name; found is false when there is none.
// An environment provider's key comes from memory.
func (s *Store) get(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) (p stored, found bool, err error) {
	err = q.QueryRowContext(ctx, "SELECT endpoint, COALESCE(api_key, ''), origin FROM providers WHERE name = ?", name).
		Scan(&p.endpoint, &p.key, &p.origin)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	if e, ok := s.envOf(name); ok && p.origin == OriginEnv {
		p.key = e.key
	}
	return p, err == nil, err
}

// Save creates the provider name or changes its endpoint or key. A blank
// key keeps the stored one while the endpoint is unchanged; a keyed
// provider's endpoint changes only with its key supplied again. An
// environment provider refuses every change.
func (s *Store) Save(ctx context.Context, name, endpoint, key string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if _, err := destination.Check(ctx, endpoint, true, nil); err != nil {
		return err
	}
	if err := s.refuseEnv(name); err != nil {
		return err
	}
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		have, found, err := s.get(ctx, tx, name)
		switch {
		case err != nil:
			return err
		case !found:
			_, err = tx.ExecContext(ctx, "INSERT INTO providers (name, endpoint, api_key, created, origin) VALUES (?, ?, ?, ?, 'console')",
				name, endpoint, nullable(key), s.stamp())
			return err
		case key == "" && have.key != "" && endpoint != have.endpoint:
			return &vine.Error{Code: vine.ESchema,
				Message: "changing a provider's endpoint requires supplying its key again",
				Hint:    "a stored key is only ever sent to the endpoint it was given for: send api_key with the new endpoint"}
		case key == "":
			key = have.key
		}
		_, err = tx.ExecContext(ctx, "UPDATE providers SET endpoint = ?, api_key = ? WHERE name = ?", endpoint, nullable(key), name)
		return err
	})
}

// Remove deletes the provider name and every binding that names it.
func (s *Store) Remove(ctx context.Context, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := s.refuseEnv(name); err != nil {
		return err
	}
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM providers WHERE name = ?", name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return unknownProvider(name)
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM model_bindings WHERE provider = ?", name)
		return err
	})
}

func (s *Store) refuseEnv(name string) error {
	if e, ok := s.envOf(name); ok {
		return &vine.Error{Code: vine.ESchema,
			Message: fmt.Sprintf("provider '%s' is declared by the environment (%s)", name, e.vars),
			Hint:    "change or remove it there and restart the Station"}
	}
	return nil
}

func checkName(name string) error {
	bad := name == "" || len(name) > maxName || strings.IndexFunc(name, func(r rune) bool {
		return unicode.IsControl(r) || r == '/'
	}) >= 0
	if bad {
		return &vine.Error{Code: vine.ESchema, Message: "provider requires a 'name' (string, 1..64 characters, no '/')"}
	}
	return nil
}

func unknownProvider(name string) *vine.Error {
	return &vine.Error{Code: vine.ESchema, Message: "unknown provider: " + name,
		Hint: "GET /v1/admin/providers lists the providers; add one with POST /v1/admin/providers"}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
