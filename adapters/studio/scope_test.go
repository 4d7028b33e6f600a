// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends JSON to the Station and decodes the answer.
func post(t *testing.T, base, path, key string, body any, out any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, path)
	require.NoError(t, json.NewDecoder(res.Body).Decode(out))
}

// hiddenIDs are the nodes the owner sees outside the branch: every id
// not under prefix, the forest root left out (it is every trail's head).
func hiddenIDs(t *testing.T, base, ownerKey, prefix string) []string {
	req, _ := http.NewRequest("GET", base+"/v1/forests/"+forestID+"/graph?limit=2000", nil)
	req.Header.Set("Authorization", "Bearer "+ownerKey)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var g struct{ Nodes []struct{ ID string } }
	require.NoError(t, json.NewDecoder(res.Body).Decode(&g))
	var out []string
	for _, n := range g.Nodes {
		if !strings.HasPrefix(n.ID, prefix) && n.ID != "_index" {
			out = append(out, n.ID)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// traffic records what the page asked for and which responses finished.
type traffic struct {
	mu       sync.Mutex
	requests []string // URL and body of every request
	finished []network.RequestID
}

func (tr *traffic) listen(ev any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		s := e.Request.URL
		for _, p := range e.Request.PostDataEntries {
			s += " " + string(p.Bytes)
		}
		tr.requests = append(tr.requests, s)
	case *network.EventLoadingFinished:
		tr.finished = append(tr.finished, e.RequestID)
	}
}

// branchKeySeesNoHiddenID: a key limited to one branch uses every
// console, and no id outside the branch reaches the DOM, a request the
// page makes, or a response it receives.
func branchKeySeesNoHiddenID(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", login.Key, map[string]any{"principal": "rui", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read", "answer", "query"}, "allow": []string{"concepts/"}}}, &person)
	require.NotEmpty(t, person.APIKey)
	hidden := hiddenIDs(t, base, login.Key, "concepts/")

	var tr traffic
	require.NoError(t, chromedp.Do(ctx))
	require.NoError(t, chromedp.Listen(ctx, tr.listen))
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, person.APIKey), click(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		click(`dialog.welcome button`), waitFor(`document.querySelector('nav a[data-console]') && !document.querySelector('dialog.welcome')`)))
	for _, c := range []string{"overview", "explore", "playground", "data", "read"} {
		err := chromedp.Do(ctx, click(`nav a[data-console="`+c+`"]`), waitFor(consoleReady[c]))
		if err != nil {
			shoot(t, ctx, "scoped-"+c+"-failed")
		}
		require.NoError(t, err, "%s: %s", c, eval[string](t, ctx, `document.querySelector('main').textContent`))
	}
	require.NoError(t, chromedp.Do(ctx, click(`nav a[data-console="explore"]`), waitFor(consoleReady["explore"]),
		input(`input[type="search"]`, "tide storm harbour"), click(`form[role="search"] button`),
		waitFor(`document.querySelectorAll('.cols.three > .card').length === 3`),
		click(`nav a[data-console="playground"]`), waitFor(consoleReady["playground"]),
		input(`input[name="query"]`, "storm"), click(`main form.card button[type="submit"]`), waitFor(`document.querySelector('pre.json')`)))
	curl := text(t, ctx, "pre.curl")
	assert.Contains(t, curl, "Bearer $MONKEYLLM_KEY", "copy as curl names the key by placeholder")
	assert.NotContains(t, curl, person.APIKey)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/f/"+forestID+"/read?node=concepts/tide"), waitFor(`document.querySelector('article.card h2')`),
		click(`nav a[data-console="ask"]`), waitFor(consoleReady["ask"]),
		input(`textarea[name="question"]`, "What raises the sea in a storm?"), click(`main form button[type="submit"]`),
		waitFor(`document.querySelector('[data-answer]')`)))
	shoot(t, ctx, "scoped-ask")

	dom := eval[string](t, ctx, `document.documentElement.outerHTML`)
	assert.Contains(t, dom, "concepts/tide", "the branch itself is shown")
	assert.NotContains(t, dom, person.APIKey, "the key is never written into the page")
	tr.mu.Lock()
	requests, finished := append([]string(nil), tr.requests...), append([]network.RequestID(nil), tr.finished...)
	tr.mu.Unlock()
	var bodies []string
	for _, id := range finished {
		if res, err := chromedp.Call(ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id}); err == nil {
			bodies = append(bodies, string(res.Body))
		}
	}
	assert.Greater(t, len(bodies), 10, "the page's responses were read")
	t.Logf("%d hidden ids checked against the DOM, %d requests and %d responses", len(hidden), len(requests), len(bodies))
	for _, id := range hidden {
		assert.NotContains(t, dom, id, "a hidden id in the DOM")
		for _, r := range requests {
			assert.NotContains(t, r, id, "a hidden id in a request")
		}
		for _, b := range bodies {
			if !assert.NotContains(t, b, id, "a hidden id in a response") {
				t.Logf("response: %.300s", b)
			}
		}
	}
}
