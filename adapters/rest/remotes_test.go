// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/gittest"
)

// The admin remote routes: set a remote, push, and a pull that meets a
// node both sides changed answers 409 E_CONFLICT naming it, then settles
// with prefer.
func TestAdminRemoteRoutes(t *testing.T) {
	ctx := context.Background()
	const keyAdmin = "mk_forest_admin"
	st := newStation(t, func(o *rest.Options) {
		k := testKeys()
		k[keyAdmin] = &keys.Principal{Name: "forest-admin", Grants: map[string]vine.Policy{
			forestID: {Allow: []string{""}, Caps: []vine.Capability{vine.CapAdmin}}}}
		o.Keys = k
	})
	url := gittest.FileURL(gittest.Bare(t))
	body := `{"forest":"` + forestID + `"`

	envelope(t, st.do("POST", "/v1/admin/remotes", keyFull, body+`,"url":"https://me:pw@git.example.org/f.git"}`), 400, vine.ESchema)
	e := envelope(t, st.do("POST", "/v1/admin/remotes", keyAdmin, body+`,"url":"`+url+`"}`), 403, vine.EForbidden)
	assert.Contains(t, e["message"], "only the deployment owner", "a forest admin reaches no host path")
	ok(t, st.do("POST", "/v1/admin/remotes", keyAdmin, body+`,"name":"hosted","url":"https://git.example.org/f.git"}`))
	ok(t, st.do("POST", "/v1/admin/remotes", keyFull, body+`,"url":"`+url+`"}`))
	listed := ok(t, st.do("GET", "/v1/admin/remotes?forest="+forestID, keyFull, ""))
	assert.Contains(t, listed["remotes"], map[string]any{"name": "origin", "url": url})
	envelope(t, st.do("POST", "/v1/admin/push", keyRead, body+`}`), 403, vine.EForbidden)
	ok(t, st.do("POST", "/v1/admin/push", keyFull, body+`}`))

	other := filepath.Join(t.TempDir(), "other")
	_, err := vine.Clone(ctx, url, other, vine.RemoteOptions{})
	require.NoError(t, err)
	v, err := vine.Open(ctx, other, nil)
	require.NoError(t, err)
	defer v.Close()
	_, err = v.Call(ctx, "graft", []byte(`{"id": "concepts/tide", "patch": {"set_frontmatter": {"summary": "Tides here run twice a day, ranging two metres at springs."}}}`))
	require.NoError(t, err)
	_, err = v.Push(ctx, vine.RemoteOptions{})
	require.NoError(t, err)
	ok(t, st.post(keyFull, "graft", `{"id": "concepts/tide", "patch": {"set_frontmatter": {"summary": "Tides on this coast follow the Moon, two highs daily."}}}`))

	e = envelope(t, st.do("POST", "/v1/admin/pull", keyFull, body+`}`), 409, vine.EConflict)
	assert.Contains(t, e["nodes"], "concepts/tide") // and its branch index, whose entry line carries the summary
	assert.Contains(t, e["hint"], "--prefer")
	pulled := ok(t, st.do("POST", "/v1/admin/pull", keyFull, body+`,"prefer":"theirs"}`))
	assert.Equal(t, "merge", pulled["kind"])
	look := ok(t, st.post(keyFull, "look", `{"id": "concepts/tide"}`))
	assert.Contains(t, look["summary"], "two metres at springs")
}

// Options.RemoteDestination judges the remotes a forest admin names and
// uses, never the owner's: set, push and pull all ask it.
func TestRemoteDestinationGuardsAdmins(t *testing.T) {
	const keyAdmin = "mk_forest_admin"
	var asked []string
	st := newStation(t, func(o *rest.Options) {
		k := testKeys()
		k[keyAdmin] = &keys.Principal{Name: "forest-admin", Grants: map[string]vine.Policy{
			forestID: {Allow: []string{""}, Caps: []vine.Capability{vine.CapAdmin}}}}
		o.Keys = k
		o.RemoteDestination = func(_ context.Context, url string) error {
			asked = append(asked, url)
			if strings.Contains(url, "internal") {
				return &vine.Error{Code: vine.ESchema, Message: "endpoint resolves to a non-public address"}
			}
			return nil
		}
	})
	body := `{"forest":"` + forestID + `"`
	inside := "https://git.internal/f.git"

	e := envelope(t, st.do("POST", "/v1/admin/remotes", keyAdmin, body+`,"url":"`+inside+`"}`), 400, vine.ESchema)
	assert.Contains(t, e["message"], "non-public")
	ok(t, st.do("POST", "/v1/admin/remotes", keyAdmin, body+`,"name":"hosted","url":"https://git.example.org/f.git"}`))
	ok(t, st.do("POST", "/v1/admin/remotes", keyFull, body+`,"url":"`+inside+`"}`))
	assert.Equal(t, []string{inside, "https://git.example.org/f.git"}, asked, "the owner is not asked about")

	// The owner's internal origin stays out of an admin's reach.
	envelope(t, st.do("POST", "/v1/admin/push", keyAdmin, body+`}`), 400, vine.ESchema)
	envelope(t, st.do("POST", "/v1/admin/pull", keyAdmin, body+`}`), 400, vine.ESchema)
	listed := ok(t, st.do("GET", "/v1/admin/remotes?forest="+forestID, keyFull, ""))
	assert.Contains(t, listed["remotes"], map[string]any{"name": "origin", "url": inside}, "a refusal changed nothing")
}
