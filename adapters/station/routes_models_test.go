// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/gardener"
)

// TestEmbedBindingServesCanopy: a forest's embed binding is its Canopy
// embedder on every lane. Unbound, the canopy build refuses; bound, it
// builds, and a served hybrid locate fuses; unbound again, it says so.
func TestEmbedBindingServesCanopy(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	body := map[string]any{"forest": forestID}
	refused := ts.call("POST", "/v1/admin/canopy", owner, body)
	require.Equal(t, http.StatusBadRequest, refused.status, refused.body)
	assert.Contains(t, refused.body, "no embedding model is bound to this forest")

	srv := llamacpptest.NewServer(llamacpptest.Reply(""))
	t.Cleanup(srv.Close)
	p := ts.call("POST", "/v1/admin/providers", owner, map[string]any{"name": "lab", "endpoint": srv.URL + "/v1", "api_key": "sk-secret"})
	require.Equal(t, http.StatusOK, p.status, p.body)
	assert.NotContains(t, p.body, "sk-secret", "a key is never returned")
	bind := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "embed", "provider": "lab", "model": "fake-embed"})
	require.Equal(t, http.StatusOK, bind.status, bind.body)
	assert.Contains(t, bind.body, `"role":"embed"`)
	assert.Contains(t, bind.body, `"roles":[{"role":"ingest","kind":"chat","builtin":true`)

	built := ts.call("POST", "/v1/admin/canopy", owner, body)
	require.Equal(t, http.StatusOK, built.status, built.body)
	hybrid := func() string {
		a := ts.call("POST", "/v1/forests/"+forestID+"/locate", owner, map[string]any{"query": "storm warning", "hybrid": true})
		require.Equal(t, http.StatusOK, a.status, a.body)
		return a.str("hybrid_reason")
	}
	assert.Equal(t, "active", hybrid(), "a read lane embeds with the bound model")

	gauntlet := func(on bool) {
		a := ts.call("POST", "/v1/admin/canopy", owner, map[string]any{"forest": forestID, "enabled": on})
		require.Equal(t, http.StatusOK, a.status, a.body)
		assert.Equal(t, on, a.json["enabled"], a.body)
		st := ts.call("GET", "/v1/admin/canopy?forest="+forestID, owner, nil)
		assert.Equal(t, on, st.json["enabled"], st.body)
	}
	gauntlet(false)
	assert.Equal(t, "no-embedder", hybrid(), "the Gauntlet switched off leaves no embedder attached")
	gauntlet(true)
	assert.Equal(t, "active", hybrid())

	unbind := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "embed", "remove": true})
	require.Equal(t, http.StatusOK, unbind.status, unbind.body)
	assert.Equal(t, "no-embedder", hybrid(), "the readers reopened without it")

	// Governance rows are queued before the answer is written.
	require.NoError(t, ts.s.audit.Flush(context.Background()))
	trail := ts.call("GET", "/v1/admin/audit?limit=500", owner, nil)
	assert.Contains(t, trail.body, "admin.provider")
	assert.Contains(t, trail.body, "admin.model.bind")
	assert.NotContains(t, trail.body, "sk-secret", "no governance row carries a secret")
}

// TestProviderGovernance is F.54 (b, c): a one-forest admin lists the
// providers but cannot change or test one; a keyed provider's endpoint
// changes only with its key; the environment's providers refuse edits.
func TestProviderGovernance(t *testing.T) {
	ts := newTestStation(t, func(o *Options) {
		o.EnvProviders = []providers.EnvProvider{{Role: "llm", Name: "house", Endpoint: "https://llm.example.org/v1", APIKey: "sk-env"}}
	})
	owner := ts.owner()
	created := ts.call("POST", "/v1/admin/forests", owner, map[string]any{"id": "second", "title": "Second"})
	require.Equal(t, http.StatusOK, created.status, created.body)
	a := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "ana", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin"}}})
	require.Equal(t, http.StatusOK, a.status, a.body)
	ana := a.str("api_key")

	list := ts.call("GET", "/v1/admin/providers", ana, nil)
	require.Equal(t, http.StatusOK, list.status, list.body)
	assert.Contains(t, list.body, `{"name":"house","endpoint":"https://llm.example.org/v1","has_key":true,"origin":"env"`)
	assert.NotContains(t, list.body, "sk-env")
	assert.Contains(t, list.body, `"governs":false`, "ana administers one forest of two")
	assert.Contains(t, ts.call("GET", "/v1/admin/providers", owner, nil).body, `"governs":true`)
	for _, path := range []string{"/v1/admin/providers", "/v1/admin/providers/test"} {
		r := ts.call("POST", path, ana, map[string]any{"name": "mine", "endpoint": "https://x.example.org/v1"})
		assert.Equal(t, http.StatusForbidden, r.status, r.body)
		assert.Contains(t, r.body, "managing providers requires authority over every forest")
	}

	steps := []struct {
		body    map[string]any
		status  int
		message string
	}{
		{map[string]any{"name": "lab", "endpoint": "https://lab.example.org/v1", "api_key": "sk-lab"}, http.StatusOK, ""},
		{map[string]any{"name": "lab", "endpoint": "https://evil.example.org/v1"}, http.StatusBadRequest, "changing a provider's endpoint requires supplying its key again"},
		{map[string]any{"name": "house", "endpoint": "https://x.example.org/v1", "api_key": "k"}, http.StatusBadRequest, "MONKEYLLM_LLM_ENDPOINT"},
		{map[string]any{"name": "house", "remove": true}, http.StatusBadRequest, "declared by the environment"},
		{map[string]any{"name": "lab", "endpoint": "mailto:x"}, http.StatusBadRequest, "endpoint must be an http(s) URL with a host"},
	}
	for _, st := range steps {
		r := ts.call("POST", "/v1/admin/providers", owner, st.body)
		assert.Equal(t, st.status, r.status, "%v: %s", st.body, r.body)
		assert.Contains(t, r.body, st.message)
	}
	test := ts.call("POST", "/v1/admin/providers/test", owner, map[string]any{"endpoint": "http://127.0.0.1:9/v1"})
	assert.Equal(t, http.StatusBadRequest, test.status, test.body)
	assert.Contains(t, test.body, "endpoint resolves to a non-public address")

	bad := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "poet", "provider": "lab", "model": "m"})
	assert.Equal(t, http.StatusBadRequest, bad.status)
	assert.Contains(t, bad.body, "accepted roles: ingest, answer, vision, embed")

	// Governance rows are queued before the answer is written.
	require.NoError(t, ts.s.audit.Flush(context.Background()))
	trail := ts.call("GET", "/v1/admin/audit?limit=500&primitive=admin.provider", owner, nil)
	assert.Equal(t, 4+2, strings.Count(trail.body, `"primitive":"admin.provider"`), "refusals are audited too: %s", trail.body)
}

