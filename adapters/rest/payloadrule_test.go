// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// keyConcepts may read, write, query and tend concepts/ alone: the
// attacker of the payload suite.
const keyConcepts = "mk_concepts"

// ledgerSecret is a row of the hidden finance ledger; no answer to
// keyConcepts may carry it.
const ledgerSecret = "LEDGER-SECRET-REST-55e1"

// payloadEscapes are the payload values that reach past keyConcepts's
// scope, by kind: a name that breaks the payload rule by itself, one that
// leaves through a symlink, and a file:// URI.
func payloadEscapes(dir string) []struct{ name, payload, kind string } {
	ledger := filepath.Join(dir, "finance", "ledger-2026.db")
	return []struct{ name, payload, kind string }{
		{"dot-dot", "../finance/ledger-2026.db", "name"},
		{"_derived", "../_derived/catalog.db", "name"},
		{".git", "../.git/HEAD", "name"},
		{"absolute", ledger, "name"},
		{"symlink", "link.db", "link"},
		{"symlink to _derived", "catalog.db", "link"},
		{"file://", "file://" + filepath.ToSlash(ledger), "uri"},
		{"file:// other forest", "file://" + filepath.ToSlash(filepath.Join(filepath.Dir(dir), "other", "x.db")), "uri"},
	}
}

// The code each door answers, per kind of escape.
var payloadDoorCodes = map[string]map[string]vine.Code{
	"query":   {"name": vine.ENotFound, "link": vine.ENotFound, "uri": vine.ESchema},
	"tend":    {"name": vine.ENotFound, "link": vine.ENotFound, "uri": vine.EQueryForbidden},
	"payload": {"name": vine.ESchema, "link": vine.ENotFound, "uri": vine.ESchema},
}

func payloadStation(t *testing.T) *station {
	t.Helper()
	dir, man := testforest.Fixture(t)
	db, err := sql.Open("sqlite3", "file:"+filepath.ToSlash(filepath.Join(dir, "finance", "ledger-2026.db")))
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE vault(word TEXT)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO vault VALUES (?)`, ledgerSecret)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NoError(t, os.Symlink("../finance/ledger-2026.db", filepath.Join(dir, "concepts", "link.db")))
	require.NoError(t, os.Symlink("../_derived/catalog.db", filepath.Join(dir, "concepts", "catalog.db")))
	return serveDir(t, dir, man, func(o *rest.Options) {
		k := testKeys()
		k[keyConcepts] = &keys.Principal{Name: "concepts-only", Grants: map[string]vine.Policy{forestID: {Allow: []string{"concepts/"},
			Caps: []vine.Capability{vine.CapRead, vine.CapWrite, vine.CapQuery, vine.CapTend}}}}
		o.Keys = k
	})
}

// TestPayloadEscapesOverREST runs every escape through every door a
// scoped key has: plant and graft refuse the passport; a passport written
// by hand is refused by query, tend and the payload route, and export
// carries no payload bytes. No answer carries the hidden rows, and the
// forest is byte-identical after every refusal.
func TestPayloadEscapesOverREST(t *testing.T) {
	st := payloadStation(t)
	for _, e := range payloadEscapes(st.dir) {
		t.Run(e.name, func(t *testing.T) {
			before := testforest.TreeDigest(t, st.dir)
			node, _ := json.Marshal(map[string]any{"node": map[string]any{"id": "concepts/probe", "parent": "concepts/_index",
				"type": "dataset", "title": "Probe", "summary": "A passport naming a payload outside its folder.",
				"payload": e.payload, "payload_type": "sqlite"}})
			r := st.post(keyConcepts, "plant", string(node))
			envelope(t, r, http.StatusBadRequest, vine.ESchema)
			assert.NotContains(t, r.body, ledgerSecret)
			graft, _ := json.Marshal(map[string]any{"id": "concepts/tide",
				"patch": map[string]any{"set_frontmatter": map[string]any{"payload": e.payload}}})
			envelope(t, st.post(keyConcepts, "graft", string(graft)), http.StatusForbidden, vine.EReadOnly)
			assert.Equal(t, before, testforest.TreeDigest(t, st.dir), "plant and graft refusals write nothing")

			handWrite(t, st, "concepts/probe", "type: dataset\ntitle: Probe\nsummary: Written by hand.\n"+
				"payload: "+e.payload+"\npayload_type: sqlite\n")
			before = testforest.TreeDigest(t, st.dir)
			for door, codes := range payloadDoorCodes {
				var r reply
				switch door {
				case "payload":
					r = st.do(http.MethodGet, "/v1/forests/"+forestID+"/payload/concepts/probe", keyConcepts, "")
				case "query":
					r = st.post(keyConcepts, "query", `{"id": "concepts/probe", "sql": "SELECT word FROM vault"}`)
				case "tend":
					r = st.post(keyConcepts, "tend", `{"id": "concepts/probe", "sql": "DELETE FROM vault WHERE 1"}`)
				}
				code := codes[e.kind]
				envelope(t, r, code.HTTPStatus(), code)
				assert.NotContains(t, r.body, ledgerSecret, door)
			}
			r = st.do(http.MethodGet, "/v1/forests/"+forestID+"/export/concepts/probe", keyConcepts, "")
			assert.Equal(t, http.StatusOK, r.status, r.body)
			assert.NotContains(t, r.body, ledgerSecret, "export carries markdown, never payload bytes")
			assert.Equal(t, before, testforest.TreeDigest(t, st.dir), "read refusals write nothing")

			// The owner's plain read of the same passport is refused alike.
			r = st.post(keyFull, "query", `{"id": "concepts/probe", "sql": "SELECT word FROM vault"}`)
			assert.NotContains(t, r.body, ledgerSecret, "owner, %s", e.kind)
		})
	}
}

// handWrite puts a passport on disk and reindexes through the owner.
func handWrite(t *testing.T, st *station, id, front string) {
	t.Helper()
	p := filepath.Join(st.dir, filepath.FromSlash(id)+".md")
	require.NoError(t, os.WriteFile(p, []byte("---\nid: "+id+"\n"+front+"---\n\n# Probe\n"), 0o644))
	v, err := st.reg.Forest(context.Background(), forestID)
	require.NoError(t, err)
	_, err = v.Reindex(context.Background())
	require.NoError(t, err)
}
