// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileBody tries every way a note could make the page run its code
// or fetch what the console did not resolve (10 §8).
const hostileBody = "# Hostile\n\n<script>window.__pwned = 1</script>\n\n" +
	"<img src=x onerror=\"window.__pwned = 2\">\n\n[click me](javascript:window.__pwned=3)\n\n" +
	"![tracker](http://127.0.0.1:9/pixel.png)\n\n**bold** and a link to [[concepts/tide]]\n\n" +
	"| a | b |\n|---|---|\n| <b onmouseover=x>1</b> | 2 |\n"

// hostileMarkdown: a note planted with script, handlers, a javascript:
// link and a foreign image renders as text; nothing runs, nothing
// foreign loads, and the wikilink becomes a console link.
func hostileMarkdown(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	var planted map[string]any
	post(t, base, "/v1/forests/"+forestID+"/plant", login.Key, map[string]any{"node": map[string]any{
		"id": "concepts/hostile", "type": "concept", "title": "Hostile", "summary": "A note that tries to run code in the console.",
		"parent": "concepts/_index", "body": hostileBody}}, &planted)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, login.Key), click(`form button[type="submit"]`), waitFor(`document.querySelector('nav a[data-console]')`),
		chromedp.Navigate(base+"/f/"+forestID+"/read?node=concepts/hostile"), waitFor(`document.querySelector('article.card h2')`)))
	assert.True(t, eval[bool](t, ctx, `window.__pwned === undefined`), "no script from the forest ran")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('article script, article img, article [onerror], article [onmouseover], article a[href^="javascript"]').length`))
	assert.Contains(t, text(t, ctx, "article.card"), "<script>window.__pwned = 1</script>", "markup is shown as text")
	assert.Zero(t, eval[int](t, ctx, `performance.getEntriesByType('resource').filter(e => e.name.includes('pixel.png')).length`), "a foreign image is never fetched")
	assert.Equal(t, "/f/"+forestID+"/read?node=concepts%2Ftide", eval[string](t, ctx, `document.querySelector('article a.node-link').getAttribute('href')`))
}
