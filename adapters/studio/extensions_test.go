// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"archive/zip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/internal/exttest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// panelNotes carries markup on purpose: a panel is the extension's
// text, shown as text (10 §8), never parsed.
const panelNotes = "The key is kept by the Station.\n<img src=x onerror=alert(1)> stays text."

// peekWithPanel is the Station tests' extension (extpeek) as an
// installable tree, given a config block with one secret and one plain
// setting (and one the panel leaves out) and a declarative
// ui/panel.json that shows the two.
func peekWithPanel(t *testing.T) string {
	t.Helper()
	tree := exttest.Tree(t, "github.com/monkeyllm/vine/adapters/station/testdata/extpeek")
	m, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	s := strings.Replace(string(m), `"contributes": {`, `"contributes": {"panel": "ui/panel.json",`, 1)
	s = strings.Replace(s, `"models":`, `"config": {"api_key": {"type": "string", "secret": true, "description": "the lookup service's key"},
    "greeting": {"type": "string", "default": "hello", "description": "what the ask route says first"},
    "verbose": {"type": "boolean", "default": false, "description": "log every lookup"}},
  "models":`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(tree, "manifest.json"), []byte(s), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "ui"), 0o755))
	panel := `{"title": "Peek settings", "blurb": "How peek talks to its lookup service.",
  "sections": [{"title": "Service", "fields": ["api_key"]}, {"title": "Replies", "fields": ["greeting"]}],
  "notes": ` + jsString(panelNotes) + `}`
	require.NoError(t, os.WriteFile(filepath.Join(tree, "ui", "panel.json"), []byte(panel), 0o644))
	return tree
}

// zipTree packs a tree as a browser would upload it, under one
// top-level directory, keeping the entry executable.
func zipTree(t *testing.T, tree string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "peek.zip")
	f, err := os.Create(out)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for _, name := range []string{"manifest.json", "LICENSE", "main", "ui/panel.json"} {
		data, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(name)))
		require.NoError(t, err)
		hdr := &zip.FileHeader{Name: "peek/" + name, Method: zip.Deflate}
		hdr.SetMode(0o755)
		w, err := zw.CreateHeader(hdr)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return out
}

// losingOnce makes the page's first unacknowledged removal answer the
// 409 of spec 11 §7 (what the forests would lose), and records whether
// each removal it sends acknowledges.
const losingOnce = `(() => {
  const real = window.fetch;
  let once = true;
  window.removals = [];
  window.fetch = (url, opts) => {
    const body = opts && typeof opts.body === 'string' ? JSON.parse(opts.body) : {};
    if (body.action === 'remove') window.removals.push(body.acknowledge === true);
    if (once && body.action === 'remove' && !body.acknowledge) {
      once = false;
      return Promise.resolve(new Response(JSON.stringify({ error: { code: 'E_CONFLICT', message: 'removing peek would lose what forests use',
        losing: ['type:recording'] } }), { status: 409, headers: { 'Content-Type': 'application/json' } }));
    }
    return real(url, opts);
  };
})()`

// extStation is a Station with an extension install home and a fresh
// owner; it returns the address and the owner's key.
func extStation(t *testing.T) (base, key string) {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	s, err := station.New(context.Background(), station.Options{Root: filepath.Dir(dir), Extensions: home,
		Registry: filepath.Join(t.TempDir(), "registry", "station.db"), Writable: true, AllowedHosts: []string{"*"}})
	require.NoError(t, err)
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	var setup struct{ Key string }
	post(t, srv.URL, "/v1/auth/setup", "", map[string]string{"username": owner, "password": ownerPwd}, &setup)
	require.NotEmpty(t, setup.Key)
	return srv.URL, setup.Key
}

