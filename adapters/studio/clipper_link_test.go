// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clipperLink: the rail offers the Clipper to a signed-in person (10
// §11) as a download of /clipper.zip, in each theme, and the link
// answers with the archive.
func clipperLink(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	signIn(t, ctx, base, login.Key)
	link := `document.querySelector('.rail footer a.clipper-link')`
	require.NoError(t, chromedp.Do(ctx, waitFor(link)))
	assert.Equal(t, "/clipper.zip", eval[string](t, ctx, link+`.getAttribute('href')`))
	assert.Equal(t, "Get the Clipper", eval[string](t, ctx, link+`.textContent`))
	status, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`fetch('/clipper.zip').then((r) => r.headers.get('content-type') === 'application/zip' ? r.status : 0)`,
		chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, 200.0, status)
	for _, theme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, setTheme(theme), waitFor(`document.documentElement.dataset.theme === '`+theme+`'`), waitFor(link)))
		shoot(t, ctx, "clipper-link")
		axe(t, ctx, "clipper link "+theme)
	}
	require.NoError(t, chromedp.Do(ctx, setLanguage("pt"), waitFor(link+`.textContent === 'Baixar o Clipper'`), setLanguage("en")))
}
