// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shootAt shoots a part of a screen in light and dark: the element is
// scrolled to the top of the view first.
func shootAt(t *testing.T, ctx context.Context, name, sel string) {
	t.Helper()
	for i, theme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = '`+theme+`';
			document.querySelectorAll('.rail .prefs button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === `+strconv.Itoa(i)+`)));
			document.querySelector(`+jsString(sel)+`).scrollIntoView()`)))
		shoot(t, ctx, name)
		axe(t, ctx, name+" "+theme)
	}
	require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = 'light';
		document.querySelectorAll('.rail .prefs button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === 0)))`)))
}

// integrationsConsole is 10 §6.14 under the owner: the client snippets
// carry this origin and parse as the JSON they claim to be, the tools
// are the served catalogue with their caps, the page nav follows the
// section in view; a key without admin finds it neither in the menu
// nor at its address.
func integrationsConsole(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	signIn(t, ctx, base, login.Key)
	do(t, ctx, "integrations", click(`nav a[data-console="integrations"]`), waitFor(`document.querySelector('tr[data-tool="locate"]')`))
	assert.Equal(t, "MCP / API / Integrations", text(t, ctx, `nav a[data-console="integrations"]`))
	assert.Equal(t, base, text(t, ctx, `[data-origin]`))
	for _, s := range []string{"claude-desktop", "claude-code", "cursor", "http", "api-look", "pair", "deploy"} {
		assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-snippet="`+s+`"]').textContent`),
			strings.TrimPrefix(base, "http://"), "the %s snippet uses this origin", s)
	}
	var desktop, cursor struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			URL     string
			Headers map[string]string
		} `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, ctx, `document.querySelector('[data-snippet="claude-desktop"]').textContent`)), &desktop))
	assert.Contains(t, desktop.MCPServers["monkeyllm"].Args, base+"/mcp/")
	require.NoError(t, json.Unmarshal([]byte(eval[string](t, ctx, `document.querySelector('[data-snippet="cursor"]').textContent`)), &cursor))
	assert.Equal(t, base+"/mcp/", cursor.MCPServers["monkeyllm"].URL)
	assert.Equal(t, "Bearer mk_…", cursor.MCPServers["monkeyllm"].Headers["Authorization"])
	assert.Equal(t, "claude mcp add --transport http monkeyllm "+base+"/mcp/ --header \"Authorization: Bearer mk_…\"", text(t, ctx, `[data-snippet="claude-code"]`))

	// The tools are what the mount serves this key, each with its cap.
	caps := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('tr[data-tool]')].map(r => [r.dataset.tool, r.querySelector('.badge').textContent]))`)
	assert.Equal(t, "read", caps["locate"])
	assert.Equal(t, "write", caps["plant"])
	assert.Equal(t, "answer", caps["answer"], "the answer model is bound, so the tool is served")
	assert.Equal(t, "key", caps["forests"])
	assert.Equal(t, "read", caps["close_session"], "the engine's rule: close_session needs read")
	for tool, c := range caps {
		assert.Contains(t, []string{"key", "read", "write", "query", "tend", "ingest", "answer"}, c, "%s has a cap", tool)
	}
	assert.Positive(t, eval[int](t, ctx, `document.querySelectorAll('details.routes tbody tr').length`), "the routes are the served document's")
	themed(t, ctx, "integrations")

	// The page nav follows the section in view.
	assert.Equal(t, "overview", eval[string](t, ctx, `document.querySelector('.page-nav a[aria-current="true"]').dataset.nav`))
	do(t, ctx, "integrations-nav", click(`.page-nav a[data-nav="mcp"]`), waitFor(`document.querySelector('.page-nav a[data-nav="mcp"][aria-current="true"]')`))
	assert.Equal(t, "/f/"+forestID+"/integrations", location(t, ctx), "the nav scrolls; the address stays")
	shootAt(t, ctx, "integrations-mcp", "#int-mcp")
	do(t, ctx, "integrations-env", click(`.page-nav a[data-nav="environment"]`), waitFor(`document.querySelector('.page-nav a[data-nav="environment"][aria-current="true"]')`))
	shootAt(t, ctx, "integrations-env", "#int-environment")

	// The owner's skill teaches answer and every block: the key holds them all.
	do(t, ctx, "skills-owner", click(`nav a[data-console="skills"]`), waitFor(`document.querySelector('[data-file="references/datasets.md"] pre')`))
	ownerCore := eval[string](t, ctx, `document.querySelector('[data-file="SKILL.md"] pre').textContent`)
	assert.Contains(t, ownerCore, `answer({"forest": "`+forestID+`"`)
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('[data-file="references/datasets.md"] pre').textContent`), "tend(", "tend is taught to a key holding it")
	assert.Equal(t, 6, eval[int](t, ctx, `document.querySelectorAll('[data-file]').length`))

	// Without admin: absent from the menu, and its address explains.
	key := readOnlyKey(t, base, login.Key, "ines")
	do(t, ctx, "integrations-denied", useKey(key), chromedp.Navigate(base+"/f/"+forestID+"/integrations"), afterLoad(`document.querySelector('[data-denied="integrations"]') && !document.querySelector('main .spinner')`))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('nav a[data-console="integrations"]').length`))
	assert.Contains(t, text(t, ctx, `[data-denied="integrations"]`), "admin")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-snippet]').length`), "no manual is rendered")
}
