// SPDX-License-Identifier: Apache-2.0

package station

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station/webhooks"
)

// delivered is one request a test receiver saw.
type delivered struct {
	header http.Header
	body   string
}

func webhookReceiver(t *testing.T) (string, chan delivered) {
	t.Helper()
	got := make(chan delivered, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- delivered{header: r.Header.Clone(), body: string(b)}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, got
}

func nextDelivery(t *testing.T, got chan delivered) delivered {
	t.Helper()
	select {
	case d := <-got:
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery arrived")
		return delivered{}
	}
}

// TestStationDeliversForestAndDeploymentEvents: a plant through REST
// reaches a forest webhook, signed, naming the forest and the principal;
// a key minted by the owner reaches a deployment webhook as key.issued
// with the prefix only; a new forest as forest.created.
func TestStationDeliversForestAndDeploymentEvents(t *testing.T) {
	ts := newTestStation(t, func(o *Options) { o.AllowPrivateDestinations = true })
	owner := ts.owner()
	url, got := webhookReceiver(t)
	base := "/v1/forests/" + forestID + "/webhooks"

	created := ts.call("POST", base, owner, map[string]any{"url": url, "events": []string{"node.planted"},
		"headers": map[string]string{"X-Token": "header-secret-value"}})
	require.Equal(t, http.StatusCreated, created.status, created.body)
	secret := created.str("secret")
	require.True(t, strings.HasPrefix(secret, "whsec_"))
	dep := ts.call("POST", base, owner, map[string]any{"url": url, "scope": "deployment",
		"events": []string{"key.issued", "forest.created"}})
	require.Equal(t, http.StatusCreated, dep.status, dep.body)

	list := ts.call("GET", base, owner, nil)
	require.Equal(t, http.StatusOK, list.status, list.body)
	assert.NotContains(t, list.body, "header-secret-value")
	assert.NotContains(t, list.body, "whsec_")
	assert.Equal(t, []any{"forest", "deployment"}, list.json["scopes"])

	plant := ts.call("POST", "/v1/forests/"+forestID+"/plant", owner, map[string]any{"node": map[string]any{
		"id": "concepts/hooked", "type": "note", "title": "Hooked", "summary": "A short valid summary.",
		"parent": "concepts/_index", "body": "never delivered"}})
	require.Equal(t, http.StatusOK, plant.status, plant.body)
	d := nextDelivery(t, got)
	assert.Equal(t, webhooks.Sign(secret, d.header.Get("X-MonkeyLLM-Timestamp"), []byte(d.body)), d.header.Get("X-MonkeyLLM-Signature"))
	assert.Equal(t, "header-secret-value", d.header.Get("X-Token"))
	var b map[string]any
	require.NoError(t, json.Unmarshal([]byte(d.body), &b))
	assert.Equal(t, "node.planted", b["event"])
	assert.Equal(t, forestID, b["forest"])
	assert.Equal(t, "olga", b["principal"])
	assert.Equal(t, "concepts/hooked", b["data"].(map[string]any)["node"])
	assert.NotContains(t, d.body, "never delivered")

	key := ts.call("POST", "/v1/admin/keys", owner, map[string]any{"principal": "olga", "label": "ci"})
	require.Equal(t, http.StatusOK, key.status, key.body)
	d = nextDelivery(t, got)
	assert.Equal(t, "key.issued", d.header.Get("X-MonkeyLLM-Event"))
	assert.Equal(t, "-", d.header.Get("X-MonkeyLLM-Forest"))
	assert.NotContains(t, d.body, key.str("api_key"), "the prefix only, never the key")
	assert.Contains(t, d.body, key.str("api_key")[:9])

	forest := ts.call("POST", "/v1/admin/forests", owner, map[string]any{"id": "second", "title": "Second"})
	require.Equal(t, http.StatusOK, forest.status, forest.body)
	d = nextDelivery(t, got)
	assert.Equal(t, "forest.created", d.header.Get("X-MonkeyLLM-Event"))
	assert.Contains(t, d.body, `"forest":"second"`)
}

// TestWebhookRoutesRefuseAlike: an ungranted forest is the unknown
// forest, byte for byte; a granted forest without admin is 403; a
// webhook of another scope is "no such webhook", byte for byte; a
// loopback destination is refused unless the operator allows it.
func TestWebhookRoutesRefuseAlike(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/forests", owner, map[string]any{"id": "second", "title": "Second"}).status)
	people := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "ana",
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin"}}, "issue_key": true})
	require.Equal(t, http.StatusOK, people.status, people.body)
	ana := people.str("api_key")
	reader := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "rui",
		"grant": map[string]any{"forest": forestID, "caps": []string{"read"}}, "issue_key": true}).str("api_key")

	ungranted := ts.call("GET", "/v1/forests/second/webhooks", ana, nil)
	absent := ts.call("GET", "/v1/forests/nowhere/webhooks", ana, nil)
	assert.Equal(t, http.StatusNotFound, ungranted.status)
	assert.Equal(t, strings.ReplaceAll(absent.body, "nowhere", "second"), ungranted.body)
	assert.Equal(t, http.StatusForbidden, ts.call("GET", "/v1/forests/"+forestID+"/webhooks", reader, nil).status)

	private := ts.call("POST", "/v1/forests/"+forestID+"/webhooks", owner, map[string]any{"url": "http://127.0.0.1:9/",
		"scope": "deployment", "events": []string{"key.issued"}})
	assert.Equal(t, http.StatusBadRequest, private.status)
	assert.Contains(t, private.body, "endpoint resolves to a non-public address")

	// A deployment webhook the owner made under a public name (checked
	// only on creation, so stored directly through the package).
	raw, _ := json.Marshal(map[string]any{"url": "http://127.0.0.1:9/", "scope": "deployment", "events": []string{"key.issued"}})
	allowing, err := webhooks.New(t.Context(), ts.s.reg.DB(), &webhooks.Options{Registry: ts.s.reg, Forests: ts.s.forests, AllowPrivate: true})
	require.NoError(t, err)
	defer allowing.Close()
	saved, _, err := allowing.Save(t.Context(), webhooks.Caller{Principal: "olga", Forest: forestID}, raw)
	require.NoError(t, err)

	other := ts.call("GET", "/v1/forests/"+forestID+"/webhooks/"+saved.Webhook.ID, ana, nil)
	none := ts.call("GET", "/v1/forests/"+forestID+"/webhooks/wh-0000000000", ana, nil)
	assert.Equal(t, http.StatusNotFound, other.status)
	assert.Equal(t, none.body, other.body, "another scope's webhook is no webhook")
	assert.Equal(t, none.body, ts.call("DELETE", "/v1/forests/"+forestID+"/webhooks/"+saved.Webhook.ID, ana, nil).body)
	assert.Equal(t, none.body, ts.call("POST", "/v1/forests/"+forestID+"/webhooks/"+saved.Webhook.ID, ana, map[string]string{"action": "rotate"}).body)
	assert.Equal(t, http.StatusOK, ts.call("GET", "/v1/forests/"+forestID+"/webhooks/"+saved.Webhook.ID, owner, nil).status)
}

