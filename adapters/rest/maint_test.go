// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// keyPartAdmin is admin over one branch only: enough for the admin
// routes, never for the whole-forest ones.
const keyPartAdmin = "mk_part_admin"

// maintStation serves the fixture with a snapshot directory and the
// partial admin key beside the test keys.
func maintStation(t *testing.T) (*station, string) {
	snaps := filepath.Join(t.TempDir(), "snapshots")
	st := newStation(t, func(o *rest.Options) {
		k := testKeys()
		k[keyPartAdmin] = &keys.Principal{Name: "part-admin", Grants: map[string]vine.Policy{
			forestID: {Allow: []string{"concepts/"}, Caps: []vine.Capability{vine.CapAdmin}}}}
		o.Keys = k
		o.SnapshotDir = snaps
	})
	return st, snaps
}

func TestMaintenanceGates(t *testing.T) {
	st, _ := maintStation(t)
	q := "?forest=" + forestID
	cases := []struct {
		name, method, target, key, body string
		status                          int
		code                            vine.Code
		message                         string
	}{
		{"health needs the forest", "GET", "/v1/admin/health", keyFull, "", 400, vine.ESchema, "parameter 'forest' is required"},
		{"health needs admin", "GET", "/v1/admin/health" + q, keyRead, "", 403, vine.EForbidden, "needs the admin capability"},
		{"health needs the whole forest", "GET", "/v1/admin/health" + q, keyPartAdmin, "", 403, vine.EForbidden, "covers the whole forest"},
		{"reindex needs the whole forest", "POST", "/v1/admin/reindex", keyPartAdmin, `{"forest":"` + forestID + `"}`, 403, vine.EForbidden, "reindex covers the whole forest"},
		{"reindex needs admin", "POST", "/v1/admin/reindex", keyRead, `{"forest":"` + forestID + `"}`, 403, vine.EForbidden, "needs the admin capability"},
		{"recurate needs the whole forest", "POST", "/v1/admin/recurate", keyPartAdmin, `{"forest":"` + forestID + `","derive":["aliases"]}`, 403, vine.EForbidden, "recurate covers the whole forest"},
		{"a masked owner is no admin", "GET", "/v1/admin/locks" + q, keyMasked, "", 403, vine.EForbidden, "admin"},
		{"an ungranted forest is unknown", "GET", "/v1/admin/locks" + q, keyOther, "", 404, vine.ENotFound, "unknown forest"},
		{"no key", "GET", "/v1/admin/locks" + q, "", "", 401, vine.EForbidden, ""},
		{"snapshot body needs the forest", "POST", "/v1/admin/snapshots", keyFull, `{}`, 400, vine.ESchema, "forest"},
		{"download is the owner's", "GET", "/v1/admin/snapshots/" + forestID + "/x.forest", keyPartAdmin, "", 403, vine.EForbidden, "owner"},
		{"unlock needs admin", "POST", "/v1/admin/unlock", keyRead, `{"forest":"` + forestID + `"}`, 403, vine.EForbidden, "admin"},
		{"canopy without an embedder", "POST", "/v1/admin/canopy", keyFull, `{"forest":"` + forestID + `"}`, 400, vine.ESchema, "no embedding model is bound"},
		{"no host keeps the Gauntlet switch", "POST", "/v1/admin/canopy", keyFull, `{"forest":"` + forestID + `","enabled":false}`, 400, vine.ESchema, "this server keeps no Gauntlet switch"},
		{"the switch is a boolean", "POST", "/v1/admin/canopy", keyFull, `{"forest":"` + forestID + `","enabled":"off"}`, 400, vine.ESchema, "enabled"},
	}
	testforest.Unchanged(t, st.dir, func() {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				env := envelope(t, st.do(c.method, c.target, c.key, c.body), c.status, c.code)
				assert.Contains(t, env["message"], c.message)
			})
		}
	})
}

func TestMaintenanceReadsAnswer(t *testing.T) {
	st, _ := maintStation(t)
	q := "?forest=" + forestID
	testforest.Unchanged(t, st.dir, func() {
		h := st.do("GET", "/v1/admin/health"+q, keyFull, "")
		require.Equal(t, http.StatusOK, h.status, h.body)
		assert.Contains(t, h.body, `"lint"`, "the Ranger's report, relayed")
		c := st.do("GET", "/v1/admin/canopy"+q, keyPartAdmin, "")
		require.Equal(t, http.StatusOK, c.status, c.body)
		assert.Contains(t, c.body, `"state":"no-embedder"`)
		assert.Contains(t, c.body, `"enabled":true`, "no host switch: the Gauntlet is never switched off")
	})
}

