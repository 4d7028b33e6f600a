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

// reachFixture: owner "ada"; "alice" admin on acme and zoo; "bob" admin
// on acme, reader on zoo; "carol" reader on acme; "dan" reader on zoo;
// "grantless" has a key and no grant. The forests served are acme and zoo.
func reachFixture(t *testing.T) *registry.Registry {
	t.Helper()
	ctx := context.Background()
	r, _ := open(t, nil)
	_, err := r.Setup(ctx, "ada", goodPassword, "")
	require.NoError(t, err)
	for _, g := range []struct {
		p, f string
		c    []vine.Capability
	}{
		{"alice", "acme", caps(ad)}, {"alice", "zoo", caps(ad)},
		{"bob", "acme", caps(ad)}, {"bob", "zoo", caps(rd)},
		{"carol", "acme", caps(rd)}, {"dan", "zoo", caps(rd)},
	} {
		_, err := r.SetGrant(ctx, g.p, registry.Grant{Forest: g.f, Caps: g.c})
		require.NoError(t, err)
	}
	_, err = r.Mint(ctx, "grantless", registry.MintOptions{})
	require.NoError(t, err)
	return r
}

func TestReach(t *testing.T) {
	ctx := context.Background()
	r := reachFixture(t)
	served := []string{"acme", "zoo"}
	noAdmin := caps(rd, in)

	isAdmin := []struct {
		p, forest string
		mask      []vine.Capability
		want      bool
	}{
		{"ada", "", nil, true}, {"ada", "a-forest-made-later", nil, true}, {"ada", "acme", noAdmin, false},
		{"ada", "acme", caps(ad), true},
		{"alice", "zoo", nil, true}, {"alice", "", nil, true}, {"alice", "other", nil, false},
		{"bob", "acme", nil, true}, {"bob", "zoo", nil, false}, {"bob", "acme", noAdmin, false},
		{"carol", "acme", nil, false}, {"carol", "", nil, false},
		{"grantless", "", nil, false}, {"nobody", "", nil, false},
	}
	for _, tt := range isAdmin {
		got, err := r.IsAdmin(ctx, tt.p, tt.forest, tt.mask)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "IsAdmin(%s, %q, %v)", tt.p, tt.forest, tt.mask)
	}

	administered := map[string]registry.Reach{
		"ada":    {Every: true},
		"alice":  {Forests: []string{"acme", "zoo"}},
		"bob":    {Forests: []string{"acme"}},
		"carol":  {Forests: []string{}},
		"nobody": {Forests: []string{}},
	}
	for p, want := range administered {
		got, err := r.Administered(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, want, got, "Administered(%s)", p)
	}
	assert.True(t, registry.Reach{Every: true}.Has("anything"))

	fully := []struct {
		p, target string
		want      bool
	}{
		{"ada", "alice", true}, {"ada", "grantless", true}, {"ada", "ada", true},
		{"alice", "ada", false},       // only the owner administers the owner
		{"alice", "bob", true},        // bob's forests ⊆ alice's admin forests
		{"alice", "grantless", false}, // a target without a grant: nobody but the owner
		{"bob", "carol", true},        // carol holds acme only
		{"bob", "dan", false},         // dan holds zoo, which bob does not administer
		{"bob", "alice", false},       // alice reaches further than bob
		{"carol", "carol", false},     // a reader administers nobody, not even itself
	}
	for _, tt := range fully {
		got, err := r.AdministersFully(ctx, tt.p, tt.target)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "AdministersFully(%s, %s)", tt.p, tt.target)
	}

	governs := []struct {
		p       string
		mask    []vine.Capability
		forests []string
		want    bool
	}{
		{"ada", nil, nil, true}, {"ada", noAdmin, served, false},
		{"alice", nil, served, true},
		{"alice", nil, append(served, "new"), false}, // a new forest narrows it at once
		{"alice", nil, nil, false},                   // no forest, nothing to govern but for the owner
		{"alice", noAdmin, served, false},
		{"bob", nil, served, false},
		{"carol", nil, served, false},
	}
	for _, tt := range governs {
		got, err := r.GovernsDeployment(ctx, tt.p, tt.mask, tt.forests)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "GovernsDeployment(%s, %v, %v)", tt.p, tt.mask, tt.forests)
	}
}
