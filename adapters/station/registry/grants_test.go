// SPDX-License-Identifier: Apache-2.0

package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

func TestSetGrant(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, nil)
	tests := []struct {
		name      string
		principal string
		in        registry.Grant
		want      registry.Grant
		refusal   string
	}{
		{"defaults: read and answer over the whole forest", "p", registry.Grant{Forest: "acme"},
			registry.Grant{Forest: "acme", Caps: caps(an, rd), Allow: []string{""}, Deny: []string{}, Tables: map[string][]string{}}, ""},
		{"prefixes normalised, duplicates dropped, caps sorted", "p",
			registry.Grant{Forest: " acme ", Caps: caps(wr, rd, rd), Allow: []string{"/sales", "sales/", " ops/runbooks "},
				Deny: []string{"sales/payroll"}, Tables: map[string][]string{"/sales/q1/": {"orders", " orders", "lines"}}},
			registry.Grant{Forest: "acme", Caps: caps(rd, wr), Allow: []string{"sales/", "ops/runbooks/"},
				Deny: []string{"sales/payroll/"}, Tables: map[string][]string{"sales/q1": {"orders", "lines"}}}, ""},
		{"the whole forest wins inside allow", "p", registry.Grant{Forest: "acme", Allow: []string{"sales/", ""}},
			registry.Grant{Forest: "acme", Caps: caps(an, rd), Allow: []string{""}, Deny: []string{}, Tables: map[string][]string{}}, ""},
		{"unknown caps", "p", registry.Grant{Forest: "acme", Caps: caps(rd, "sudo", "fly")}, registry.Grant{},
			"unknown capabilities: [fly, sudo]"},
		{"a glob", "p", registry.Grant{Forest: "acme", Allow: []string{"sales/*"}}, registry.Grant{},
			`allow "sales/*" is a glob: prefixes match literally, so sales/* matches nothing; write sales/`},
		{"a traversal", "p", registry.Grant{Forest: "acme", Deny: []string{"../x"}}, registry.Grant{},
			`deny "../x" has a ".." segment: prefixes are literal ids from the forest root, never relative paths`},
		{"an index id", "p", registry.Grant{Forest: "acme", Allow: []string{"sales/_index"}}, registry.Grant{},
			`allow "sales/_index" ends in _index, an index id: the prefix of a branch is its folder, such as sales/`},
		{"a whole-forest deny", "p", registry.Grant{Forest: "acme", Deny: []string{"/"}}, registry.Grant{},
			`deny "/" is empty and hides nothing`},
		{"an empty table name", "p", registry.Grant{Forest: "acme", Tables: map[string][]string{"sales/q1": {" "}}}, registry.Grant{},
			"tables: sales/q1 names an empty table"},
		{"an empty dataset id", "p", registry.Grant{Forest: "acme", Tables: map[string][]string{"/": {"t"}}}, registry.Grant{},
			"tables: a dataset id is empty"},
		{"no forest", "p", registry.Grant{}, registry.Grant{}, "parameter 'forest' is required"},
		{"no principal", " ", registry.Grant{Forest: "acme"}, registry.Grant{}, "principal is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.SetGrant(ctx, tt.principal, tt.in)
			if tt.refusal != "" {
				assert.Equal(t, vine.ESchema, code(err))
				assert.Equal(t, tt.refusal, message(t, err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			stored, err := r.Grants(ctx, tt.principal)
			require.NoError(t, err)
			require.Len(t, stored, 1, "one grant per principal × forest, replaced")
			assert.Equal(t, tt.want, stored[0], "what is stored reads back as returned")
		})
	}
	assert.Equal(t, 0, one[int](t, r.DB(), "SELECT COUNT(*) FROM principals WHERE id = ' '"), "a refused grant writes nothing")
}

func TestGrantPolicy(t *testing.T) {
	g := registry.Grant{Forest: "acme", Caps: caps(qu, rd), Allow: []string{"sales/"}, Deny: []string{"sales/payroll/"},
		Tables: map[string][]string{"sales/q1": {"orders"}}}
	assert.Equal(t, vine.Policy{Allow: []string{"sales/"}, Deny: []string{"sales/payroll/"}, Caps: caps(qu, rd),
		Datasets: map[string]vine.DatasetGrant{"sales/q1": {Tables: []string{"orders"}}}}, g.Policy())
	assert.True(t, g.Holds(rd))
	assert.False(t, g.Holds(ad))
	assert.True(t, registry.Grant{Caps: caps(ad)}.Holds(an), "admin implies every cap")
}

func TestRoles(t *testing.T) {
	want := map[string][]vine.Capability{
		"reader":  caps(rd, an),
		"analyst": caps(rd, qu, an),
		"editor":  caps(rd, wr, qu, te, an),
		"curator": caps(rd, wr, qu, te, in, an),
		"owner":   caps(rd, wr, qu, te, in, ad, an),
	}
	var names []string
	for _, role := range registry.Roles() {
		names = append(names, role.Name)
		assert.Equal(t, want[role.Name], role.Caps, role.Name)
		assert.Contains(t, role.Caps, an, "answer wherever read is")
		got, ok := registry.RoleCaps(role.Name)
		assert.True(t, ok)
		assert.Equal(t, role.Caps, got)
	}
	assert.Equal(t, []string{"reader", "analyst", "editor", "curator", "owner"}, names)
	_, ok := registry.RoleCaps("gardener")
	assert.False(t, ok, "J.2's names are not wire tokens")
}

func TestSettings(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, nil)
	type cache struct {
		Enabled    bool `json:"enabled"`
		MaxEntries int  `json:"max_entries"`
	}
	var got cache
	found, err := r.Setting(ctx, "acme", "answer_cache", &got)
	require.NoError(t, err)
	assert.False(t, found)
	require.NoError(t, r.SetSetting(ctx, "acme", "answer_cache", cache{true, 500}))
	require.NoError(t, r.SetSetting(ctx, "acme", "answer_cache", cache{false, 40}))
	found, err = r.Setting(ctx, "acme", "answer_cache", &got)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, cache{false, 40}, got)
}

func TestPrincipals(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	r, _ := open(t, &registry.Options{Now: c.Now})
	_, err := r.Setup(ctx, "ada", goodPassword, "")
	require.NoError(t, err)
	m, err := r.Mint(ctx, "svc", registry.MintOptions{})
	require.NoError(t, err)
	_, err = r.Mint(ctx, "svc", registry.MintOptions{})
	require.NoError(t, err)
	_, ok := r.Resolve(ctx, m.Secret)
	require.True(t, ok)
	registry.FlushUsage(r)
	got, err := r.Principals(ctx)
	require.NoError(t, err)
	assert.Equal(t, []registry.Principal{
		{ID: "ada", Kind: "user", Created: "2026-03-01T12:00:00Z", HasPassword: true, Owner: true},
		{ID: "svc", Kind: "service", Created: "2026-03-01T12:00:00Z", Keys: 2, LastSeen: "2026-03-01T12:00:00Z"},
	}, got)
}
