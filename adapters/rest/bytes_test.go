// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/forest"
)

func TestPayloadBytes(t *testing.T) {
	st := newStation(t, nil)
	target := "/v1/forests/mare-alta/payload/" + st.man.Media
	r := st.do(http.MethodGet, target, keyRead, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	want, err := os.ReadFile(filepath.Join(st.dir, "media", "_assets", strings.TrimPrefix(st.man.Media, "media/")+".png"))
	require.NoError(t, err)
	assert.Equal(t, string(want), r.body, "raw bytes")
	assert.Equal(t, "image/png", r.header.Get("Content-Type"))
	assert.Equal(t, "private", r.header.Get("Cache-Control"))
	assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"))
	etag := r.header.Get("ETag")
	data, err := os.ReadFile(filepath.Join(st.dir, filepath.FromSlash(st.man.Media)+".md"))
	require.NoError(t, err)
	n, err := forest.Parse(st.man.Media, data)
	require.NoError(t, err)
	require.NotEmpty(t, n.PayloadHash())
	assert.Equal(t, `"`+n.PayloadHash()+`"`, etag, "the ETag is payload_hash")

	req := httpRequest(http.MethodGet, target)
	req.Header.Set("Authorization", "Bearer "+keyRead)
	req.Header.Set("If-None-Match", etag)
	assert.Equal(t, http.StatusNotModified, serve(st, req).status, "a matching If-None-Match is 304")

	// Absent, out of scope, payload-less: one answer, byte for byte.
	absent := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/media/no-such", keyDeny, "")
	envelope(t, absent, http.StatusNotFound, vine.ENotFound)
	for _, id := range []string{"projects/tidewatch/design", "projects/_index"} { // hidden from keyDeny
		r := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/"+id, keyDeny, "")
		assert.Equal(t, absent.body, strings.ReplaceAll(r.body, id, "media/no-such"), id)
	}
	r = st.do(http.MethodGet, "/v1/forests/mare-alta/payload/concepts/tide", keyDeny, "")
	assert.Equal(t, absent.body, strings.ReplaceAll(r.body, "concepts/tide", "media/no-such"), "a node without a payload")
}

func TestPayloadRefusals(t *testing.T) {
	dir, man := fixtureDir(t)
	writeNode(t, dir, "media/remote", "type: media\ntitle: Remote\nsummary: Stored elsewhere.\npayload: s3://bucket/x.png\npayload_type: image\n", "Body.")
	writeNode(t, dir, "media/missing", "type: media\ntitle: Missing\nsummary: Its file is gone.\npayload: _assets/gone.png\npayload_type: image\n", "Body.")
	writeNode(t, dir, "media/machinery", "type: media\ntitle: Machinery\nsummary: Names git's config.\npayload: ../.git/config\npayload_type: image\n", "Body.")
	writeNode(t, dir, "concepts/peek", "type: concept\ntitle: Peek\nsummary: Names a hidden node.\npayload: ../people/lucia-andrade.md\n", "Body.")
	st := serveDir(t, dir, man, nil)

	e := envelope(t, st.do(http.MethodGet, "/v1/forests/mare-alta/payload/media/remote", keyFull, ""), http.StatusBadRequest, vine.ESchema)
	assert.Equal(t, "remote payload scheme 's3' is not served", e["message"])

	absent := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/media/no-such", keyScoped, "")
	r := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/media/missing", keyScoped, "")
	assert.Equal(t, absent.body, strings.ReplaceAll(r.body, "media/missing", "media/no-such"), "a missing file is served as absent")
	// A name that breaks the payload rule by itself is refused as such:
	// the passport shows it, so the refusal tells the caller nothing new.
	for _, id := range []string{"media/machinery", "concepts/peek"} {
		r := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/"+id, keyScoped, "")
		e := envelope(t, r, http.StatusBadRequest, vine.ESchema)
		assert.Equal(t, "payload escapes its node's folder", e["message"], id)
		assert.NotContains(t, r.body, "lucia")
	}
	e = envelope(t, st.do(http.MethodGet, "/v1/forests/mare-alta/payload/"+man.Media, keyMasked+"x", ""), http.StatusUnauthorized, vine.EForbidden)
	assert.NotEmpty(t, e["message"])

	noRead := serveDir(t, dir, man, func(o *rest.Options) {
		o.Keys = staticKeys{"mk_w": {Name: "writer", Grants: map[string]vine.Policy{forestID: {Allow: []string{""}, Caps: []vine.Capability{vine.CapWrite}}}}}
	})
	e = envelope(t, noRead.do(http.MethodGet, "/v1/forests/mare-alta/payload/"+man.Media, "mk_w", ""), http.StatusForbidden, vine.EForbidden)
	assert.Equal(t, "payload needs the read capability", e["message"])
	assert.Equal(t, "this key holds: write", e["hint"])
}

func TestExportSingle(t *testing.T) {
	dir, man := fixtureDir(t)
	writeNode(t, dir, "library/cached-guide", "type: document\ntitle: Cached guide\nsummary: Body in the cache.\ncontent: cached\n", "stub")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "_derived", "bodies", "library"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_derived", "bodies", "library", "cached-guide.md"), []byte("\r\n# Guide\r\n\r\nFull text.\r\n"), 0o644))
	writeNode(t, dir, "library/lost-guide", "type: document\ntitle: Lost guide\nsummary: Body nowhere.\ncontent: cached\n", "stub")
	crlf := "---\r\ntype: concept\r\ntitle: Windows\r\nsummary: Written on Windows.\r\n---\r\n\r\nLine one.\r\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "concepts", "crlf.md"), []byte(crlf), 0o644))
	st := serveDir(t, dir, man, nil)

	r := st.do(http.MethodGet, "/v1/forests/mare-alta/export/concepts/tide", keyRead, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	want, err := os.ReadFile(filepath.Join(dir, "concepts", "tide.md"))
	require.NoError(t, err)
	assert.Equal(t, string(want), r.body, "inline content: the file verbatim")
	assert.Equal(t, "text/markdown; charset=utf-8", r.header.Get("Content-Type"))
	assert.Equal(t, `attachment; filename="tide.md"`, r.header.Get("Content-Disposition"))
	assert.Equal(t, "private", r.header.Get("Cache-Control"))

	r = st.do(http.MethodGet, "/v1/forests/mare-alta/export/concepts/crlf", keyRead, "")
	assert.Equal(t, crlf, r.body, "no newline translation")

	r = st.do(http.MethodGet, "/v1/forests/mare-alta/export/library/cached-guide", keyRead, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, r.body, "content: cached")
	assert.True(t, strings.HasSuffix(r.body, "\n\n# Guide\n\nFull text.\n"), "passport plus the cached body: %q", r.body)
	assert.NotContains(t, r.body, "stub")

	e := envelope(t, st.do(http.MethodGet, "/v1/forests/mare-alta/export/library/lost-guide", keyRead, ""), http.StatusNotFound, vine.ENotFound)
	assert.Equal(t, "body not reachable: library/lost-guide (content: cached)", e["message"])

	absent := st.do(http.MethodGet, "/v1/forests/mare-alta/export/concepts/no-such", keyScoped, "")
	hidden := st.do(http.MethodGet, "/v1/forests/mare-alta/export/people/lucia-andrade", keyScoped, "")
	assert.Equal(t, absent.body, strings.ReplaceAll(hidden.body, "people/lucia-andrade", "concepts/no-such"))

	for q, want := range map[string]string{
		"?format=zip":                  "unknown query parameter 'format'",
		"?recursive=yes":               `'recursive' got "yes"`,
		"?recursive=true&recursive=no": "more than once",
	} {
		e := envelope(t, st.do(http.MethodGet, "/v1/forests/mare-alta/export/concepts/tide"+q, keyRead, ""), http.StatusBadRequest, vine.ESchema)
		assert.Contains(t, e["message"], want, q)
		if strings.Contains(q, "format") {
			assert.Equal(t, "This route accepts: recursive.", e["hint"])
		}
	}
	for _, q := range []string{"?recursive=FALSE", "?recursive=0"} {
		assert.Equal(t, string(want), st.do(http.MethodGet, "/v1/forests/mare-alta/export/concepts/tide"+q, keyRead, "").body, q)
	}
}

func TestExportRecursive(t *testing.T) {
	st := newStation(t, nil)
	get := func(key, id string) reply {
		return st.do(http.MethodGet, "/v1/forests/mare-alta/export/"+id+"?recursive=true", key, "")
	}
	r := get(keyScoped, "projects/_index")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "application/zip", r.header.Get("Content-Type"))
	assert.Equal(t, `attachment; filename="projects.zip"`, r.header.Get("Content-Disposition"))
	names := zipMembers(t, st, keyScoped, r.body)
	var want []string
	for _, id := range st.man.Nodes {
		if strings.HasPrefix(id, "projects/") && id != "projects/_index" && visibleUnder(id) {
			want = append(want, id+".md")
		}
	}
	slices.Sort(want)
	assert.Equal(t, append([]string{"projects/_index.md"}, want...), names, "the branch first, then visible descendants by id")
	assert.Equal(t, r.body, get(keyScoped, "projects/_index").body, "deterministic bytes")

	full := zipMembers(t, st, keyFull, get(keyFull, "projects/_index").body)
	assert.Greater(t, len(full), len(names), "hidden nodes are absent, silently")

	r = get(keyFull, "_index")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, `attachment; filename="mare-alta.zip"`, r.header.Get("Content-Disposition"), "the root zips as the forest")
	assert.Len(t, zipMembers(t, st, keyFull, r.body), len(st.man.Nodes))

	e := envelope(t, get(keyFull, "concepts/tide"), http.StatusBadRequest, vine.ESchema)
	assert.Contains(t, e["message"], "recursive=true needs a branch")
	absent := get(keyScoped, "nowhere/_index")
	assert.Equal(t, absent.body, strings.ReplaceAll(get(keyScoped, "people/_index").body, "people/_index", "nowhere/_index"),
		"the scope gate runs first")
}

// zipMembers lists a zip's members and checks each is byte-identical to
// the node's single export.
func zipMembers(t *testing.T, st *station, key, body string) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader([]byte(body)), int64(len(body)))
	require.NoError(t, err)
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		single := st.do(http.MethodGet, "/v1/forests/mare-alta/export/"+strings.TrimSuffix(f.Name, ".md"), key, "")
		assert.Equal(t, single.body, string(data), "%s is its single export", f.Name)
	}
	return names
}
