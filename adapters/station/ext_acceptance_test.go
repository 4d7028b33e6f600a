// SPDX-License-Identifier: Apache-2.0

package station

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext/install"
)

// signedRepo is a git repository of tree whose tag v1 is signed by a
// key a test forge publishes for the account "ada".
type signedRepo struct {
	dir  string
	repo *git.Repository
	key  *openpgp.Entity
	sig  *object.Signature
}

func newSignedRepo(t *testing.T, tree string) (*signedRepo, install.Trust) {
	t.Helper()
	key, err := openpgp.NewEntity("ada", "", "ada@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	require.NoError(t, err)
	var pub bytes.Buffer
	w, err := armor.Encode(&pub, openpgp.PublicKeyType, nil)
	require.NoError(t, err)
	require.NoError(t, key.Serialize(w))
	require.NoError(t, w.Close())
	forge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/users/ada/gpg_keys" {
			json.NewEncoder(w).Encode([]any{})
			return
		}
		json.NewEncoder(w).Encode([]map[string]any{{"raw_key": pub.String()}})
	}))
	t.Cleanup(forge.Close)
	sr := &signedRepo{dir: t.TempDir(), key: key, sig: &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}}
	sr.repo, err = git.PlainInit(sr.dir, false)
	require.NoError(t, err)
	sr.commit(t, tree)
	trust := install.Trust{Keys: install.GitHubKeys(forge.URL, forge.Client()),
		Owner: func(loc string) (string, string, bool) { return "github.com", "ada", loc == sr.dir }}
	return sr, trust
}

// commit commits tree's files and (re)tags the commit v1, signed.
func (sr *signedRepo) commit(t *testing.T, tree string) plumbing.Hash {
	t.Helper()
	wt, err := sr.repo.Worktree()
	require.NoError(t, err)
	entries, err := os.ReadDir(tree)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(tree, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(sr.dir, e.Name()), data, 0o755))
		_, err = wt.Add(e.Name())
		require.NoError(t, err)
	}
	h, err := wt.Commit("release", &git.CommitOptions{Author: sr.sig, AllowEmptyCommits: true})
	require.NoError(t, err)
	_ = sr.repo.DeleteTag("v1")
	_, err = sr.repo.CreateTag("v1", h, &git.CreateTagOptions{Tagger: sr.sig, Message: "v1", SignKey: sr.key})
	require.NoError(t, err)
	return h
}

// TestExtensionUpdateOnTheStation is F.189, F.192 and F.194 on the
// Station: a signed tag installs signed with its identity (withheld
// from a listing that does not govern); {action: update, id} follows
// the moved tag and reports the previous sha; an update the kit refuses
// leaves the previous install running: the next ingest still converts.
func TestExtensionUpdateOnTheStation(t *testing.T) {
	tree := orgTree(t)
	sr, trust := newSignedRepo(t, tree)
	first := sr.commit(t, tree)
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	ts := newTestStation(t, func(o *Options) { o.Extensions = home; o.ExtTrust = trust })
	owner := ts.owner()

	inst := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": sr.dir + "@v1", "enable_on": forestID})
	require.Equal(t, http.StatusCreated, inst.status, inst.body)
	assert.Equal(t, "signed", inst.str("tier"), "a signed tag needs no acknowledgement")
	assert.Contains(t, inst.body, `"account":"ada"`)
	list := ts.call("GET", "/v1/admin/extensions", owner, nil)
	assert.Contains(t, list.body, `"identity":{"forge":"github.com","account":"ada"`)

	require.NoError(t, os.WriteFile(filepath.Join(tree, "NOTES"), []byte("second"), 0o644))
	second := sr.commit(t, tree)
	up := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "update", "id": "org"})
	require.Equal(t, http.StatusCreated, up.status, up.body)
	assert.Equal(t, second.String(), up.str("revision"), "the moved tag's new sha")
	assert.Equal(t, first.String(), up.str("previous_revision"))
	assert.Equal(t, true, up.json["changed"])

	m, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tree, "manifest.json"), []byte(strings.Replace(string(m), `"handler": "org"}`, `"handler": "org"}, {"extensions": [".orgx"], "handler": "orgx"}`, 1)), 0o644))
	sr.commit(t, tree)
	failed := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "update", "id": "org"})
	assert.Equal(t, http.StatusBadRequest, failed.status, failed.body)
	assert.Contains(t, failed.body, `"reason":"kit"`)
	rec, err := home.Lookup("org")
	require.NoError(t, err)
	assert.Equal(t, second.String(), rec.Revision, "the previous install is unmodified")

	org := base64.StdEncoding.EncodeToString([]byte("#+TITLE: Neap tide\n* Low water\nAt /noon/.\n"))
	r := ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{
		"files": []any{map[string]any{"name": "neap.org", "b64": org}}, "dest": "operations", "wait": true})
	require.Equal(t, http.StatusOK, r.status, r.body)
	body, err := os.ReadFile(filepath.Join(ts.root, forestID, "operations", "neap.md"))
	require.NoError(t, err, r.body)
	assert.Contains(t, string(body), "At *noon*.", "the previous install still converts")

	missing := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "update", "id": "nothing"})
	assert.Equal(t, http.StatusNotFound, missing.status, missing.body)
}

// TestExpectedButAbsentOnTheStation is F.187 on the Station: with no
// install home the loader is inert; a forest expecting an extension
// names it as expected but absent, and ingests as if it expected none.
func TestExpectedButAbsentOnTheStation(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	require.NoError(t, os.WriteFile(filepath.Join(ts.root, forestID, "_meta", "extensions.yaml"),
		[]byte("extensions:\n  whisper:\n    enabled: true\n"), 0o644))
	en := ts.call("GET", "/v1/admin/extensions/enablement?forest="+forestID, owner, nil)
	require.Equal(t, http.StatusOK, en.status, en.body)
	assert.Contains(t, en.body, `"expected_but_absent":["whisper"]`)
	list := ts.call("GET", "/v1/admin/extensions", owner, nil)
	assert.Contains(t, list.body, `"loader":"inert"`)

	txt := base64.StdEncoding.EncodeToString([]byte("High water at dawn.\n"))
	r := ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{
		"files": []any{map[string]any{"name": "tides.txt", "b64": txt}}, "dest": "operations", "wait": true})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.FileExists(t, filepath.Join(ts.root, forestID, "operations", "tides.md"))
}
