// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/webhooks"
)

// receiver is a webhook destination that keeps every request it got.
type receiver struct {
	mu  sync.Mutex
	got []received
}

type received struct {
	header http.Header
	body   string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, received{header: r.Header.Clone(), body: string(b)})
	rc.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, "/broken") {
		http.Error(w, "this endpoint is broken", http.StatusInternalServerError)
		return
	}
	io.WriteString(w, "thanks from the receiver")
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// signedBy reports whether a request carries the signature the console's
// snippets check: sha256= and the hex HMAC-SHA256 of "<timestamp>.<body>".
func signedBy(r received, secret string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(r.header.Get("X-MonkeyLLM-Timestamp") + "." + r.body))
	return hmac.Equal([]byte(r.header.Get("X-MonkeyLLM-Signature")), []byte("sha256="+hex.EncodeToString(mac.Sum(nil))))
}

// themed shoots and checks the screen as it stands in light and dark,
// flipping the theme token without a re-render (a form keeps what was
// typed), then leaves it light.
func themed(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for i, theme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = '`+theme+`'; scrollTo(0, 0);
			document.querySelectorAll('.rail .prefs button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === `+strconv.Itoa(i)+`)))`)))
		shoot(t, ctx, name)
		axe(t, ctx, name+" "+theme)
	}
	require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = 'light';
		document.querySelectorAll('.rail .prefs button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === 0)))`)))
}

// webhooksConsole walks 10 §6.12 against a local receiver: the empty
// state, the form with its preview, create (the secret shown once, and
// it signs what arrives), test, the delivery log, redeliver, a stored
// header kept and never read back, rotate, the list's state and toggle,
// delete.
func webhooksConsole(t *testing.T, ctx context.Context, base string) {
	rc := &receiver{}
	dest := httptest.NewServer(rc)
	t.Cleanup(dest.Close)
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, login.Key), click(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		click(`dialog.welcome button`), click(`nav a[data-console="webhooks"]`), waitFor(`document.querySelector('[data-empty]')`)))
	assert.Equal(t, 3, eval[int](t, ctx, `document.querySelectorAll('[data-empty] li').length`), "three example uses")
	themed(t, ctx, "webhooks-empty")

	// The form: ?hook=new is a place; selecting an event previews its body.
	require.NoError(t, chromedp.Do(ctx, click(`[data-new]`), waitFor(`document.querySelector('form.hook-form')`)))
	assert.Equal(t, "/f/"+forestID+"/webhooks?hook=new", location(t, ctx))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-group="config"]').length`), "config is for deployment webhooks only")
	require.NoError(t, chromedp.Do(ctx, click(`input[name="scope"][value="deployment"]`), waitFor(`document.querySelector('[data-group="config"]')`),
		click(`input[name="scope"][value="forest"]`), waitFor(`!document.querySelector('[data-group="config"]')`)), "the owner governs the deployment")
	require.NoError(t, chromedp.Do(ctx, input(`input[name="label"]`, "Team chat"), input(`input[name="url"]`, dest.URL+"/hook"),
		click(`input[value="node.planted"]`), waitFor(`document.querySelector('[data-preview]').textContent.includes('"event": "node.planted"')`),
		click(`input[name="include_metadata"]`), waitFor(`document.querySelector('[data-preview]').textContent.includes('"title"')`),
		click(`[data-add-header]`), input(`input[name="header-name"]`, "X-Token"), input(`input[name="header-value"]`, "header-secret-value")))
	var preview map[string]any
	require.NoError(t, json.Unmarshal([]byte(text(t, ctx, "[data-preview]")), &preview), "the preview is the JSON body")
	assert.Equal(t, forestID, preview["forest"])
	assert.Equal(t, owner, preview["principal"])
	themed(t, ctx, "webhooks-form")

	// Create: the secret is shown once, with the snippets; the address
	// names the saved webhook in place of the form.
	require.NoError(t, chromedp.Do(ctx, click(`form.hook-form button[type="submit"]`), waitFor(`document.querySelector('.secret-value')`)))
	secret := text(t, ctx, ".secret-value")
	assert.True(t, strings.HasPrefix(secret, "whsec_"), secret)
	assert.Regexp(t, `^/f/`+forestID+`/webhooks\?hook=wh-[0-9a-f]+$`, location(t, ctx))
	assert.Contains(t, text(t, ctx, `[data-snippet="node"]`), "x-monkeyllm-signature")
	assert.Contains(t, text(t, ctx, `[data-snippet="python"]`), "> 300")
	themed(t, ctx, "webhooks-secret")

	// Test: status, duration, the endpoint's answer; it arrived signed
	// by the secret just shown.
	require.NoError(t, chromedp.Do(ctx, click(`[data-act="test"]`), waitFor(`document.querySelector('.test-result [data-status]')`)))
	assert.Equal(t, "200", text(t, ctx, ".test-result [data-status]"))
	assert.Contains(t, text(t, ctx, ".test-result"), "thanks from the receiver")
	got := rc.all()
	require.Len(t, got, 1)
	assert.True(t, signedBy(got[0], secret), "the secret shown verifies the delivery")
	assert.Equal(t, "header-secret-value", got[0].header.Get("X-Token"))

	// Deliveries, newest first; redeliver adds attempt 2 of the same body.
	require.NoError(t, chromedp.Do(ctx, click(`[data-tab="deliveries"]`), waitFor(`document.querySelectorAll('tr[data-delivery]').length === 1`)))
	assert.Contains(t, location(t, ctx), "tab=deliveries")
	assert.Contains(t, text(t, ctx, "tr[data-delivery]"), "webhook.test")
	themed(t, ctx, "webhooks-deliveries")
	require.NoError(t, chromedp.Do(ctx, click(`[data-redeliver]`), waitFor(`document.querySelectorAll('tr[data-delivery]').length === 2`)))
	assert.Equal(t, "2", eval[string](t, ctx, `document.querySelector('tr[data-delivery] td:nth-child(4)').textContent`), "newest first")
	got = rc.all()
	require.Len(t, got, 2)
	assert.Equal(t, got[0].body, got[1].body, "a redelivery sends the same body")
	assert.Equal(t, "2", got[1].header.Get("X-MonkeyLLM-Attempt"))

	// The stored header is kept and never read back; rotate shows a new secret.
	require.NoError(t, chromedp.Do(ctx, click(`[data-tab="settings"]`), waitFor(`document.querySelector('li[data-kept="X-Token"]')`)))
	themed(t, ctx, "webhooks-settings")
	assert.False(t, eval[bool](t, ctx, `document.documentElement.outerHTML.includes('header-secret-value')`), "a header value is never read back")
	require.NoError(t, chromedp.Do(ctx, click(`[data-act="rotate"]`), waitFor(`document.querySelector('.secret-value') && document.querySelector('.secret-value').textContent !== `+jsString(secret))))
	rotated := text(t, ctx, ".secret-value")
	require.NoError(t, chromedp.Do(ctx, click(`[data-act="test"]`), waitFor(`document.querySelector('.test-result [data-status]')`)))
	got = rc.all()
	require.Len(t, got, 3)
	assert.True(t, signedBy(got[2], rotated), "the rotated secret signs from now on")

	// The list: live after a 2xx, failing after a 5xx, toggled off and on.
	broken := apiJSON(t, "POST", base+"/v1/forests/"+forestID+"/webhooks", login.Key, map[string]any{"label": "Broken endpoint",
		"url": dest.URL + "/broken", "events": []string{"ingest.finished", "ingest.failed"}}, http.StatusCreated)["webhook"].(map[string]any)["id"].(string)
	hook := base + "/v1/forests/" + forestID + "/webhooks/" + broken
	apiJSON(t, "POST", hook, login.Key, map[string]any{"action": "test"}, http.StatusOK)
	require.NoError(t, chromedp.Do(ctx, click(`[data-back]`), waitFor(`document.querySelector('tr[data-hook] [data-state="live"]')`)))
	assert.Contains(t, text(t, ctx, `tr[data-hook="`+broken+`"]`), "failing")
	themed(t, ctx, "webhooks-list")
	apiJSON(t, "DELETE", hook, login.Key, nil, http.StatusOK)
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), waitFor(`document.querySelectorAll('tr[data-hook]').length === 1`)))
	require.NoError(t, chromedp.Do(ctx, click(`[data-toggle]`), waitFor(`document.querySelector('tr[data-hook] [data-state="off"]')`),
		click(`[data-toggle]`), waitFor(`document.querySelector('tr[data-hook] [data-state="live"]')`)))

	// Delete, behind a second step: back to the empty state.
	require.NoError(t, chromedp.Do(ctx, click(`tr[data-hook] a`), waitFor(`document.querySelector('[data-act="delete"]')`),
		click(`[data-act="delete"]`), click(`[data-act="delete-yes"]`), waitFor(`document.querySelector('[data-empty]')`)))
	assert.Equal(t, "/f/"+forestID+"/webhooks", location(t, ctx))

	withoutAdmin(t, ctx, base, login.Key)
}