// extensionsConsole walks issue 35's console: review shows the plan in
// place beside the one install control; the outcome follows in order;
// enable and disable on this forest; a setting saved through the
// extension's declarative panel, the secret only ever "set"; a
// non-governing admin sees the panel read-only with the reason; an
// upload is reviewed without a host path; remove leaves the forest's
// expectation named.
func extensionsConsole(t *testing.T, ctx context.Context, _ string) {
	tree := peekWithPanel(t)
	base, key := extStation(t)
	page := base + "/f/" + forestID + "/extensions"
	do(t, ctx, "extensions-open", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, key), press(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		press(`dialog.welcome button`), waitFor(`document.querySelector('nav a[data-console="extensions"]')`),
		press(`nav a[data-console="extensions"]`), waitFor(`document.querySelector('form.ext-install') && document.querySelector('[data-empty]')`))
	assert.Equal(t, "Extensions", text(t, ctx, `nav a[data-console="extensions"]`))
	assert.Equal(t, "/f/"+forestID+"/extensions", location(t, ctx))

	// Review: the plan in place; unverified, so Install waits for the
	// acknowledgement; enable_on is on for this forest.
	do(t, ctx, "extensions-review", input(`input[name="ext-source"]`, tree), press(`button[data-review]`),
		waitFor(`document.querySelector('[data-plan="peek"] [data-install]')`))
	plan := text(t, ctx, `[data-plan="peek"]`)
	for _, want := range []string{"Apache-2.0", "unverified", "peek_chat (chat)", "not a security control", "Declared, not enforced"} {
		assert.Contains(t, plan, want)
	}
	assert.Equal(t, "ok", attr(t, ctx, `[data-plan="peek"] details.kit`, "data-kit"))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-install]').disabled`), "unverified: install waits for the acknowledgement")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-enable-on]').checked`), "enable_on defaults on for this forest")
	assert.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('main button.primary').length`), "one primary control")
	themed(t, ctx, "extensions-plan")

	// Install: the outcome in order, with the way to Models for the
	// role it needs bound.
	do(t, ctx, "extensions-install", press(`[data-ack]`), waitFor(`!document.querySelector('[data-install]').disabled`),
		press(`[data-install]`), waitFor(`document.querySelector('[data-outcome="peek"]') && document.querySelector('[data-ext="peek"]')`))
	assert.Equal(t, "now", attr(t, ctx, `[data-outcome="peek"] [data-active]`, "data-active"))
	assert.Equal(t, forestID, attr(t, ctx, `[data-outcome="peek"] [data-enabled-on]`, "data-enabled-on"))
	assert.Contains(t, text(t, ctx, `[data-outcome="peek"] [data-offers]`), "peek_chat (chat)")
	assert.Contains(t, text(t, ctx, `[data-outcome="peek"] [data-offers]`), "x_peek_echo")
	assert.Equal(t, "/f/"+forestID+"/models", attr(t, ctx, `[data-outcome="peek"] a[data-bind-role="peek_chat"]`, "href"))
	order := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-outcome="peek"] [data-active], [data-outcome="peek"] [data-accepts], [data-outcome="peek"] [data-offers], [data-outcome="peek"] [data-missing]')].map(e => Object.keys(e.dataset)[0])`)
	assert.Equal(t, []string{"active", "accepts", "offers", "missing"}, order, "the outcome states its parts in order")
	assert.Empty(t, eval[string](t, ctx, `document.querySelector('input[name="ext-source"]').value`), "the install clears the choice")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-enable="peek"]').checked`))
	themed(t, ctx, "extensions-outcome")

	// Disable, then enable again, on this forest: each is the host's.
	enabled := func() []any {
		return apiJSON(t, "GET", base+"/v1/admin/extensions/enablement?forest="+forestID, key, nil, http.StatusOK)["enabled"].([]any)
	}
	// A job of an enabled extension runs when its admin presses Run.
	do(t, ctx, "extensions-job", press(`[data-run-job="peek.census"]`), waitFor(`document.querySelector('[data-job-result="peek.census"] pre')`))
	assert.Contains(t, text(t, ctx, `[data-job-result="peek.census"]`), `"coverage"`)
	auditVia(t, ctx, base, key, page)
	do(t, ctx, "extensions-disable", press(`[data-enable="peek"]`),
		waitFor(`(b => b && !b.checked && !b.disabled)(document.querySelector('[data-enable="peek"]'))`))
	assert.Empty(t, enabled())
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-jobs]').length`), "a disabled extension offers no job here")
	do(t, ctx, "extensions-enable", press(`[data-enable="peek"]`),
		waitFor(`(b => b && b.checked && !b.disabled)(document.querySelector('[data-enable="peek"]'))`))
	assert.Equal(t, []any{"peek"}, enabled())

	panelSettings(t, ctx, base, key, page)
	notGoverningPanel(t, ctx, base, key, page)
	uploadAndRemove(t, ctx, base, key, page, tree)
}

