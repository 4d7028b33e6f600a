// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/adapters/studio"
)

// catalogueModel is an OpenAI-compatible endpoint that also advertises
// its models: the fixture's fake model answers chat only, and the
// Models console needs a catalogue to pick from. One model is priced
// (per token, as OpenRouter states it), the other is not.
func catalogueModel(t *testing.T) *httptest.Server {
	inner := llamacpptest.NewServer(llamacpptest.Reply(fakeAnswer)) // chat and embeddings
	t.Cleanup(inner.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			inner.Config.Handler.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"data": []any{
			map[string]any{"id": "fake-9b", "name": "Fake 9B", "context_length": 8192,
				"pricing": map[string]any{"prompt": "0.00000015", "completion": "0.0000006"}},
			map[string]any{"id": "local-free"},
		}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// signInOwner opens the Studio with the owner's session key and
// dismisses the first-access modal; it returns the key.
func signInOwner(t *testing.T, ctx context.Context, base string) string {
	t.Helper()
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	do(t, ctx, "sign-in", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, login.Key), click(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		click(`dialog.welcome button`), waitFor(`document.querySelector('nav a[data-console]') && !document.querySelector('dialog.welcome')`))
	return login.Key
}

// bindingOf is the forest's binding of role as the host lists it, nil
// when unbound.
func bindingOf(t *testing.T, base, key, role string) map[string]any {
	t.Helper()
	for _, b := range apiJSON(t, "GET", base+"/v1/admin/models?forest="+forestID, key, nil, http.StatusOK)["bindings"].([]any) {
		if m := b.(map[string]any); m["role"] == role {
			return m
		}
	}
	return nil
}

// shotAt is themed with the page scrolled to sel, for the parts of a
// long console below the first screen.
func shotAt(t *testing.T, ctx context.Context, name, sel string) {
	t.Helper()
	for _, theme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = '`+theme+`';
			document.querySelectorAll('.rail .prefs button').forEach((b) => b.setAttribute('aria-pressed', String(b.textContent.toLowerCase() === '`+theme+`')));
			document.querySelector(`+jsString(sel)+`).scrollIntoView({ block: 'start' })`)))
		shoot(t, ctx, name)
		axe(t, ctx, name+" "+theme)
	}
	require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = 'light'; scrollTo(0, 0);
		document.querySelectorAll('.rail .prefs button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === 0)))`)))
}

// press clicks an element from the page's side: the tests click
// buttons whose cards redraw as answers arrive, where a mouse event
// aimed at where the button was can land on something else.
func press(sel string) chromedp.Action[chromedp.Void] {
	return js(`document.querySelector(` + jsString(sel) + `).click()`)
}

// keyed puts a key where the Studio keeps it, as the gate does: the
// next navigation boots signed in with it. (Signing out and in through
// the page works too, but a query begun while sign-out's own navigation
// is under way can wait forever.)
func keyed(key string) chromedp.Action[chromedp.Void] {
	return js(`localStorage.setItem('monkeyllm.station.key', ` + jsString(key) + `)`)
}

// setSelect picks a value in a select and tells the page.
func setSelect(sel, v string) chromedp.Action[chromedp.Void] {
	return js(`(() => { const s = document.querySelector(` + jsString(sel) + `); s.value = ` + jsString(v) +
		`; s.dispatchEvent(new Event('change')); })()`)
}

