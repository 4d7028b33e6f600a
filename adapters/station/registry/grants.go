// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// DefaultGrantCaps are the caps of a grant that names none (spec 09
// §17.9), as stored: read without answer would silently lose ask.
func DefaultGrantCaps() []vine.Capability { return []vine.Capability{vine.CapAnswer, vine.CapRead} }

// Grant is one principal's policy on one forest (spec 08 §7.1), as
// stored: caps sorted, allow and deny normalised ("sales/", "" for the
// whole forest), tables a per-dataset allow-list.
type Grant struct {
	Forest string              `json:"forest"`
	Caps   []vine.Capability   `json:"caps"`
	Allow  []string            `json:"allow"`
	Deny   []string            `json:"deny"`
	Tables map[string][]string `json:"tables"`
}

// Policy is the grant as the engine enforces it.
func (g Grant) Policy() vine.Policy {
	p := vine.Policy{Allow: slices.Clone(g.Allow), Deny: slices.Clone(g.Deny), Caps: slices.Clone(g.Caps)}
	if len(g.Tables) > 0 {
		p.Datasets = make(map[string]vine.DatasetGrant, len(g.Tables))
		for ds, t := range g.Tables {
			p.Datasets[ds] = vine.DatasetGrant{Tables: slices.Clone(t)}
		}
	}
	return p
}

// Holds reports whether the grant carries c, admin implying every cap.
func (g Grant) Holds(c vine.Capability) bool { return slices.Contains(keys.Expand(g.Caps), c) }

// SetGrant sets (replacing any) principal's grant on g.Forest and
// returns it as stored; the principal is created (a service) if needed.
// Empty caps are DefaultGrantCaps; unknown caps are E_SCHEMA "unknown
// capabilities: [...]". The policy is built and checked before anything
// is written, so a grant the engine could not enforce fails here: a glob,
// a traversal, a whole-forest deny, an empty dataset or table name.
func (r *Registry) SetGrant(ctx context.Context, principal string, g Grant) (Grant, error) {
	if err := checkID(principal); err != nil {
		return Grant{}, err
	}
	g, err := normalizeGrant(g)
	if err != nil {
		return Grant{}, err
	}
	err = r.immediate(ctx, func(tx *sql.Tx) error {
		if err := r.ensurePrincipal(ctx, tx, principal, KindService); err != nil {
			return err
		}
		return putGrant(ctx, tx, principal, g)
	})
	return g, err
}