// panelSettings saves through the panel: the plain setting reads back,
// the secret only ever as "set"; the panel's notes stay text.
func panelSettings(t *testing.T, ctx context.Context, base, key, page string) {
	panel := `[data-panel="peek"]`
	do(t, ctx, "extensions-panel", waitFor(`document.querySelector('`+panel+` [data-secret="api_key"]')`))
	assert.Equal(t, "Peek settings", text(t, ctx, panel+" h3"))
	assert.Equal(t, []string{"Service", "Replies", "Other settings"}, eval[[]string](t, ctx, `[...document.querySelectorAll('`+panel+` legend')].map(l => l.textContent)`))
	assert.Equal(t, "not set", text(t, ctx, panel+` [data-secret="api_key"]`))
	assert.Equal(t, "hello", eval[string](t, ctx, `document.querySelector('`+panel+` input[name="greeting"]').value`), "the declared default")
	assert.Equal(t, panelNotes, eval[string](t, ctx, `document.querySelector('`+panel+` [data-notes]').textContent`))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('main img').length`), "the notes' markup stays text")

	do(t, ctx, "extensions-save", js(`document.querySelector('`+panel+` input[name="greeting"]').value = ''`),
		input(panel+` input[name="greeting"]`, "ahoy"), input(panel+` input[name="api_key"]`, "sk-peek-secret"),
		press(panel+` button[data-save-settings]`), waitFor(`document.querySelector('`+panel+` [data-saved]')`))
	assert.Equal(t, "set", text(t, ctx, panel+` [data-secret="api_key"]`))
	assert.Empty(t, eval[string](t, ctx, `document.querySelector('`+panel+` input[name="api_key"]').value`), "the secret box empties")
	cfg := apiJSON(t, "GET", base+"/v1/admin/extensions/config?ext=peek", key, nil, http.StatusOK)["values"].(map[string]any)
	assert.Equal(t, map[string]any{"has_value": true, "secret": true}, cfg["api_key"])
	assert.Equal(t, "ahoy", cfg["greeting"].(map[string]any)["value"])

	// A fresh page: the secret is "set", never its value; a blank
	// secret box sends null, which keeps it.
	do(t, ctx, "extensions-reload", chromedp.Navigate(page), waitFor(`document.querySelector('`+panel+` [data-secret="api_key"]')`))
	assert.Equal(t, "set", text(t, ctx, panel+` [data-secret="api_key"]`))
	assert.Equal(t, "ahoy", eval[string](t, ctx, `document.querySelector('`+panel+` input[name="greeting"]').value`))
	assert.False(t, eval[bool](t, ctx, `document.documentElement.outerHTML.includes('sk-peek-secret')`), "a secret is never read back")
	do(t, ctx, "extensions-keep", press(panel+` button[data-save-settings]`), waitFor(`document.querySelector('`+panel+` [data-saved]')`))
	assert.Equal(t, "set", text(t, ctx, panel+` [data-secret="api_key"]`), "null keeps the stored secret")
	themedAt(t, ctx, "extensions", panel)
}

// notGoverningPanel: an admin of this forest alone may enable, but sees
// the settings read-only with the reason, and neither install nor remove.
func notGoverningPanel(t *testing.T, ctx context.Context, base, key, page string) {
	apiJSON(t, "POST", base+"/v1/admin/forests", key, map[string]any{"id": "second", "title": "Second"}, http.StatusOK)
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", key, map[string]any{"principal": "ana", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin"}}}, &person)
	do(t, ctx, "extensions-not-governing", keyed(person.APIKey), chromedp.Navigate(page),
		waitFor(`document.querySelector('[data-panel="peek"] [data-readonly]')`))
	assert.Contains(t, text(t, ctx, `[data-governs="no"]`), "authority over the whole deployment")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('form.ext-install, [data-remove], [data-save-settings]').length`))
	assert.True(t, eval[bool](t, ctx, `[...document.querySelectorAll('[data-panel="peek"] input')].every(i => i.disabled)`))
	assert.Empty(t, eval[string](t, ctx, `document.querySelector('[data-panel="peek"] input[name="greeting"]').value`),
		"withheld values are not shown, nor a default in their place")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('[data-enable="peek"]').disabled`), "enabling is this forest's admin's")
	themed(t, ctx, "extensions-not-governing")
	themedAt(t, ctx, "extensions-not-governing-panel", `[data-panel="peek"]`)
	do(t, ctx, "extensions-owner-again", keyed(key), chromedp.Navigate(page), waitFor(`document.querySelector('form.ext-install') && document.querySelector('[data-ext="peek"]')`))
}

// uploadAndRemove: a zip is reviewed as an upload (no host path, always
// unverified); removing the installed one asks twice, and the forest
// that enabled it now names it as expected but absent.
func uploadAndRemove(t *testing.T, ctx context.Context, base, key, page, tree string) {
	do(t, ctx, "extensions-upload", chromedp.SetUploadFiles(chromedp.CSS(`input[name="ext-upload"]`), []string{zipTree(t, tree)}),
		press(`button[data-review]`), waitFor(`document.querySelector('[data-plan="peek"]')`))
	assert.Contains(t, text(t, ctx, `[data-plan="peek"]`), "upload:peek.zip")
	assert.Contains(t, text(t, ctx, `[data-plan="peek"]`), "unverified")
	do(t, ctx, "extensions-unchoose", js(`(() => { const f = document.querySelector('input[name="ext-upload"]'); f.value = ''; f.dispatchEvent(new Event('change')); })()`),
		waitFor(`!document.querySelector('[data-plan]')`))

	// This host's removals lose nothing (no manifest declares a dialect:
	// README, 11 §12.5), so the page is handed the 409 the spec names
	// once, to prove the console shows what would be lost and asks again.
	do(t, ctx, "extensions-remove", js(losingOnce), press(`[data-remove="peek"]`), waitFor(`document.querySelector('[data-remove-yes="peek"]')`),
		press(`[data-remove-yes="peek"]`), waitFor(`document.querySelector('[data-losing="peek"]')`))
	assert.Contains(t, text(t, ctx, `[data-losing="peek"]`), "type:recording")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-removed]').length`), "nothing is removed before the acknowledgement")
	themedAt(t, ctx, "extensions-losing", `[data-losing="peek"]`)
	do(t, ctx, "extensions-remove-ack", press(`[data-remove-ack="peek"]`),
		waitFor(`document.querySelector('[data-removed="peek"]') && document.querySelector('[data-absent]') && document.querySelector('[data-empty]')`))
	assert.Equal(t, []bool{false, true}, eval[[]bool](t, ctx, `window.removals`), "the second request acknowledges")
	assert.Contains(t, text(t, ctx, `[data-absent]`), "peek")
	assert.Contains(t, text(t, ctx, `[data-removed="peek"]`), "quarantine")
	assert.Empty(t, apiJSON(t, "GET", base+"/v1/admin/extensions", key, nil, http.StatusOK)["extensions"])
	themed(t, ctx, "extensions-removed")
}

