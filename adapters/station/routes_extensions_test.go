// SPDX-License-Identifier: Apache-2.0

package station

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/internal/exttest"
)

// orgTree builds the example Org-mode converter into an installable tree.
func orgTree(t *testing.T) string {
	return exttest.Tree(t, "github.com/monkeyllm/vine/examples/ext-org")
}

// TestExtensionsOnTheStation: the owner installs (F.185 acknowledgement
// first), a forest admin who does not govern the deployment may list
// and enable but not install (F.217's enable_on by the owner), the
// enablement is one commit, and the next ingest is converted by the
// extension with no restart (F.216).
func TestExtensionsOnTheStation(t *testing.T) {
	tree := orgTree(t)
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	ts := newTestStation(t, func(o *Options) { o.Extensions = home; o.ExtUploadMaxMB = 1 })
	owner := ts.owner()
	created := ts.call("POST", "/v1/admin/forests", owner, map[string]any{"id": "second", "title": "Second"})
	require.Equal(t, http.StatusOK, created.status, created.body)
	a := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "ana", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin"}}})
	require.Equal(t, http.StatusOK, a.status, a.body)
	ana := a.str("api_key")

	unacked := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": tree})
	assert.Equal(t, http.StatusBadRequest, unacked.status, unacked.body)
	assert.Contains(t, unacked.body, `"reason":"unverified"`)

	refused := ts.call("POST", "/v1/admin/extensions", ana, map[string]any{"action": "install", "source": tree, "acknowledge": true})
	assert.Equal(t, http.StatusForbidden, refused.status, refused.body)
	assert.Contains(t, refused.body, "authority over the whole deployment")

	plan := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "plan", "source": tree})
	require.Equal(t, http.StatusOK, plan.status, plan.body)
	assert.Equal(t, true, plan.json["kit"].(map[string]any)["ok"])

	inst := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": tree,
		"acknowledge": true, "enable_on": forestID})
	require.Equal(t, http.StatusCreated, inst.status, inst.body)
	assert.Equal(t, "unverified", inst.str("tier"))
	assert.Equal(t, forestID, inst.str("enabled_on"), inst.body)
	assert.Equal(t, false, inst.json["restart_required"])

	list := ts.call("GET", "/v1/admin/extensions", ana, nil)
	require.Equal(t, http.StatusOK, list.status, list.body)
	assert.Contains(t, list.body, `"id":"org"`)
	assert.Contains(t, list.body, `"formats":[".org"]`)
	assert.Contains(t, list.body, `"loaded":true`, "active at once, though no worker runs before first use (F.216)")
	assert.Contains(t, list.body, `"running":false`)
	assert.NotContains(t, list.body, tree, "the source is withheld from a forest admin")
	assert.Equal(t, false, list.json["may_install"])
	assert.Contains(t, ts.call("GET", "/v1/admin/extensions", owner, nil).body, `"source":"`+tree)

	en := ts.call("GET", "/v1/admin/extensions/enablement?forest="+forestID, ana, nil)
	require.Equal(t, http.StatusOK, en.status, en.body)
	assert.Contains(t, en.body, `"enabled":["org"]`)
	other := ts.call("GET", "/v1/admin/extensions/enablement?forest=second", ana, nil)
	assert.Equal(t, http.StatusForbidden, other.status, "ana administers only "+forestID)

	org := base64.StdEncoding.EncodeToString([]byte("#+TITLE: Tide table\n* High water\nAt /dawn/ and =dusk=.\n"))
	r := ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{
		"files": []any{map[string]any{"name": "tides.org", "b64": org}}, "dest": "operations", "wait": true})
	require.Equal(t, http.StatusOK, r.status, r.body)
	body, err := os.ReadFile(filepath.Join(ts.root, forestID, "operations", "tides.md"))
	require.NoError(t, err, r.body)
	assert.Contains(t, string(body), "At *dawn* and `dusk`.", "the extension converted the upload")

	status := ts.call("GET", "/v1/forests/"+forestID+"/ingest", owner, nil)
	assert.Contains(t, status.body, `"ext:org"`, "the formats list follows the enablement (F.214)")

	off := ts.call("POST", "/v1/admin/extensions/enablement", ana, map[string]any{"forest": forestID, "ext": "org", "enabled": false})
	require.Equal(t, http.StatusOK, off.status, off.body)
	assert.NotContains(t, ts.call("GET", "/v1/forests/"+forestID+"/ingest", owner, nil).body, `"ext:org"`)

	cfg := ts.call("POST", "/v1/admin/extensions/config", owner, map[string]any{"ext": "org", "values": map[string]any{"keep_todo": true}})
	require.Equal(t, http.StatusOK, cfg.status, cfg.body)
	bad := ts.call("POST", "/v1/admin/extensions/config", owner, map[string]any{"ext": "org", "values": map[string]any{"colour": "red"}})
	assert.Equal(t, http.StatusBadRequest, bad.status)
	assert.Contains(t, bad.body, "keep_todo", "the hint names the declared settings")
	assert.Equal(t, http.StatusForbidden, ts.call("GET", "/v1/admin/extensions/config?ext=org", ana, nil).status)

	// F.200: an upload over the ceiling is refused before it is written.
	big := base64.StdEncoding.EncodeToString(make([]byte, 2<<20))
	tooBig := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "upload": map[string]any{"name": "x.zip", "b64": big}})
	assert.Equal(t, http.StatusBadRequest, tooBig.status, tooBig.body)
	assert.Contains(t, tooBig.body, `"reason":"too_large"`)
	entries, _ := os.ReadDir(home.Dir())
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), ".upload"), "an oversized upload is refused before it is written")
	}

	removed := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "remove", "id": "org"})
	require.Equal(t, http.StatusOK, removed.status, removed.body)
	after := ts.call("GET", "/v1/admin/extensions/enablement?forest="+forestID, owner, nil)
	assert.Contains(t, after.body, `"expected_but_absent":["org"]`)
}

