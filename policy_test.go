// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestPolicyHasAndUnrestricted(t *testing.T) {
	for _, c := range []struct {
		name        string
		p           Policy
		read, admin bool
		whole       bool
	}{
		{"full", FullPolicy(), true, true, true},
		{"reader", Policy{Allow: []string{""}, Caps: []Capability{CapRead}}, true, false, true},
		{"admin grants all", Policy{Allow: []string{""}, Caps: []Capability{CapAdmin}}, true, true, true},
		{"one branch", Policy{Allow: []string{"ops/"}, Caps: []Capability{CapAdmin}}, true, true, false},
		{"a deny", Policy{Allow: []string{""}, Deny: []string{"hr/"}, Caps: []Capability{CapRead}}, true, false, false},
		{"unknown cap", Policy{Allow: []string{""}, Caps: []Capability{"root"}}, false, false, false},
		{"nothing", Policy{}, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.read, c.p.Has(CapRead))
			assert.Equal(t, c.admin, c.p.Has(CapAdmin))
			assert.Equal(t, c.whole, c.p.Unrestricted())
		})
	}
}

func TestRegistryDirOpensNothing(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := NewRegistry(dir, nil)
	require.NoError(t, err)
	defer reg.Close()
	got, err := reg.Dir("")
	require.NoError(t, err)
	assert.Equal(t, reg.root, got)
	_, err = reg.Dir("elsewhere")
	assert.Equal(t, ENotFound, CodeOf(err))
	for _, f := range reg.List().Forests {
		assert.False(t, f.Active, "Dir opened no forest")
	}
}