// auditVia: the job's audit row names the extension in the Audit
// console's via column, and the via filter keeps its rows only; a row no
// extension acted in shows an empty cell, never "no extension".
func auditVia(t *testing.T, ctx context.Context, base, key, page string) {
	require.Eventually(t, func() bool {
		rows, _ := apiJSON(t, "GET", base+"/v1/admin/audit?via=ext:peek", key, nil, http.StatusOK)["entries"].([]any)
		return len(rows) > 0
	}, time.Minute, 100*time.Millisecond, "the job's row is recorded")
	do(t, ctx, "extensions-audit-via", chromedp.Navigate(base+"/f/"+forestID+"/audit?via=ext:peek"),
		waitFor(`document.querySelector('tr[data-row] td[data-via]')`))
	assert.Equal(t, "ext:peek", eval[string](t, ctx, `document.querySelector('select[name="via"]').value`))
	vias := eval[[]string](t, ctx, `[...document.querySelectorAll('tr[data-row] td[data-via]')].map(td => td.textContent)`)
	require.NotEmpty(t, vias)
	for _, v := range vias {
		assert.Equal(t, "ext:peek", v)
	}
	assert.Contains(t, eval[[]string](t, ctx, `[...document.querySelectorAll('table.audit th')].map(th => th.textContent)`), "Extension")
	do(t, ctx, "extensions-audit-all", chromedp.Navigate(base+"/f/"+forestID+"/audit"),
		waitFor(`document.querySelector('tr[data-row="`+owner+`"] td[data-via=""]')`))
	assert.Empty(t, text(t, ctx, `tr[data-row] td[data-via=""]`))
	do(t, ctx, "extensions-back", chromedp.Navigate(page), waitFor(`document.querySelector('[data-enable="peek"]')`))
}
