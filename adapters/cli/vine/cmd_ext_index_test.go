// SPDX-License-Identifier: Apache-2.0

package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext/install"
)

// taggedExtension is a git repository of the org example extension with
// an unsigned tag v0.1.0, and that tag's commit.
func taggedExtension(t *testing.T) (string, string) {
	t.Helper()
	tree := orgExtensionTree(t)
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	require.NoError(t, err)
	wt, err := repo.Worktree()
	require.NoError(t, err)
	for _, f := range []string{"manifest.json", "LICENSE", "main"} {
		data, err := os.ReadFile(filepath.Join(tree, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o755))
		_, err = wt.Add(f)
		require.NoError(t, err)
	}
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}
	commit, err := wt.Commit("org 0.1.0", &git.CommitOptions{Author: sig})
	require.NoError(t, err)
	_, err = repo.CreateTag("v0.1.0", commit, &git.CreateTagOptions{Tagger: sig, Message: "v0.1.0"})
	require.NoError(t, err)
	return dir, commit.String()
}

// TestExtensionFromAnIndexOverHTTPS: $MONKEYLLM_EXT_INDEX may be an
// https URL; install and outdated read it (and its .sig) from there,
// and a plain http one is refused with reason index.
func TestExtensionFromAnIndexOverHTTPS(t *testing.T) {
	repoDir, commit := taggedExtension(t)
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	data := []byte(`{"extensions": {"org": {"source": "` + repoDir + `@v0.1.0", "identity": {"account": "ada"}}}}`)
	mux := http.NewServeMux()
	mux.HandleFunc("/index.json", func(w http.ResponseWriter, _ *http.Request) { w.Write(data) })
	mux.HandleFunc("/index.json.sig", func(w http.ResponseWriter, _ *http.Request) { w.Write(install.SignIndex(priv, data)) })
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	plain := httptest.NewServer(mux)
	t.Cleanup(plain.Close)
	old := extHTTPClient
	extHTTPClient = srv.Client()
	t.Cleanup(func() { extHTTPClient = old })
	t.Setenv(extIndexKeyEnv, base64.StdEncoding.EncodeToString(pub))
	home := filepath.Join(t.TempDir(), "home")

	t.Setenv(extIndexEnv, plain.URL+"/index.json")
	code, out, _ := runCLI(t, "", "ext", "install", "org", "--home", home, "--acknowledge")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"reason":"index"`, "plain http is refused")

	t.Setenv(extIndexEnv, srv.URL+"/index.json")
	code, out, errOut := runCLI(t, "", "ext", "install", "org", "--home", home, "--acknowledge", "--json")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"tier":"unverified"`, "the tag is unsigned, so not what the index vouches for")
	assert.Contains(t, out, commit)
	code, out, _ = runCLI(t, "", "ext", "list", "--home", home, "--json")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, `"kind":"index"`)

	code, out, errOut = runCLI(t, "", "ext", "outdated", "--home", home, "--json")
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"source":"`+repoDir+`@v0.1.0"`, "outdated found the source through the https index")
	assert.NotContains(t, out, `"error"`)
}

// TestExtForgesEnv: $MONKEYLLM_EXT_FORGES adds self-hosted forges by
// kind; a malformed pair is a usage error naming the variable.
func TestExtForgesEnv(t *testing.T) {
	tests := []struct {
		raw  string
		want map[string]string
		bad  bool
	}{
		{"", map[string]string{}, false},
		{"Git.Example.org=gitlab, forgejo.example.net=gitea,ghe.example.com=GitHub", map[string]string{
			"git.example.org": "gitlab", "forgejo.example.net": "gitea", "ghe.example.com": "github"}, false},
		{"git.example.org", nil, true},
		{"git.example.org=bitbucket", nil, true},
		{"=gitlab", nil, true},
		{"https://git.example.org=gitlab", nil, true},
	}
	for _, tc := range tests {
		got, err := parseForges(tc.raw)
		if tc.bad {
			assert.ErrorContains(t, err, extForgesEnv, tc.raw)
			continue
		}
		require.NoError(t, err, tc.raw)
		assert.Equal(t, tc.want, got, tc.raw)
	}

	t.Setenv(extForgesEnv, "git.example.org=svn")
	code, _, errOut := runCLI(t, "", "ext", "outdated", "--home", t.TempDir())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, extForgesEnv)
}
