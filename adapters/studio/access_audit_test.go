// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// status sends one JSON request and returns the HTTP status.
func status(t *testing.T, method, url, key string, body any) int {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// do runs steps; on failure it shoots the page and shows main's text.
func do(t *testing.T, ctx context.Context, name string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		shoot(t, ctx, name+"-failed")
		require.NoError(t, err, "%s: %s", name, eval[string](t, ctx, `(document.querySelector('main') || document.body).textContent`))
	}
}

// accessAudit walks the Govern path of issue 31: the owner creates a
// person limited to one branch with a key, sees the key once, finds the
// person listed, revokes the key; then reads the audit trail, narrows it
// by a filter that lands in the address and survives a reload.
func accessAudit(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, login.Key), click(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		click(`dialog.welcome button`), waitFor(`document.querySelector('nav a[data-console]') && !document.querySelector('dialog.welcome')`)))

	// Access: the owner holds no grant (the owner bit is not one), so
	// it is not listed; a new person gets one branch
	// and a key, the grant restated before saving.
	do(t, ctx, "access-new", click(`nav a[data-console="people"]`), waitFor(`document.querySelector('button[data-new]')`),
		click(`button[data-new]`), waitFor(`document.querySelector('form.person-form input[name="principal"]')`),
		input(`input[name="principal"]`, "lia"),
		js(`(() => { const s = document.querySelector('select[name="role"]'); s.value = 'analyst'; s.dispatchEvent(new Event('change')); })()`),
		click(`input[type="radio"][value="branches"]`), waitFor(`document.querySelector('input[data-branch="concepts/"]')`),
		click(`input[data-branch="concepts/"]`),
		js(`document.querySelector('input[name="key_label"]').value = 'lia laptop'`),
		waitFor(`!document.querySelector('form.person-form button[type="submit"]').disabled`))
	sentence := text(t, ctx, "[data-sentence]")
	assert.Contains(t, sentence, "lia will be Analyst on "+forestID)
	assert.Regexp(t, `They see 1 of \d+ branches: concepts/\.`, sentence)
	assert.Contains(t, sentence, "They cannot ")
	assert.Contains(t, sentence, "90 days")
	shoot(t, ctx, "access-new")
	axe(t, ctx, "access new person")

	require.NoError(t, chromedp.Do(ctx, click(`form.person-form button[type="submit"]`), waitFor(`document.querySelector('dialog.once[open] code[data-key]')`)))
	assert.Contains(t, text(t, ctx, "dialog.once"), "shown once")
	key := text(t, ctx, "dialog.once code[data-key]")
	require.True(t, strings.HasPrefix(key, "mk_"), key)
	shoot(t, ctx, "access-key")
	axe(t, ctx, "access key once")
	require.NoError(t, chromedp.Do(ctx, click(`dialog.once button.primary`), waitFor(`!document.querySelector('dialog.once') && document.querySelector('tr[data-person="lia"]')`)))
	assert.NotContains(t, eval[string](t, ctx, `document.documentElement.outerHTML`), key, "the key is gone once the modal closes")
	assert.Contains(t, text(t, ctx, `tr[data-person="lia"]`), "concepts/")
	assert.Contains(t, text(t, ctx, `tr[data-person="lia"]`), "Analyst")

	// The key reaches the branch and nothing else.
	look := base + "/v1/forests/" + forestID + "/look"
	assert.Equal(t, http.StatusOK, status(t, "POST", look, key, map[string]string{"id": "concepts/tide"}))
	assert.Equal(t, http.StatusNotFound, status(t, "POST", look, key, map[string]string{"id": "people/lucia-andrade"}))

	// Keys tab: the tab lands in the address; revoke stops the key.
	prefix := key[:9]
	require.NoError(t, chromedp.Do(ctx, click(`button[data-tab="tokens"]`), waitFor(`location.search === '?tab=tokens'`),
		waitFor(`document.querySelector('button[data-revoke="`+prefix+`"]')`)))
	shoot(t, ctx, "access-keys")
	require.NoError(t, chromedp.Do(ctx, click(`button[data-revoke="`+prefix+`"]`),
		waitFor(`document.querySelector('tr[data-token="`+prefix+`"] .badge.status-revoked')`)))
	assert.Equal(t, http.StatusUnauthorized, status(t, "POST", look, key, map[string]string{"id": "concepts/tide"}), "a revoked key is refused")

	for _, theme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, setTheme(theme), waitFor(`document.documentElement.dataset.theme === '`+theme+`'`),
			chromedp.Navigate(base+"/f/"+forestID+"/people"), waitFor(`document.querySelector('tr[data-person="lia"]')`)))
		shoot(t, ctx, "access")
		axe(t, ctx, "access "+theme)
		require.NoError(t, chromedp.Do(ctx, click(`button[data-manage="lia"]`), waitFor(`document.querySelector('input[data-branch="concepts/"]:checked')`)))
		assert.Contains(t, text(t, ctx, "[data-sentence]"), "lia will be Analyst", "the form is pre-filled from the grant")
		shoot(t, ctx, "access-form")
		axe(t, ctx, "access form "+theme)
	}

	// Audit: lia's calls are rows (a row is written just after its answer,
	// so wait for them through the API first); a filter lands in the
	// address and a reload keeps it.
	require.Eventually(t, func() bool {
		req, _ := http.NewRequest("GET", base+"/v1/admin/audit?principal=lia", nil)
		req.Header.Set("Authorization", "Bearer "+login.Key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		var page struct{ Entries []any }
		return json.NewDecoder(res.Body).Decode(&page) == nil && len(page.Entries) >= 2
	}, 2*time.Minute, 100*time.Millisecond, "lia's rows are recorded")
	onlyLia := `document.querySelectorAll('tr[data-row]').length > 0 && [...document.querySelectorAll('tr[data-row]')].every(r => r.dataset.row === 'lia')`
	do(t, ctx, "audit", click(`nav a[data-console="audit"]`), waitFor(`document.querySelector('[data-total="calls"] strong')`),
		js(`(() => { const s = document.querySelector('select[name="principal"]'); s.value = 'lia'; s.dispatchEvent(new Event('change')); })()`),
		waitFor(`location.search === '?principal=lia'`), waitFor(onlyLia))
	assert.Contains(t, text(t, ctx, "main"), "Bodies are never logged")
	assert.Equal(t, "2", text(t, ctx, `[data-total="calls"] strong`), "lia made two calls: the totals are the host's")
	do(t, ctx, "audit-reload", chromedp.Reload(), waitFor(onlyLia))
	assert.Equal(t, "lia", eval[string](t, ctx, `document.querySelector('select[name="principal"]').value`))
	assert.Equal(t, "/f/"+forestID+"/audit?principal=lia", location(t, ctx))
	for _, theme := range []string{"light", "dark"} {
		do(t, ctx, "audit-"+theme, setTheme(theme), waitFor(`document.documentElement.dataset.theme === '`+theme+`'`),
			chromedp.Navigate(base+"/f/"+forestID+"/audit"), waitFor(`document.querySelector('tr[data-row]')`))
		shoot(t, ctx, "audit")
		axe(t, ctx, "audit "+theme)
	}
}