// putGrant writes a normalised grant.
func putGrant(ctx context.Context, tx *sql.Tx, principal string, g Grant) error {
	caps := make([]string, len(g.Caps))
	for i, c := range g.Caps {
		caps[i] = string(c)
	}
	allow, _ := json.Marshal(g.Allow)
	deny, _ := json.Marshal(g.Deny)
	tables, _ := json.Marshal(g.Tables)
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO grants (principal, forest, caps, allow, deny, tables)
VALUES (?,?,?,?,?,?)`, principal, g.Forest, strings.Join(caps, ","), string(allow), string(deny), string(tables))
	return err
}

// normalizeGrant validates g and returns it in its stored form.
func normalizeGrant(g Grant) (Grant, error) {
	g.Forest = strings.TrimSpace(g.Forest)
	if g.Forest == "" {
		return Grant{}, errForestRequired()
	}
	if len(g.Caps) == 0 {
		g.Caps = DefaultGrantCaps()
	}
	names, err := capNames(g.Caps)
	if err != nil {
		return Grant{}, err
	}
	out := Grant{Forest: g.Forest, Caps: make([]vine.Capability, len(names)), Tables: map[string][]string{}}
	for i, n := range names {
		out.Caps[i] = vine.Capability(n)
	}
	if out.Allow, err = normPrefixes("allow", g.Allow, true); err != nil {
		return Grant{}, err
	}
	if out.Deny, err = normPrefixes("deny", g.Deny, false); err != nil {
		return Grant{}, err
	}
	for _, ds := range slices.Sorted(maps.Keys(g.Tables)) {
		id := strings.Trim(strings.TrimSpace(ds), "/")
		if id == "" {
			return Grant{}, schemaErr("tables: a dataset id is empty", tablesHint)
		}
		t := []string{}
		for _, name := range g.Tables[ds] {
			if name = strings.TrimSpace(name); name == "" {
				return Grant{}, schemaErr(fmt.Sprintf("tables: %s names an empty table", id), tablesHint)
			}
			if !slices.Contains(t, name) {
				t = append(t, name)
			}
		}
		out.Tables[id] = t
	}
	return out, nil
}

const (
	prefixHint = `a prefix is a branch folder from the forest root, such as sales/ or ops/runbooks/; "" is the whole forest`
	tablesHint = "tables maps a dataset node id to the tables a grant may query, such as {\"sales/q1\": [\"orders\"]}"
)

// normPrefixes checks each prefix with vine.CheckPrefix and normalises it
// as the engine does (trimmed, no leading "/", a trailing one; "" the
// whole forest). An allow holding the whole forest is exactly [""]; an
// empty allow is the whole forest too. A deny of the whole forest hides
// nothing the engine would enforce and is refused as the typo it is.
func normPrefixes(field string, in []string, allow bool) ([]string, error) {
	out := []string{}
	for _, p := range in {
		if err := vine.CheckPrefix(p); err != nil {
			return nil, schemaErr(fmt.Sprintf("%s %q %v", field, p, err), prefixHint)
		}
		n := strings.Trim(strings.TrimSpace(p), "/")
		if n == "" {
			if !allow {
				return nil, schemaErr(fmt.Sprintf("deny %q is empty and hides nothing", p),
					"remove it, or revoke the grant to hide the whole forest")
			}
			return []string{""}, nil
		}
		if n += "/"; !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if allow && len(out) == 0 {
		return []string{""}, nil
	}
	return out, nil
}

// RevokeGrant removes principal's grant on forest; removed is false when
// there was none.
func (r *Registry) RevokeGrant(ctx context.Context, principal, forest string) (removed bool, err error) {
	if err := checkID(principal); err != nil {
		return false, err
	}
	if strings.TrimSpace(forest) == "" {
		return false, errForestRequired()
	}
	err = r.immediate(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM grants WHERE principal = ? AND forest = ?", principal, forest)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		removed = n > 0
		return err
	})
	return removed, err
}

// Grants lists principal's grants, by forest. A stored grant that no
// longer reads (a hand edit) is skipped and logged: it grants nothing.
func (r *Registry) Grants(ctx context.Context, principal string) ([]Grant, error) {
	rows, err := r.db.QueryContext(ctx,
		"SELECT forest, caps, allow, deny, tables FROM grants WHERE principal = ? ORDER BY forest", principal)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Grant{}
	for rows.Next() {
		var forest, caps, allow, deny, tables string
		if err := rows.Scan(&forest, &caps, &allow, &deny, &tables); err != nil {
			return nil, err
		}
		g, err := readGrant(forest, caps, allow, deny, tables)
		if err != nil {
			r.log.Error("registry: an unreadable grant grants nothing", "principal", principal, "forest", forest, "err", err)
			continue
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// readGrant decodes a stored row. Unknown caps are dropped (they grant
// nothing the engine knows); prefixes are re-normalised, so a row written
// by the reference, which stored them as given, reads as this package
// would have written it.
func readGrant(forest, caps, allow, deny, tables string) (Grant, error) {
	g := Grant{Forest: forest, Caps: []vine.Capability{}}
	for _, c := range strings.Split(caps, ",") {
		if cap := vine.Capability(strings.TrimSpace(c)); slices.Contains(keys.AllCaps, cap) && !slices.Contains(g.Caps, cap) {
			g.Caps = append(g.Caps, cap)
		}
	}
	slices.Sort(g.Caps)
	var a, d []string
	if err := json.Unmarshal([]byte(allow), &a); err != nil {
		return Grant{}, fmt.Errorf("allow: %w", err)
	}
	if err := json.Unmarshal([]byte(deny), &d); err != nil {
		return Grant{}, fmt.Errorf("deny: %w", err)
	}
	if err := json.Unmarshal([]byte(tables), &g.Tables); err != nil {
		return Grant{}, fmt.Errorf("tables: %w", err)
	}
	if g.Tables == nil {
		g.Tables = map[string][]string{}
	}
	var err error
	if g.Allow, err = normPrefixes("allow", a, true); err != nil {
		return Grant{}, err
	}
	// A stored whole-forest deny hides nothing (the engine drops it).
	d = slices.DeleteFunc(d, func(p string) bool { return strings.Trim(strings.TrimSpace(p), "/") == "" })
	if g.Deny, err = normPrefixes("deny", d, false); err != nil {
		return Grant{}, err
	}
	return g, nil
}

// allCapsSorted is every capability, as a grant stores them.
func allCapsSorted() []vine.Capability {
	c := slices.Clone(keys.AllCaps)
	slices.Sort(c)
	return c
}