// TestUploadedExtension is F.199: an upload never names a host path, is
// always unverified and waits for acknowledgement; a declared panel is
// served validated, and one that cannot be served is named, never an
// error (F.190).
func TestUploadedExtension(t *testing.T) {
	tree := orgTree(t)
	m, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	m = []byte(strings.Replace(string(m), `"contributes": {`, `"contributes": {"panel": "ui/panel.json",`, 1))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "manifest.json"), m, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "ui"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "ui", "panel.json"),
		[]byte(`{"title": "Org", "sections": [{"title": "Headings", "fields": ["keep_todo"]}]}`), 0o644))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []string{"manifest.json", "LICENSE", "main", "ui/panel.json"} {
		data, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f)))
		require.NoError(t, err)
		h := &zip.FileHeader{Name: "org/" + f, Method: zip.Deflate}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	ts := newTestStation(t, func(o *Options) { o.Extensions = home })
	owner := ts.owner()
	upload := map[string]any{"name": "org.zip", "b64": base64.StdEncoding.EncodeToString(buf.Bytes())}
	r := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "upload": upload})
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	assert.Contains(t, r.body, `"reason":"unverified"`)
	r = ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "upload": upload, "acknowledge": true})
	require.Equal(t, http.StatusCreated, r.status, r.body)
	assert.Equal(t, "unverified", r.str("tier"))
	list := ts.call("GET", "/v1/admin/extensions", owner, nil)
	assert.Contains(t, list.body, `"source":"upload:org.zip"`)
	assert.Contains(t, list.body, `"panel":{"title":"Org","sections":[{"title":"Headings","fields":["keep_todo"]}]}`,
		"the Studio is this host's console surface: the validated panel is served")
	assert.Contains(t, list.body, `"unserved":[]`)
	assert.Contains(t, list.body, `"keep_todo":{"type":"boolean"`, "the declared settings a panel draws from")

	// A panel that stops validating (its file gone from the tree) is
	// inert and named, never an error (F.190).
	rec, err := home.Lookup("org")
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(home.Tree(rec), "ui", "panel.json")))
	list = ts.call("GET", "/v1/admin/extensions", owner, nil)
	require.Equal(t, http.StatusOK, list.status, list.body)
	assert.Contains(t, list.body, `"unserved":[{"surface":"panel","note":"unservable: ui/panel.json: not in the tree"}]`)
	assert.NotContains(t, list.body, `"panel":{`)
	entries, _ := os.ReadDir(home.Dir())
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), ".upload"), "the upload's scratch file is gone")
	}
}

