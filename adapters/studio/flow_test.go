// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	owner    = "olga"
	ownerPwd = "a long owner passphrase"
)

// consoleReady is the DOM condition each console's content meets once
// its data has arrived.
var consoleReady = map[string]string{
	"overview":   `document.querySelector('[data-count="nodes"]') && !document.querySelector('main .spinner')`,
	"ask":        `document.querySelector('textarea[name="question"]')`,
	"explore":    `document.querySelector('canvas.graph[data-drawn="true"]')`,
	"read":       `document.querySelector('form[role="search"]')`,
	"playground": `document.querySelector('main form.card input')`,
	"data":       `document.querySelector('main ul.results a, main p.hint')`,
}

// studioFlow walks the person's path of issue 30: setup, sign out,
// sign in, pick the forest, search, open a node, ask the fake model,
// see the graph, switch language and theme; each console is shot at
// 1280×800 in light and dark and checked with axe-core.
func studioFlow(t *testing.T, ctx context.Context, base string) {

	// Setup: the doorway sees setup_required and offers the owner form.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="password"]`)),
		input(`input[name="username"]`, owner), input(`input[name="password"]`, ownerPwd), click(`input[value="skip"]`)))
	assert.Equal(t, "light", attr(t, ctx, "html", "data-theme"), "the CSP admits the inline theme script, which alone sets it at load")
	t.Logf("first load: %d bytes transferred (shell, styles, modules, one language)", eval[int](t, ctx,
		`performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).reduce((n, e) => n + e.transferSize, 0)`))
	shoot(t, ctx, "setup")
	require.NoError(t, chromedp.Do(ctx, click(`form button[type="submit"]`), waitFor(`document.querySelector('nav a[data-console]')`),
		waitFor(`document.querySelector('dialog.welcome[open]')`)))
	shoot(t, ctx, "welcome")
	axe(t, ctx, "first access")
	require.NoError(t, chromedp.Do(ctx, click(`dialog.welcome button`), waitFor(`!document.querySelector('dialog.welcome')`)))

	// Sign out and back in with the password: the welcome is not shown again.
	require.NoError(t, chromedp.Do(ctx, click(`.rail footer > button`), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="username"]`, owner), input(`input[name="password"]`, ownerPwd)))
	shoot(t, ctx, "signin")
	require.NoError(t, chromedp.Do(ctx, click(`form button[type="submit"]`), waitFor(`document.querySelector('nav a[data-console]')`)))
	assert.Contains(t, location(t, ctx), "/f/"+forestID+"/ask", "the landing console is Ask when the key may answer")
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('dialog.welcome')`), "first access is shown once per browser")

	// Pick the forest, search, open a node.
	require.NoError(t, chromedp.Do(ctx, click(`a[data-forest="`+forestID+`"]`), click(`nav a[data-console="explore"]`),
		waitFor(consoleReady["explore"]), input(`input[type="search"]`, "tide"), click(`form[role="search"] button`),
		waitFor(`document.querySelector('.results a.node-link[href*="node=concepts%2Ftide"]')`),
		click(`.results a.node-link[href*="node=concepts%2Ftide"]`), waitFor(`document.querySelector('article.card h2')`)))
	assert.Equal(t, "Tide", text(t, ctx, "main h1"))
	assert.Contains(t, location(t, ctx), "/f/"+forestID+"/read?node=concepts%2Ftide")
	shoot(t, ctx, "read")

	// Ask: the answer, its evidence, the engine's timing.
	require.NoError(t, chromedp.Do(ctx, click(`nav a[data-console="ask"]`), waitFor(consoleReady["ask"]),
		input(`textarea[name="question"]`, "How often do tides rise?"), click(`main form button[type="submit"]`),
		waitFor(`document.querySelector('[data-answer]')`)))
	assert.Contains(t, text(t, ctx, "[data-answer]"), fakeAnswer)
	assert.Contains(t, text(t, ctx, "[data-answer]"), "fake-9b", "the model badge")
	require.NoError(t, chromedp.Do(ctx, waitFor(`document.querySelectorAll('.runs [data-restore]').length === 1`)), "the run is kept")
	shoot(t, ctx, "ask")

	// The graph by keyboard: Tab reaches it, arrows select, Enter opens.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/"+forestID+"/explore?node=concepts/tide"), waitFor(consoleReady["explore"]),
		chromedp.Focus(chromedp.CSS(`canvas.graph`)), chromedp.KeyEvent(kb.ArrowRight),
		waitFor(`document.querySelector('.graph-wrap .card .meta').textContent !== 'concepts/tide'`), chromedp.KeyEvent(kb.ArrowLeft),
		waitFor(`document.querySelector('.graph-wrap .card .meta').textContent === 'concepts/tide'`),
		waitFor(`new URLSearchParams(location.search).get('node') === 'concepts/tide'`),
		// A mode change keeps the selection, there and back.
		click(`main .tabs button:nth-child(2)`), waitFor(`location.search.includes('mode=files') && location.search.includes('node=concepts%2Ftide')`),
		waitFor(`document.querySelector('main a.node-link')`), click(`main .tabs button:nth-child(1)`), waitFor(consoleReady["explore"]),
		chromedp.Focus(chromedp.CSS(`canvas.graph`)), chromedp.KeyEvent(kb.Enter),
		waitFor(`location.pathname.endsWith('/read') && document.querySelector('article.card h2')`)))
	assert.Equal(t, "Tide", text(t, ctx, "main h1"))

	// Share the node: the link is shown once, listed, then revoked.
	err := chromedp.Do(ctx, click(`button.share-create`), waitFor(`document.querySelector('code.share-url')`),
		waitFor(`document.querySelector('[data-revoke]')`))
	require.NoError(t, err, eval[string](t, ctx, `document.querySelector('main aside').textContent`))
	assert.Contains(t, text(t, ctx, "code.share-url"), base+"/s/")
	err = chromedp.Do(ctx, click(`[data-revoke]`), waitFor(`!document.querySelector('[data-revoke]')`))
	require.NoError(t, err, eval[string](t, ctx, `document.querySelector('main aside').textContent`))

	for _, theme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, setTheme(theme), waitFor(`document.documentElement.dataset.theme === '`+theme+`'`)))
		for _, c := range []string{"overview", "explore", "read", "playground", "data", "ask"} {
			require.NoError(t, chromedp.Do(ctx, click(`nav a[data-console="`+c+`"]`), waitFor(consoleReady[c])), c)
			if c == "data" {
				require.NoError(t, chromedp.Do(ctx, click(`main ul.results a`), waitFor(`document.querySelector('table.rows tbody tr[data-rowid]')`)))
			}
			if c == "ask" {
				// The same question again: the stored answer, marked as such.
				require.NoError(t, chromedp.Do(ctx, input(`textarea[name="question"]`, "How often do tides rise?"),
					click(`main form button[type="submit"]`), waitFor(`document.querySelector('[data-answer] .badge.stored')`)))
			}
			if c == "read" {
				require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/"+forestID+"/read?node=concepts/tide"), waitFor(`document.querySelector('article.card h2')`)))
			}
			shoot(t, ctx, c)
			axe(t, ctx, c+" "+theme)
		}
	}

	// F.34: Back retraces consoles; a forest the key cannot see is said,
	// not swapped.
	require.NoError(t, chromedp.Do(ctx, click(`nav a[data-console="overview"]`), waitFor(consoleReady["overview"]),
		chromedp.NavigateBack(), waitFor(consoleReady["ask"])))
	assert.Equal(t, "/f/"+forestID+"/ask", location(t, ctx))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/nowhere/explore"), waitFor(`document.querySelector('main h1')`)))
	assert.Contains(t, text(t, ctx, "main h1"), "nowhere")
	assert.Equal(t, "/f/nowhere/explore", location(t, ctx), "the address is kept")
	require.NoError(t, chromedp.Do(ctx, click(`main a[href^="/f/`+forestID+`/"]`), waitFor(`document.querySelector('nav a[data-console]')`)))

	// F.35: a restore puts the run back and sends nothing; sign-out
	// leaves no run behind.
	require.NoError(t, chromedp.Do(ctx, waitFor(`document.querySelectorAll('.runs [data-restore]').length === 3`)), "three asks, three runs")
	asked := `performance.getEntriesByType('resource').filter(e => e.name.endsWith('/answer')).length`
	before := eval[int](t, ctx, asked)
	require.NoError(t, chromedp.Do(ctx, click(`.runs [data-restore]`), waitFor(`document.querySelector('[data-restored]')`)))
	assert.Equal(t, "How often do tides rise?", eval[string](t, ctx, `document.querySelector('textarea[name="question"]').value`))
	assert.Equal(t, before, eval[int](t, ctx, asked), "restoring sends no request")
	assert.Equal(t, 3, eval[int](t, ctx, `document.querySelectorAll('.runs [data-restore]').length`), "restoring adds no run")

	// Language: the chrome changes, the content does not.
	require.NoError(t, chromedp.Do(ctx, setLanguage("pt"), waitFor(`document.documentElement.lang === 'pt'`)))
	assert.Equal(t, "Perguntar", text(t, ctx, `nav a[data-console="ask"]`))
	require.NoError(t, chromedp.Do(ctx, setLanguage("es"), waitFor(`document.documentElement.lang === 'es'`)))
	assert.Equal(t, "Explorar", text(t, ctx, `nav a[data-console="explore"]`))
	// A reload keeps the place, the language and the theme, and asks nothing.
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), waitFor(`document.querySelector('nav a[data-console]')`)))
	assert.Equal(t, "es", attr(t, ctx, "html", "lang"))
	assert.Equal(t, "dark", attr(t, ctx, "html", "data-theme"))

	require.NoError(t, chromedp.Do(ctx, click(`.rail footer > button`), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="username"]`, owner), input(`input[name="password"]`, ownerPwd), click(`form button[type="submit"]`),
		waitFor(`document.querySelector('.runs h2')`)))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('.runs [data-restore]').length`), "sign-out deleted the runs")
}

func location(t *testing.T, ctx context.Context) string {
	return eval[string](t, ctx, `location.pathname + location.search`)
}

func attr(t *testing.T, ctx context.Context, sel, name string) string {
	return eval[string](t, ctx, `document.querySelector(`+jsString(sel)+`).getAttribute(`+jsString(name)+`)`)
}

// axe runs axe-core (vendored under testdata/axe) on the page and fails
// on any serious or critical violation.
func axe(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, js(string(src))))
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
		.filter(v => v.impact === 'serious' || v.impact === 'critical')
		.map(v => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' + (n.failureSummary || '').slice(0, 160)).join(' | ')))`,
		chromedp.EvalAwaitPromise, chromedp.EvalAsValue))
	require.NoError(t, err)
	checked := eval[int](t, ctx, `axe.getRules().length`)
	t.Logf("axe-core %s: %d rules, %d serious or critical", where, checked, len(found))
	assert.Empty(t, found, "axe-core on %s:\n%s", where, strings.Join(found, "\n"))
}