// apiJSON sends a request with the key and decodes the JSON answer,
// which must carry the status given.
func apiJSON(t *testing.T, method, url, key string, body any, status int) map[string]any {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	require.Equal(t, status, res.StatusCode, "%s %s: %v", method, url, out)
	return out
}

// withoutAdmin: a key without admin on the forest finds no Webhooks in
// the menu, an address naming it lands elsewhere without asking the
// webhook routes, and those routes answer 403 anyway.
func withoutAdmin(t *testing.T, ctx context.Context, base, ownerKey string) {
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", ownerKey, map[string]any{"principal": "vera", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read", "query"}}}, &person)
	require.NotEmpty(t, person.APIKey)
	apiJSON(t, "GET", base+"/v1/forests/"+forestID+"/webhooks", person.APIKey, nil, http.StatusForbidden)

	require.NoError(t, chromedp.Do(ctx, click(`.rail footer > button`), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, person.APIKey), click(`form button[type="submit"]`), waitFor(`document.querySelector('nav a[data-console]')`),
		chromedp.Navigate(base+"/f/"+forestID+"/webhooks?hook=new"), waitFor(`document.querySelector('nav a[data-console]') && !document.querySelector('main .spinner')`)))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('nav a[data-console="webhooks"]').length`), "absent from the menu")
	assert.NotContains(t, location(t, ctx), "/webhooks", "the address is replaced by the landing console")
	assert.Zero(t, eval[int](t, ctx, `performance.getEntriesByType('resource').filter(e => e.name.includes('/v1/') && e.name.includes('/webhooks')).length`),
		"the console never asked the webhook routes")
}

// TestWebhookEventsTranslated: every event of the served catalogue has
// its one translated line and a sample body for the preview, and every
// group its question, so the form never shows a raw key or an empty
// preview.
func TestWebhookEventsTranslated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("web", "assets", "locales", "webhooks", "en.json"))
	require.NoError(t, err)
	var cat map[string]string
	require.NoError(t, json.Unmarshal(data, &cat))
	samples, err := os.ReadFile(filepath.Join("web", "assets", "consoles", "webhooks-sample.js"))
	require.NoError(t, err)
	for _, e := range webhooks.Catalogue {
		assert.NotEmpty(t, cat["webhooks.event."+e.Event], e.Event)
		assert.Contains(t, string(samples), "'"+e.Event+"': ", "a sample body for %s", e.Event)
	}
	for _, g := range webhooks.Groups {
		assert.NotEmpty(t, cat["webhooks.group."+g], g)
	}
	for _, s := range []string{"failing", "authority"} {
		assert.NotEmpty(t, cat["webhooks.reason."+s], s)
	}
}
