// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// useKey stores a key as the Gate would, for the next page load to use:
// switching people by a fresh load, not by racing sign-out's own.
func useKey(key string) chromedp.Action[chromedp.Void] {
	return js(`localStorage.setItem('monkeyllm.station.key', ` + jsString(key) + `)`)
}

// governCaps: a key holding every capability but admin finds none of
// the admin consoles in the menu, and an address naming one shows its
// needs-capability card without asking an admin route; and a webhook
// whose owner lost admin is listed as suspended, with that reason.
func governCaps(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	var nuno struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", login.Key, map[string]any{"principal": "nuno", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read", "answer", "query", "write", "tend", "ingest"}}}, &nuno)
	require.NotEmpty(t, nuno.APIKey)

	var tr traffic
	require.NoError(t, chromedp.Listen(ctx, tr.listen))
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	signIn(t, ctx, base, nuno.APIKey)
	for _, c := range []string{"people", "audit", "webhooks", "integrations"} {
		assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('nav a[data-console="`+c+`"]').length`), "%s is absent from the menu", c)
		do(t, ctx, "denied-"+c, chromedp.Navigate(base+"/f/"+forestID+"/"+c),
			afterLoad(`document.querySelector('[data-denied="`+c+`"]') && document.querySelector('nav a[aria-current="page"]') && !document.querySelector('main .spinner')`))
		assert.Contains(t, text(t, ctx, `[data-denied="`+c+`"]`), "needs the admin capability")
		assert.NotContains(t, location(t, ctx), "/"+c, "the address is replaced by the landing console")
		if c == "people" {
			themed(t, ctx, "govern-denied")
		}
	}
	tr.mu.Lock()
	for _, r := range tr.requests {
		if u, err := url.Parse(strings.SplitN(r, " ", 2)[0]); err == nil {
			assert.False(t, strings.HasPrefix(u.Path, "/v1/admin/") || strings.HasPrefix(u.Path, "/v1/") && strings.Contains(u.Path, "/webhooks"), "a key without admin made the page ask %s", u.Path)
		}
	}
	tr.mu.Unlock()

	// A webhook whose owner loses admin: the next matching event finds
	// the authority gone and suspends it (09 §10); the list says so.
	dest := httptest.NewServer(&receiver{})
	t.Cleanup(dest.Close)
	var hana struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", login.Key, map[string]any{"principal": "hana", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin"}}}, &hana)
	hook := apiJSON(t, "POST", base+"/v1/forests/"+forestID+"/webhooks", hana.APIKey, map[string]any{"label": "Hana's grants feed",
		"url": dest.URL + "/grants", "events": []string{"grant.changed"}}, http.StatusCreated)["webhook"].(map[string]any)["id"].(string)
	apiJSON(t, "POST", base+"/v1/admin/grant", login.Key, map[string]any{"principal": "hana", "forest": forestID, "caps": []string{"read"}}, http.StatusOK)
	require.Eventually(t, func() bool {
		for _, w := range apiJSON(t, "GET", base+"/v1/forests/"+forestID+"/webhooks", login.Key, nil, http.StatusOK)["webhooks"].([]any) {
			if m := w.(map[string]any); m["id"] == hook && m["suspended"] == "authority" {
				return true
			}
		}
		return false
	}, 2*time.Minute, 50*time.Millisecond, "the grant change reaches the webhook, whose owner no longer holds admin")

	do(t, ctx, "webhooks-suspended", useKey(login.Key), chromedp.Navigate(base+"/f/"+forestID+"/webhooks"), afterLoad(`document.querySelector('tr[data-hook="`+hook+`"] [data-state="suspended"]')`))
	assert.Equal(t, "suspended: its owner lost authority here", strings.TrimSpace(text(t, ctx, `tr[data-hook="`+hook+`"] [data-state]`)))
	themed(t, ctx, "webhooks-suspended")
}