func TestSnapshotRoutes(t *testing.T) {
	st, snaps := maintStation(t)
	var made struct {
		Name     string `json:"name"`
		Bytes    int64  `json:"bytes"`
		Payloads int    `json:"payloads"`
	}
	testforest.Unchanged(t, st.dir, func() {
		r := st.do("POST", "/v1/admin/snapshots", keyPartAdmin, `{"forest":"`+forestID+`"}`)
		require.Equal(t, http.StatusOK, r.status, r.body)
		require.NoError(t, json.Unmarshal([]byte(r.body), &made))
	})
	assert.True(t, strings.HasPrefix(made.Name, forestID+"-") && strings.HasSuffix(made.Name, ".forest"), made.Name)
	path := filepath.Join(snaps, forestID, made.Name)
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.EqualValues(t, len(want), made.Bytes)

	list := st.do("GET", "/v1/admin/snapshots?forest="+forestID, keyPartAdmin, "")
	require.Equal(t, http.StatusOK, list.status)
	assert.Contains(t, list.body, `"name":"`+made.Name+`"`)

	got := st.do("GET", "/v1/admin/snapshots/"+forestID+"/"+made.Name, keyFull, "")
	require.Equal(t, http.StatusOK, got.status, got.body)
	assert.Equal(t, "application/octet-stream", got.header.Get("Content-Type"))
	assert.Equal(t, string(want), got.body, "bytes equal to the file on the volume")

	require.NoError(t, os.WriteFile(filepath.Join(snaps, forestID, ".hidden.forest"), want, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(snaps, forestID, "notes.txt"), []byte("x"), 0o644))
	outside := filepath.Join(t.TempDir(), "elsewhere.forest")
	require.NoError(t, os.WriteFile(outside, want, 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(snaps, forestID, "link.forest")))
	absent := st.do("GET", "/v1/admin/snapshots/"+forestID+"/nothing.forest", keyFull, "")
	envelope(t, absent, http.StatusNotFound, vine.ENotFound)
	for _, name := range []string{".hidden.forest", "notes.txt", "link.forest", "mare-alta.forest.txt"} {
		r := st.do("GET", "/v1/admin/snapshots/"+forestID+"/"+name, keyFull, "")
		assert.Equal(t, absent.status, r.status, name)
		assert.Equal(t, absent.body, r.body, "%s answers like an absent snapshot", name)
	}
	for _, name := range []string{"..%2F..%2Fetc%2Fpasswd", "%2E%2E"} { // refused by the router itself
		envelope(t, st.do("GET", "/v1/admin/snapshots/"+forestID+"/"+name, keyFull, ""), http.StatusNotFound, vine.ENotFound)
	}
}

func TestSnapshotsNeedADirectory(t *testing.T) {
	st := newStation(t, nil)
	env := envelope(t, st.do("GET", "/v1/admin/snapshots?forest="+forestID, keyFull, ""), http.StatusBadRequest, vine.ESchema)
	assert.Contains(t, env["message"], "keeps no snapshots")
}

func TestLockRoutes(t *testing.T) {
	st, _ := maintStation(t)
	q := "?forest=" + forestID
	unlock := `{"forest":"` + forestID + `"}`
	probe := func() map[string]any {
		r := st.do("GET", "/v1/admin/locks"+q, keyFull, "")
		require.Equal(t, http.StatusOK, r.status, r.body)
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.body), &out))
		return out
	}
	os.Remove(filepath.Join(st.dir, forest.LockFile))
	assert.Equal(t, "free", probe()["state"])

	require.NoError(t, os.WriteFile(filepath.Join(st.dir, forest.LockFile), []byte(`{"pid":1,"host":"gone","since":"2026-01-01T00:00:00Z"}`), 0o644))
	assert.Equal(t, "orphan", probe()["state"])
	r := st.do("POST", "/v1/admin/unlock", keyFull, unlock)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, r.body, `"removed":true`)
	assert.Equal(t, "free", probe()["state"])

	lock, err := forest.AcquireLock(st.dir)
	require.NoError(t, err)
	defer lock.Release()
	held := probe()
	assert.Equal(t, "held", held["state"])
	assert.Equal(t, true, held["self"], "this process holds it")
	envelope(t, st.do("POST", "/v1/admin/unlock", keyFull, unlock), http.StatusConflict, vine.ELocked)
}
