// SPDX-License-Identifier: Apache-2.0

package providers

import (
	"cmp"
	"context"
	"database/sql"
	"net/url"
	"slices"
)

// EnvProvider is a provider the deployment's environment declares
// (J.10.1): MONKEYLLM_LLM_{PROVIDER,ENDPOINT,API_KEY} for Role "llm",
// MONKEYLLM_EMBED_{…} for Role "embed".
type EnvProvider struct {
	Role     string // "llm" or "embed": the variables' family
	Name     string // …_PROVIDER; "" names it by the endpoint's host[:port]
	Endpoint string // …_ENDPOINT; "" declares nothing
	APIKey   string // …_API_KEY, kept in memory only
}

// vars names the variables of p's family, for refusals.
func (p EnvProvider) vars() string {
	if p.Role == "embed" {
		return "MONKEYLLM_EMBED_PROVIDER, MONKEYLLM_EMBED_ENDPOINT, MONKEYLLM_EMBED_API_KEY"
	}
	return "MONKEYLLM_LLM_PROVIDER, MONKEYLLM_LLM_ENDPOINT, MONKEYLLM_LLM_API_KEY"
}

// envRow is a published environment provider.
type envRow struct {
	endpoint, key, vars string
}

// envRows names the declared providers: the explicit name or the
// endpoint's host[:port]; one row for the same endpoint and key; a name
// two different declarations want becomes <name>-<role>.
func envRows(decl []EnvProvider) map[string]envRow {
	out := map[string]envRow{}
	for _, p := range decl {
		if p.Endpoint == "" {
			continue
		}
		name := cmp.Or(p.Name, hostOf(p.Endpoint))
		row := envRow{endpoint: p.Endpoint, key: p.APIKey, vars: p.vars()}
		if have, ok := out[name]; ok {
			if have.endpoint == row.endpoint && have.key == row.key {
				continue
			}
			name += "-" + p.Role
		}
		out[name] = row
	}
	return out
}

func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return endpoint
}

// publish writes the environment's providers as origin "env" rows
// without their keys, and turns rows the environment no longer declares
// into keyless console rows, their bindings kept.
func (s *Store) publish(ctx context.Context, decl []EnvProvider) error {
	rows := envRows(decl)
	names := make([]string, 0, len(rows))
	for name := range rows {
		names = append(names, name)
	}
	slices.Sort(names)
	err := inTx(ctx, s.db, func(tx *sql.Tx) error {
		if err := withdraw(ctx, tx, names); err != nil {
			return err
		}
		for _, name := range names {
			if _, err := tx.ExecContext(ctx, `INSERT INTO providers (name, endpoint, api_key, created, origin)
				VALUES (?, ?, NULL, ?, 'env')
				ON CONFLICT(name) DO UPDATE SET endpoint = excluded.endpoint, api_key = NULL, origin = 'env'`,
				name, rows[name].endpoint, s.stamp()); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		s.mu.Lock()
		s.env = rows
		s.mu.Unlock()
	}
	return err
}

// withdraw turns the env rows not in declared into keyless console rows.
func withdraw(ctx context.Context, tx *sql.Tx, declared []string) error {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM providers WHERE origin = 'env'")
	if err != nil {
		return err
	}
	var gone []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		if !slices.Contains(declared, name) {
			gone = append(gone, name)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, name := range gone {
		if _, err := tx.ExecContext(ctx, "UPDATE providers SET origin = 'console', api_key = NULL WHERE name = ?", name); err != nil {
			return err
		}
	}
	return nil
}

// envOf is the environment's provider named name, if it is one.
func (s *Store) envOf(name string) (envRow, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.env[name]
	return r, ok
}