// TestExtensionsLoaderInert: a Station without an install home lists
// none and refuses installs by name, never failing.
func TestExtensionsLoaderInert(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	list := ts.call("GET", "/v1/admin/extensions", owner, nil)
	require.Equal(t, http.StatusOK, list.status, list.body)
	assert.Contains(t, list.body, `"extensions":[]`)
	assert.Contains(t, list.body, `"loader":"inert"`)
	r := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": "/nowhere"})
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body, "E_EXT_INSTALL")
}

// TestExtensionRoute is F.196 and F.179: a route under /v1/ext/<id>/,
// served only where the forest enables it, every miss the same bytes;
// the extension's callback reads with the caller's scope, so an id
// outside it is the very E_NOT_FOUND of an absent one.
func TestExtensionRoute(t *testing.T) {
	tree := exttest.Tree(t, "github.com/monkeyllm/vine/adapters/station/testdata/extpeek")
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	ts := newTestStation(t, func(o *Options) { o.Extensions = home })
	owner := ts.owner()
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/forests", owner, map[string]any{"id": "second", "title": "Second"}).status)
	inst := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": tree, "acknowledge": true, "enable_on": forestID})
	require.Equal(t, http.StatusCreated, inst.status, inst.body)
	// The outcome names what it offers, so a console states it in order.
	assert.Contains(t, inst.body, `"tools":[{"name":"x_peek_echo","description":"echo the arguments with the forest"}]`)
	assert.Contains(t, inst.body, `"registers_roles":[{"role":"peek_chat","kind":"chat"`)
	assert.Contains(t, inst.body, `"requires_roles":[]`)
	p := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "rita", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read"}, "allow": []string{"concepts/"}}})
	require.Equal(t, http.StatusOK, p.status, p.body)
	rita := p.str("api_key")

	in := ts.call("POST", "/v1/ext/peek/lookup?forest="+forestID, rita, map[string]any{"id": "concepts/tide"})
	require.Equal(t, http.StatusOK, in.status, in.body)
	assert.Contains(t, in.body, `"picked"`)

	hidden := ts.call("POST", "/v1/ext/peek/lookup?forest="+forestID, rita, map[string]any{"id": "people/beatriz-nunes"})
	absent := ts.call("POST", "/v1/ext/peek/lookup?forest="+forestID, rita, map[string]any{"id": "people/nobody-at-all"})
	require.Equal(t, http.StatusOK, hidden.status, hidden.body)
	assert.Equal(t, "E_NOT_FOUND", hidden.json["refused"], hidden.body)
	direct := ts.call("POST", "/v1/forests/"+forestID+"/pick", rita, map[string]any{"id": "people/beatriz-nunes"})
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(direct.body), &env))
	got, _ := json.Marshal(hidden.json["envelope"])
	assert.JSONEq(t, string(env.Error), string(got), "the extension reads the primitive's own refusal")
	gotAbsent, _ := json.Marshal(absent.json["envelope"])
	assert.Equal(t, strings.ReplaceAll(string(got), "beatriz-nunes", "X"), strings.ReplaceAll(string(gotAbsent), "nobody-at-all", "X"),
		"out of scope reads exactly as absent")

	misses := []string{
		"/v1/ext/peek/lookup?forest=second",      // a forest that does not enable it
		"/v1/ext/peek/nosuch?forest=" + forestID, // an unknown name
		"/v1/ext/ghost/lookup?forest=" + forestID,
		"/v1/ext/peek/lookup?forest=nowhere",
	}
	var first string
	for _, m := range misses {
		r := ts.call("POST", m, rita, map[string]any{})
		assert.Equal(t, http.StatusNotFound, r.status, m)
		if first == "" {
			first = r.body
		}
		assert.Equal(t, first, r.body, "every miss answers the same bytes: %s", m)
	}
	assert.Contains(t, first, "/v1/ext/peek/lookup?forest="+forestID, "the hint is the key's menu")
	assert.Equal(t, http.StatusUnauthorized, ts.call("POST", "/v1/ext/peek/lookup?forest="+forestID, "", map[string]any{}).status)

	// F.195: events reach the extension only from forests that enable it.
	for _, f := range []string{forestID, "second"} {
		planted := ts.call("POST", "/v1/forests/"+f+"/plant", owner, map[string]any{"node": map[string]any{
			"id": "evt-note", "type": "note", "title": "Event note", "summary": "A note planted to raise an event.", "parent": "_index"}})
		require.Equal(t, http.StatusOK, planted.status, planted.body)
	}
	require.Eventually(t, func() bool { // a wait for the asynchronous delivery, not a measure of it
		r := ts.call("POST", "/v1/ext/peek/seen?forest="+forestID, owner, map[string]any{})
		return strings.Contains(r.body, forestID+" node.planted")
	}, 30*time.Second, 50*time.Millisecond)
	r := ts.call("POST", "/v1/ext/peek/seen?forest="+forestID, owner, map[string]any{})
	assert.NotContains(t, r.body, "second ", "a forest that does not enable it sends nothing")

	// F.215, F.176, F.177: the role the extension registers is in the
	// catalogue and binds; unbound, its model call is refused naming it;
	// bound, it answers through the bound caller and is audited.
	roles := ts.call("GET", "/v1/admin/models?forest="+forestID, owner, nil)
	require.Equal(t, http.StatusOK, roles.status, roles.body)
	assert.Contains(t, roles.body, `{"role":"peek_chat","kind":"chat","builtin":false,"ext":"peek"`)
	unbound := ts.call("POST", "/v1/ext/peek/ask?forest="+forestID, owner, map[string]any{"q": "hello"})
	require.Equal(t, http.StatusOK, unbound.status, unbound.body)
	assert.Contains(t, unbound.body, `role \"peek_chat\" is not bound`)
	srv := llamacpptest.NewServer(llamacpptest.Reply("Hello from the bound model."))
	t.Cleanup(srv.Close)
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/providers", owner, map[string]any{"name": "lab", "endpoint": srv.URL + "/v1"}).status)
	bind := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "peek_chat", "provider": "lab", "model": "tiny"})
	require.Equal(t, http.StatusOK, bind.status, bind.body)
	asked := ts.call("POST", "/v1/ext/peek/ask?forest="+forestID, owner, map[string]any{"q": "hello"})
	require.Equal(t, http.StatusOK, asked.status, asked.body)
	assert.Contains(t, asked.body, "Hello from the bound model.")
	require.NoError(t, ts.s.audit.Flush(context.Background()))
	trail := ts.call("GET", "/v1/admin/audit?limit=500", owner, nil)
	assert.Contains(t, trail.body, `"model.peek_chat"`)

	// F.197: jobs only where enabled, pulled by the forest's admin.
	jobs := ts.call("GET", "/v1/admin/extensions/jobs?forest="+forestID, owner, nil)
	require.Equal(t, http.StatusOK, jobs.status, jobs.body)
	assert.Contains(t, jobs.body, `{"name":"census","ext":"peek"`)
	assert.Contains(t, ts.call("GET", "/v1/admin/extensions/jobs?forest=second", owner, nil).body, `"jobs":[]`)
	ran := ts.call("POST", "/v1/admin/extensions/jobs", owner, map[string]any{"forest": forestID, "job": "census"})
	require.Equal(t, http.StatusOK, ran.status, ran.body)
	assert.Contains(t, ran.body, `"coverage"`)
	assert.Equal(t, http.StatusNotFound, ts.call("POST", "/v1/admin/extensions/jobs", owner, map[string]any{"forest": "second", "job": "census"}).status)
	assert.Equal(t, http.StatusForbidden, ts.call("POST", "/v1/admin/extensions/jobs", rita, map[string]any{"forest": forestID, "job": "census"}).status)

	// F.180: MCP shows each key the tools of the forests it reaches that
	// enable them; any other call reads as an unknown tool, byte for byte.
	q := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "quinn", "issue_key": true,
		"grant": map[string]any{"forest": "second", "caps": []string{"read"}}})
	require.Equal(t, http.StatusOK, q.status, q.body)
	ctx := context.Background()
	session := func(key string) *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "ext-tools", Version: "1"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: ts.url + "/mcp", HTTPClient: &http.Client{Transport: bearer(key)}}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	names := func(cs *sdk.ClientSession) []string {
		list, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		var out []string
		for _, tool := range list.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	ritaMCP, quinnMCP := session(rita), session(q.str("api_key"))
	assert.Contains(t, names(ritaMCP), "x_peek_echo", "rita reaches a forest that enables it")
	assert.NotContains(t, names(quinnMCP), "x_peek_echo", "quinn reaches only a forest that does not")
	call := func(cs *sdk.ClientSession, tool, f string) *sdk.CallToolResult {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"forest": f, "args": map[string]any{"n": 1}}})
		require.NoError(t, err)
		return res
	}
	ok := call(ritaMCP, "x_peek_echo", forestID)
	require.False(t, ok.IsError, ok.Content[0].(*sdk.TextContent).Text)
	assert.Contains(t, ok.Content[0].(*sdk.TextContent).Text, `"forest":"`+forestID+`"`)
	text := func(r *sdk.CallToolResult) string { return r.Content[0].(*sdk.TextContent).Text }
	unknown := text(call(quinnMCP, "x_peek_nosuch", "second"))
	assert.Contains(t, unknown, "E_NOT_FOUND")
	assert.Equal(t, unknown, strings.ReplaceAll(text(call(quinnMCP, "x_peek_echo", "second")), "x_peek_echo", "x_peek_nosuch"),
		"a forest that does not enable it answers as an unknown tool")
	assert.Equal(t, unknown, strings.ReplaceAll(text(call(quinnMCP, "x_peek_echo", forestID)), "x_peek_echo", "x_peek_nosuch"),
		"an unreached forest answers as an unknown tool")
}

// TestAuthoring is F.204: open to anyone signed in, generated, never an
// install door.
func TestAuthoring(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	p := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "rita", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read"}}})
	require.Equal(t, http.StatusOK, p.status, p.body)
	doc := ts.call("GET", "/v1/extensions/authoring", p.str("api_key"), nil)
	require.Equal(t, http.StatusOK, doc.status, doc.body)
	assert.Contains(t, doc.body, `"seams":[{"seam":"converters"`)
	assert.Contains(t, doc.body, `"manifest_schema"`)
	md := ts.call("GET", "/v1/extensions/authoring?as=markdown&doc=seams", p.str("api_key"), nil)
	require.Equal(t, http.StatusOK, md.status)
	assert.True(t, strings.HasPrefix(md.body, "<!-- GENERATED"))
	assert.Equal(t, http.StatusUnauthorized, ts.call("GET", "/v1/extensions/authoring", "", nil).status)
	assert.Equal(t, http.StatusMethodNotAllowed, ts.call("POST", "/v1/extensions/authoring", p.str("api_key"), map[string]any{}).status)
}