// modelsConsole walks 10 §6.9: a preset on a local server explains the
// private-address rule; a provider is added (its key never read back),
// tested (reachable, its catalogue with prices per million tokens and
// none for the unpriced model), a role is bound through the three save
// states; the answer store and the Gauntlet show the host's figures.
func modelsConsole(t *testing.T, ctx context.Context, base string) {
	fake := catalogueModel(t)
	key := signInOwner(t, ctx, base)
	do(t, ctx, "models-open", press(`nav a[data-console="models"]`), waitFor(`document.querySelector('.provider-form') && document.querySelector('form[data-role="answer"]')`),
		waitFor(`document.querySelector('[data-held]') && document.querySelector('.canopy-card')`))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-governs="no"]').length`), "the owner governs the deployment")
	// The role cards are the host's catalogue, not a constant.
	roles := eval[[]string](t, ctx, `[...document.querySelectorAll('form[data-role]')].map(f => f.dataset.role)`)
	assert.Equal(t, []string{"ingest", "answer", "vision", "embed"}, roles)
	assert.Equal(t, "clean", attr(t, ctx, `button[data-save="answer"]`, "data-state"))
	assert.Equal(t, "Nothing to save", text(t, ctx, `button[data-save="answer"]`))

	// A preset on this machine explains the address rule; a public one does not.
	do(t, ctx, "models-preset", press(`button[data-preset="ollama"]`), waitFor(`document.querySelector('.provider-form [data-private]')`))
	assert.Equal(t, "http://localhost:11434/v1", eval[string](t, ctx, `document.querySelector('input[name="endpoint"]').value`))
	assert.Contains(t, text(t, ctx, ".provider-form [data-private]"), "MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE=1")
	shotAt(t, ctx, "models-private", ".provider-form")
	themed(t, ctx, "models-empty")
	do(t, ctx, "models-preset-public", press(`button[data-preset="openrouter"]`), waitFor(`!document.querySelector('.provider-form [data-private]')`))

	// Add the provider with a key; the key is never shown back.
	do(t, ctx, "models-add", js(`document.querySelector('input[name="provider-name"]').value = ''; document.querySelector('input[name="endpoint"]').value = ''`),
		input(`input[name="provider-name"]`, "fake"), input(`input[name="endpoint"]`, fake.URL+"/v1"), input(`input[name="api_key"]`, "sk-fake-secret"),
		waitFor(`document.querySelector('.provider-form [data-private]')`), press(`.provider-form button[type="submit"]`),
		waitFor(`document.querySelector('tr[data-provider="fake"]')`))
	assert.Contains(t, text(t, ctx, `tr[data-provider="fake"]`), "key stored")
	assert.False(t, eval[bool](t, ctx, `document.documentElement.outerHTML.includes('sk-fake-secret')`), "a key is never read back")

	// Test: reachable, two models; the role cards can now pick from them.
	do(t, ctx, "models-test", press(`button[data-test="fake"]`), waitFor(`document.querySelector('.test-result[data-ok="true"]')`))
	assert.Contains(t, text(t, ctx, ".test-result"), "2 models")

	// Bind answer: the save button says nothing/saving/saved.
	do(t, ctx, "models-bind", setSelect(`form[data-role="answer"] select[name="provider"]`, "fake"),
		waitFor(`document.querySelectorAll('form[data-role="answer"] datalist option').length === 2`),
		input(`form[data-role="answer"] input[name="model"]`, "fake-9b"),
		waitFor(`document.querySelector('form[data-role="answer"] [data-price]')`))
	assert.Equal(t, "input $0.15 / M tokens · output $0.60 / M tokens · context 8192", text(t, ctx, `form[data-role="answer"] [data-price]`))
	assert.Equal(t, "1500", eval[string](t, ctx, `document.querySelector('form[data-role="answer"] input[name="max_tokens"]').value`), "answer defaults to 1500")
	assert.Equal(t, "dirty", attr(t, ctx, `button[data-save="answer"]`, "data-state"))
	do(t, ctx, "models-save", press(`button[data-save="answer"]`), waitFor(`document.querySelector('button[data-save="answer"]').dataset.state === 'saved'`))
	assert.Equal(t, "Saved", text(t, ctx, `button[data-save="answer"]`))
	assert.Contains(t, text(t, ctx, `form[data-role="answer"] [data-bound]`), "fake-9b")
	assert.Equal(t, map[string]any{"forest": forestID, "role": "answer", "provider": "fake", "model": "fake-9b", "max_tokens": 1500.0, "reasoning": "off"},
		bindingOf(t, base, key, "answer"))

	// An unpriced model shows no price, never $0.
	do(t, ctx, "models-unpriced", setSelect(`form[data-role="ingest"] select[name="provider"]`, "fake"),
		input(`form[data-role="ingest"] input[name="model"]`, "local-free"),
		waitFor(`document.querySelector('button[data-save="ingest"]').dataset.state === 'dirty'`))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('form[data-role="ingest"] [data-price]').length`))
	assert.Equal(t, "Saved", text(t, ctx, `button[data-save="answer"]`), "leaving the saved card keeps its state")
	assert.NotContains(t, text(t, ctx, "main"), "$0 ")
	themed(t, ctx, "models")
	shotAt(t, ctx, "models-roles", `form[data-role="ingest"]`)
	shotAt(t, ctx, "models-cache", `.cache-card`)

	// The Gauntlet: bind embed, and the card follows; build, and the
	// vectors are the host's count.
	do(t, ctx, "models-embed", chromedp.Reload(), waitFor(`document.querySelector('.canopy-card[data-state="no-embedder"] button[data-build][disabled]') &&
		document.querySelector('form[data-role="embed"] select[name="provider"] option[value="fake"]')`),
		setSelect(`form[data-role="embed"] select[name="provider"]`, "fake"), input(`form[data-role="embed"] input[name="model"]`, "fake-embed"),
		press(`button[data-save="embed"]`), waitFor(`document.querySelector('.canopy-card[data-state="no-index"] button[data-build]:not([disabled])')`),
		press(`.canopy-card button[data-build]`), waitFor(`document.querySelector('.canopy-card[data-state="active"]')`))
	canopy := apiJSON(t, "GET", base+"/v1/admin/canopy?forest="+forestID, key, nil, http.StatusOK)
	assert.Equal(t, strconv.Itoa(int(canopy["vectors"].(float64))), text(t, ctx, `.canopy-card [data-vectors]`))
	assert.Contains(t, text(t, ctx, ".canopy-card"), "fake-embed")
	shotAt(t, ctx, "models-gauntlet", ".cache-card")
	do(t, ctx, "models-embed-unbind", press(`button[data-unbind="embed"]`), waitFor(`document.querySelector('.canopy-card[data-state="no-embedder"]')`))

	// Unbind, from a fresh page: the binding is gone.
	do(t, ctx, "models-unbind", chromedp.Reload(), waitFor(`document.querySelector('button[data-unbind="answer"]:not([hidden])')`),
		press(`button[data-unbind="answer"]`), waitFor(`document.querySelector('button[data-unbind="answer"][hidden]')`))
	assert.Nil(t, bindingOf(t, base, key, "answer"))

	withoutAdminConsoles(t, ctx, base, key)
	notGoverning(t, ctx)
}

// notGoverning: an administrator of one forest of two may bind that
// forest's roles but not change or test the deployment's providers; the
// console says why and disables those controls, and the API refuses.
func notGoverning(t *testing.T, ctx context.Context) {
	base, _, key := ownStation(t, providers.EnvProvider{Role: "llm", Name: "house", Endpoint: "https://llm.example.org/v1", APIKey: "sk-env"})
	apiJSON(t, "POST", base+"/v1/admin/forests", key, map[string]any{"id": "second", "title": "Second"}, http.StatusOK)
	apiJSON(t, "POST", base+"/v1/admin/providers", key, map[string]any{"name": "lab", "endpoint": "https://lab.example.org/v1"}, http.StatusOK)

	// The owner: the environment's provider is badged and cannot be
	// edited or removed here, only tested.
	do(t, ctx, "models-env", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, key), press(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		press(`dialog.welcome button`), chromedp.Navigate(base+"/f/"+forestID+"/models"), waitFor(`document.querySelector('tr[data-provider="house"]')`))
	assert.Contains(t, text(t, ctx, `tr[data-provider="house"] .badge.env`), "environment")
	assert.Contains(t, text(t, ctx, `tr[data-provider="house"]`), "key stored")
	for _, b := range []string{`button[data-edit="house"]`, `button[data-remove="house"]`} {
		assert.True(t, eval[bool](t, ctx, `document.querySelector(`+jsString(b)+`).disabled`), "%s disabled", b)
		assert.Contains(t, attr(t, ctx, b, "title"), "environment variables", "%s says why", b)
	}
	assert.False(t, eval[bool](t, ctx, `document.querySelector('button[data-remove="lab"]').disabled`))
	assert.False(t, eval[bool](t, ctx, `document.querySelector('button[data-test="house"]').disabled`))
	themed(t, ctx, "models-env")
	do(t, ctx, "models-remove", press(`button[data-remove="lab"]`), waitFor(`document.querySelector('[data-remove-yes="lab"]')`),
		press(`[data-remove-yes="lab"]`), waitFor(`!document.querySelector('tr[data-provider="lab"]') && document.querySelector('tr[data-provider="house"]')`))
	apiJSON(t, "POST", base+"/v1/admin/providers", key, map[string]any{"name": "lab", "endpoint": "https://lab.example.org/v1"}, http.StatusOK)

	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", key, map[string]any{"principal": "ana", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin"}}}, &person)
	apiJSON(t, "POST", base+"/v1/admin/providers/test", person.APIKey, map[string]any{"name": "lab"}, http.StatusForbidden)
	do(t, ctx, "models-not-governing", keyed(person.APIKey), chromedp.Navigate(base+"/f/"+forestID+"/models"),
		waitFor(`document.querySelector('tr[data-provider="lab"]')`))
	assert.Equal(t, "ana", text(t, ctx, ".rail footer .meta")[len("Signed in as "):])
	assert.Contains(t, text(t, ctx, `[data-governs="no"]`), "administrator of every forest")
	for _, b := range []string{`button[data-test="lab"]`, `button[data-edit="lab"]`, `button[data-remove="lab"]`, `.provider-form button[type="submit"]`} {
		assert.True(t, eval[bool](t, ctx, `document.querySelector(`+jsString(b)+`).disabled`), "%s disabled", b)
		assert.Contains(t, attr(t, ctx, b, "title"), "every forest", "%s says why", b)
	}
	assert.False(t, eval[bool](t, ctx, `document.querySelector('form[data-role="answer"] select[name="provider"]').disabled`), "this forest's roles stay bindable")
	themed(t, ctx, "models-not-governing")
}

// withoutAdminConsoles: a key without admin finds neither Models nor
// Health in the menu, an address naming either lands on its landing
// console, the routes refuse it, and each console's own guard renders
// the needs-capability card should an address ever reach it.
func withoutAdminConsoles(t *testing.T, ctx context.Context, base, ownerKey string) {
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", ownerKey, map[string]any{"principal": "nico", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read", "query"}}}, &person)
	require.NotEmpty(t, person.APIKey)
	for _, path := range []string{"/v1/admin/providers", "/v1/admin/models?forest=" + forestID, "/v1/admin/health?forest=" + forestID,
		"/v1/admin/snapshots?forest=" + forestID, "/v1/admin/canopy?forest=" + forestID} {
		apiJSON(t, "GET", base+path, person.APIKey, nil, http.StatusForbidden)
	}
	require.NoError(t, chromedp.Do(ctx, keyed(person.APIKey)))
	for _, c := range []string{"models", "health"} {
		do(t, ctx, "no-admin-"+c, chromedp.Navigate(base+"/f/"+forestID+"/"+c), waitFor(`document.querySelector('nav a[data-console]') && !document.querySelector('main .spinner')`))
		assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('nav a[data-console="`+c+`"]').length`), "%s absent from the menu", c)
		assert.NotContains(t, location(t, ctx), "/"+c, "the address is replaced by the landing console")
		assert.Zero(t, eval[int](t, ctx, `performance.getEntriesByType('resource').filter(e => e.name.includes('/v1/admin/')).length`),
			"%s never asked an admin route", c)
		guard, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import(`+jsString(studio.Prefix()+"consoles/"+c+".js")+`).then(m => {
			const el = m.render({ forest: '`+forestID+`', caps: ['read', 'query'], place: { params: {} }, me: {}, forests: [] });
			return el.classList.contains('needs') ? el.textContent : 'no guard';
		})`, chromedp.EvalAwaitPromise, chromedp.EvalAsValue))
		require.NoError(t, err)
		assert.Equal(t, "This console needs the admin capability on this forest.", guard, c)
	}
}