// chatServer is a fake model server answering text, and the model
// each call named.
func chatServer(t *testing.T, text string) (*llamacpptest.Server, func() []string) {
	srv := llamacpptest.NewServer(llamacpptest.Reply(text))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		var names []string
		for _, r := range srv.Requests() {
			names = append(names, r.Model)
		}
		return names
	}
}

// TestAnswerBindingPerForest: with AnswerWith, a forest's answer
// binding is the model that answers there; without one the forest is
// refused, and removing the binding refuses again.
func TestAnswerBindingPerForest(t *testing.T) {
	ts := newTestStation(t, func(o *Options) {
		o.AnswerWith = func(base answer.Options) (*answer.Answerer, error) { return answer.New(nil, &base), nil }
	})
	owner := ts.owner()
	ctx := context.Background()
	v, err := ts.s.forests.Forest(ctx, forestID)
	require.NoError(t, err)
	ask := func() (*answer.Response, error) {
		return ts.s.answerer.Sweep(ctx, v, "What are the storm alert thresholds?", answer.Params{NoCache: true})
	}
	_, err = ask()
	assert.ErrorContains(t, err, "no answer model is bound to this forest")

	srv, models := chatServer(t, "Alerts fire above 2.5 m.")
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/providers", owner, map[string]any{"name": "lab", "endpoint": srv.URL + "/v1"}).status)
	bind := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "answer", "provider": "lab", "model": "chat-9b", "max_tokens": 900})
	require.Equal(t, http.StatusOK, bind.status, bind.body)
	res, err := ask()
	require.NoError(t, err)
	assert.Equal(t, "Alerts fire above 2.5 m.", res.Answer)
	assert.Equal(t, "chat-9b", res.Model)
	assert.Equal(t, []string{"chat-9b"}, models())

	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "answer", "remove": true}).status)
	_, err = ask()
	assert.ErrorContains(t, err, "no answer model is bound to this forest")
}

// TestVisionBindingDescribesIngestedImages: a forest's vision binding
// describes the images its ingest jobs receive, and its ingest binding
// becomes the jobs' curator.
func TestVisionBindingDescribesIngestedImages(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	srv, models := chatServer(t, "A slide with a rota.\n\nText in the image:\n- Kelpwarden rota")
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/providers", owner, map[string]any{"name": "lab", "endpoint": srv.URL + "/v1"}).status)
	for _, role := range []string{"vision", "ingest"} {
		b := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": role, "provider": "lab", "model": role + "-model"})
		require.Equal(t, http.StatusOK, b.status, b.body)
	}
	var opt gardener.Options
	ts.s.gardenerFor(context.Background(), forestID, &opt)
	assert.IsType(t, &gardener.ModelCurator{}, opt.Curator, "the ingest binding curates")

	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nslide"))
	r := ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{
		"files": []any{map[string]any{"name": "rota.png", "b64": png}}, "dest": "operations", "wait": true})
	require.Equal(t, http.StatusOK, r.status, r.body)
	report, _ := r.json["job"].(map[string]any)["report"].(map[string]any)
	assert.Equal(t, true, report["bound"], "the forest's ingest binding is the job's model: %s", r.body)
	assert.NotNil(t, report["rollup"], "a job with a model bound rolls up at finish")
	body, err := os.ReadFile(filepath.Join(ts.root, forestID, "operations", "rota.md"))
	require.NoError(t, err, r.body)
	assert.Contains(t, string(body), "Kelpwarden rota", "the vision model's transcription is the body")
	assert.Contains(t, models(), "vision-model")
}
