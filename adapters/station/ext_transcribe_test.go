// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/internal/exttest"
)

// TestExtensionTranscribes: an extension's converter hears a voice memo
// through models.transcribe, which goes to the model the forest binds to
// the extension's transcribe role (a bound caller, never a key) and is
// audited as model.<role>. A memo that names another path is refused as
// absent before any byte of that file reaches a model.
func TestExtensionTranscribes(t *testing.T) {
	tree := exttest.Tree(t, "github.com/monkeyllm/vine/adapters/station/testdata/extlisten")
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	ts := newTestStation(t, func(o *Options) { o.Extensions = home })
	owner := ts.owner()
	inst := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": tree, "acknowledge": true, "enable_on": forestID})
	require.Equal(t, http.StatusCreated, inst.status, inst.body)
	roles := ts.call("GET", "/v1/admin/models?forest="+forestID, owner, nil)
	assert.Contains(t, roles.body, `{"role":"listen_stt","kind":"transcribe","builtin":false,"ext":"listen"`)

	var mu sync.Mutex
	var heard []string
	srv := llamacpptest.NewServer(llamacpptest.Reply("unused"))
	srv.Hear = func(name, model string, audio []byte) string {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, name)
		return model + " heard: the tide turns at six."
	}
	t.Cleanup(srv.Close)
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/providers", owner, map[string]any{"name": "lab", "endpoint": srv.URL + "/v1"}).status)
	bind := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "listen_stt", "provider": "lab", "model": "whisper-tiny"})
	require.Equal(t, http.StatusOK, bind.status, bind.body)

	memo := base64.StdEncoding.EncodeToString([]byte("RIFF....WAVEfmt a voice memo"))
	r := ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{
		"files": []any{map[string]any{"name": "harbour-memo.wav", "b64": memo}}, "dest": "operations", "wait": true})
	require.Equal(t, http.StatusOK, r.status, r.body)
	body, err := os.ReadFile(filepath.Join(ts.root, forestID, "operations", "harbour-memo.md"))
	require.NoError(t, err, r.body)
	assert.Contains(t, string(body), "whisper-tiny heard: the tide turns at six.")
	require.NoError(t, ts.s.audit.Flush(context.Background()))
	trail := ts.call("GET", "/v1/admin/audit?limit=500", owner, nil)
	var rows struct {
		Entries []struct {
			Principal string         `json:"principal"`
			Primitive string         `json:"primitive"`
			Args      map[string]any `json:"args"`
			Via       string         `json:"via"`
			ModelMS   *float64       `json:"model_ms"`
			CostUSD   *float64       `json:"cost_usd"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal([]byte(trail.body), &rows))
	var model int
	for _, e := range rows.Entries {
		if e.Primitive == "model.listen_stt" {
			model++
			assert.Equal(t, "olga", e.Principal, "the row names the person the conversion served (F.177)")
			assert.Equal(t, "ext:listen", e.Via)
			assert.NotNil(t, e.ModelMS)
			assert.Nil(t, e.CostUSD, "audio has no per-token price: unpriced, never $0.00")
		}
	}
	assert.Equal(t, 1, model, trail.body)

	secret := filepath.Join(t.TempDir(), "host-secret.wav")
	require.NoError(t, os.WriteFile(secret, []byte("the host's own file"), 0o600))
	steal := base64.StdEncoding.EncodeToString([]byte("STEAL " + secret))
	r = ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{
		"files": []any{map[string]any{"name": "sly.wav", "b64": steal}}, "dest": "operations", "wait": true})
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, r.body, "was given to this call", "the refusal is named in the report")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"harbour-memo.wav"}, heard, "no other file reached the model")
}
