// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// recordingGranter remembers the grants a server asked for, failing
// when told to.
type recordingGranter struct {
	granted []string
	fail    bool
}

func (g *recordingGranter) GrantAll(_ context.Context, principal, forest string) error {
	if g.fail {
		return errors.New("registry unavailable")
	}
	g.granted = append(g.granted, principal+"@"+forest)
	return nil
}

// registryStation serves the directory holding the fixture, so the
// fixture is one forest of a registry and new ones can be created.
func registryStation(t *testing.T, g rest.ForestGranter) (*station, string) {
	dir, man := testforest.Fixture(t)
	root := filepath.Dir(dir)
	st := serveDir(t, root, man, func(o *rest.Options) {
		k := testKeys()
		k["mk_admin"] = &keys.Principal{Name: "ana", Grants: map[string]vine.Policy{
			forestID: {Allow: []string{""}, Caps: []vine.Capability{vine.CapAdmin}}}}
		o.Keys = k
		o.Granter = g
	})
	return st, root
}

func TestCreateForest(t *testing.T) {
	g := &recordingGranter{}
	st, root := registryStation(t, g)
	r := st.do("POST", "/v1/admin/forests", keyFull, `{"id":"ops","title":"Operations","seed":"demo"}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	var out struct {
		Forest struct{ ID, Title, Commit string } `json:"forest"`
		Grants []string                           `json:"grants"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.body), &out))
	assert.Equal(t, "ops", out.Forest.ID)
	assert.Len(t, out.Forest.Commit, 40)
	assert.Contains(t, out.Grants, "admin")
	assert.Equal(t, out.Forest.Commit, testforest.Head(t, filepath.Join(root, "ops")), "the demo's commit is the head")

	v, err := vine.Open(context.Background(), filepath.Join(root, "ops"), &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer v.Close()
	hits, err := v.Locate(context.Background(), "how do I read a body within a budget", vine.LocateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, hits.Results)
	assert.Equal(t, "guide/reading", hits.Results[0].ID, "the demo seed is a forest to explore")

	r = st.do("POST", "/v1/admin/forests", "mk_admin", `{"id":"sales","title":"Sales"}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, []string{"ana@sales"}, g.granted, "the creator is granted the new forest")
}

func TestCreateForestRefusals(t *testing.T) {
	st, root := registryStation(t, nil)
	before, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, c := range []struct {
		name, key, body, message string
		status                   int
		code                     vine.Code
	}{
		{"no admin anywhere", keyRead, `{"id":"ops","title":"Ops"}`, "needs admin", 403, vine.EForbidden},
		{"admin but no way to grant", "mk_admin", `{"id":"ops","title":"Ops"}`, "cannot grant", 403, vine.EForbidden},
		{"a masked owner", keyMasked, `{"id":"ops","title":"Ops"}`, "needs admin", 403, vine.EForbidden},
		{"a path, not a name", keyFull, `{"id":"../ops","title":"Ops"}`, "plain name", 400, vine.ESchema},
		{"upper case", keyFull, `{"id":"Ops","title":"Ops"}`, "plain name", 400, vine.ESchema},
		{"an existing forest", keyFull, `{"id":"` + forestID + `","title":"Mine now"}`, "already exists", 400, vine.ESchema},
		{"an unknown seed", keyFull, `{"id":"ops","title":"Ops","seed":"prod"}`, "unknown seed", 400, vine.ESchema},
		{"no title", keyFull, `{"id":"ops"}`, "title", 400, vine.ESchema},
		{"a blank title", keyFull, `{"id":"ops","title":"  "}`, "title is required", 400, vine.ESchema},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := envelope(t, st.do("POST", "/v1/admin/forests", c.key, c.body), c.status, c.code)
			assert.Contains(t, env["message"], c.message)
		})
	}
	after, err := os.ReadDir(root)
	require.NoError(t, err)
	assert.Equal(t, len(before), len(after), "no refusal leaves a directory behind")
}

func TestCreateForestFailureLeavesNothing(t *testing.T) {
	st, root := registryStation(t, &recordingGranter{fail: true})
	r := st.do("POST", "/v1/admin/forests", "mk_admin", `{"id":"ops","title":"Ops"}`)
	assert.Equal(t, http.StatusInternalServerError, r.status, r.body)
	_, err := os.Stat(filepath.Join(root, "ops"))
	assert.True(t, os.IsNotExist(err), "the half-made forest is removed")
}

func TestCreateForestNeedsARegistry(t *testing.T) {
	st := newStation(t, nil)
	env := envelope(t, st.do("POST", "/v1/admin/forests", keyFull, `{"id":"ops","title":"Ops"}`), 400, vine.ESchema)
	assert.Contains(t, env["message"], "single forest")
}