// TestStationEmitsItsAccessEvents: the doors and the governance routes
// emit the events they own, after their audit rows, with identities and
// prefixes only.
func TestStationEmitsItsAccessEvents(t *testing.T) {
	ts := newTestStation(t, func(o *Options) { o.AllowPrivateDestinations = true })
	owner := ts.owner()
	url, got := webhookReceiver(t)
	base := "/v1/forests/" + forestID + "/webhooks"
	require.Equal(t, http.StatusCreated, ts.call("POST", base, owner, map[string]any{"url": url, "scope": "deployment",
		"events": []string{"auth.login.succeeded", "auth.login.failed", "pair.issued", "key.revoked", "grant.changed"}}).status)

	steps := []struct {
		event string
		do    func() reply
	}{
		{"auth.login.failed", func() reply {
			return ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "olga", "password": "wrong passphrase!"})
		}},
		{"auth.login.succeeded", func() reply {
			return ts.call("POST", "/v1/auth/login", "", map[string]string{"username": "olga", "password": "a long owner passphrase"})
		}},
		{"pair.issued", func() reply {
			return ts.call("POST", "/v1/auth/pair", "", map[string]string{"username": "olga", "password": "a long owner passphrase"})
		}},
		{"grant.changed", func() reply {
			return ts.call("POST", "/v1/admin/grant", owner, map[string]any{"principal": "rui", "forest": forestID, "allow": []string{"concepts/"}})
		}},
	}
	for _, st := range steps {
		a := st.do()
		d := nextDelivery(t, got)
		assert.Equal(t, st.event, d.header.Get("X-MonkeyLLM-Event"), a.body)
		assert.NotContains(t, d.body, "passphrase")
		if k := a.str("api_key"); k != "" {
			assert.NotContains(t, d.body, k)
		}
	}
	keys := ts.call("GET", "/v1/admin/keys", owner, nil)
	id := keys.json["keys"].([]any)[0].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/keys", owner, map[string]any{"revoke": id}).status)
	d := nextDelivery(t, got)
	assert.Equal(t, "key.revoked", d.header.Get("X-MonkeyLLM-Event"))
	assert.NotContains(t, d.body, id, "the prefix, never the digest")
}
