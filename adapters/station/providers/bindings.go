// SPDX-License-Identifier: Apache-2.0

package providers

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
)

// The built-in roles (09 §8, 11 L.6), in the order listings give them.
const (
	RoleIngest = "ingest"
	RoleAnswer = "answer"
	RoleVision = "vision"
	RoleEmbed  = "embed"
)

// Token defaults of a binding (v0.63): answer replies get more room.
const (
	DefaultMaxTokens = 600
	AnswerMaxTokens  = 1500
)

// Role is one bindable role as GET /v1/admin/models lists it: consoles
// render from this catalogue, never from a constant of their own.
type Role struct {
	Role        string `json:"role"`
	Kind        string `json:"kind"` // chat, embed, vision, transcribe, rerank
	Builtin     bool   `json:"builtin"`
	Ext         string `json:"ext,omitempty"` // the extension that registers it
	Description string `json:"description"`
}

// Roles is the catalogue of bindable roles, built-ins first.
func Roles() []Role {
	return []Role{
		{Role: RoleIngest, Kind: "chat", Builtin: true, Description: "curates what the Gardener ingests: summaries, tags, aliases, branch rollups"},
		{Role: RoleAnswer, Kind: "chat", Builtin: true, Description: "writes the answer composite's replies from the evidence it walked"},
		{Role: RoleVision, Kind: "vision", Builtin: true, Description: "describes images and transcribes their legible text at ingest"},
		{Role: RoleEmbed, Kind: "embed", Builtin: true, Description: "embeds nodes for Canopy: hybrid locate and the Gauntlet"},
	}
}

// SetExtraRoles makes the roles extra lists bindable after the
// built-ins (spec 11 L.6: every role a loaded extension registers); a
// name that repeats a built-in is ignored.
func (s *Store) SetExtraRoles(extra func() []Role) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extra = extra
}

// Roles is the store's catalogue: the built-ins, then the extensions'.
func (s *Store) Roles() []Role {
	out := Roles()
	s.mu.RLock()
	extra := s.extra
	s.mu.RUnlock()
	if extra == nil {
		return out
	}
	for _, r := range extra() {
		if !slices.ContainsFunc(out, func(x Role) bool { return x.Role == r.Role }) {
			out = append(out, r)
		}
	}
	return out
}

// Binding is a forest's choice of provider and model for one role.
type Binding struct {
	Forest    string `json:"forest"`
	Role      string `json:"role"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Reasoning string `json:"reasoning"` // "on" or "off"
}

// Bindings lists forest's bindings in the catalogue's role order.
func (s *Store) Bindings(ctx context.Context, forest string) ([]Binding, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT forest, role, provider, model, max_tokens, reasoning
		FROM model_bindings WHERE forest = ? ORDER BY role`, forest)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Binding{}
	for rows.Next() {
		var b Binding
		if err := rows.Scan(&b.Forest, &b.Role, &b.Provider, &b.Model, &b.MaxTokens, &b.Reasoning); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sortByRole(out, s.Roles())
	return out, nil
}

// sortByRole orders bindings as the catalogue orders roles.
func sortByRole(bs []Binding, roles []Role) {
	rank := func(b Binding) int {
		i := slices.IndexFunc(roles, func(r Role) bool { return r.Role == b.Role })
		if i < 0 {
			return len(roles)
		}
		return i
	}
	slices.SortStableFunc(bs, func(a, b Binding) int { return cmp.Compare(rank(a), rank(b)) })
}

// Bind sets b, filling the defaults: max_tokens 600 (1500 for answer)
// and reasoning off. The role must be in the catalogue and the provider
// known; any model name is accepted (an unadvertised one stays bindable).
func (s *Store) Bind(ctx context.Context, b Binding) error {
	if err := checkRole(s.Roles(), b.Role); err != nil {
		return err
	}
	if strings.TrimSpace(b.Model) == "" {
		return &vine.Error{Code: vine.ESchema, Message: "binding requires a 'model' (string)"}
	}
	switch {
	case b.MaxTokens < 0:
		return &vine.Error{Code: vine.ESchema, Message: "max_tokens must be a positive integer"}
	case b.MaxTokens == 0 && b.Role == RoleAnswer:
		b.MaxTokens = AnswerMaxTokens
	case b.MaxTokens == 0:
		b.MaxTokens = DefaultMaxTokens
	}
	switch b.Reasoning {
	case "":
		b.Reasoning = "off"
	case "on", "off":
	default:
		return &vine.Error{Code: vine.ESchema, Message: "reasoning must be 'on' or 'off'"}
	}
	return inTx(ctx, s.db, func(tx *sql.Tx) error {
		if _, found, err := s.get(ctx, tx, b.Provider); err != nil || !found {
			return errors.Join(err, unknownIfNil(err, b.Provider))
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO model_bindings (forest, role, provider, model, max_tokens, reasoning)
			VALUES (?, ?, ?, ?, ?, ?)`, b.Forest, b.Role, b.Provider, b.Model, b.MaxTokens, b.Reasoning)
		return err
	})
}

func unknownIfNil(err error, name string) error {
	if err != nil {
		return nil
	}
	return unknownProvider(name)
}

// Unbind removes forest's binding of role; removing one never set is
// not an error.
func (s *Store) Unbind(ctx context.Context, forest, role string) error {
	if err := checkRole(s.Roles(), role); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, "DELETE FROM model_bindings WHERE forest = ? AND role = ?", forest, role)
	return err
}

func checkRole(roles []Role, role string) error {
	names := []string{}
	for _, r := range roles {
		if r.Role == role {
			return nil
		}
		names = append(names, r.Role)
	}
	return &vine.Error{Code: vine.ESchema, Message: "unknown role: " + role,
		Hint: "accepted roles: " + strings.Join(names, ", ")}
}

// Model is what a binding resolves to: where to call, with which key,
// model and limits.
type Model struct {
	Provider  string
	Endpoint  string
	APIKey    string
	Model     string
	MaxTokens int
	Reasoning bool
}

// Resolve is forest's binding of role with its provider's endpoint and
// key; found is false when the role is not bound there.
func (s *Store) Resolve(ctx context.Context, forest, role string) (m Model, found bool, err error) {
	var reasoning string
	err = s.db.QueryRowContext(ctx, `SELECT provider, model, max_tokens, reasoning FROM model_bindings
		WHERE forest = ? AND role = ?`, forest, role).Scan(&m.Provider, &m.Model, &m.MaxTokens, &reasoning)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, err
	}
	p, found, err := s.get(ctx, s.db, m.Provider)
	if err != nil || !found {
		return m, false, err
	}
	m.Endpoint, m.APIKey, m.Reasoning = p.endpoint, p.key, reasoning == "on"
	return m, true, nil
}
