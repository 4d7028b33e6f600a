// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bearer adds a key to every request of an MCP client.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestOneBatchPerForestAcrossSurfaces: while a REST ingest job runs on a
// forest, the MCP ingest tool is refused there with E_LOCKED naming it;
// once the job ends, the tool ingests.
func TestOneBatchPerForestAcrossSurfaces(t *testing.T) {
	ts := newTestStation(t, nil)
	owner := ts.owner()
	release := make(chan struct{})
	vision := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // the REST job's image waits here
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0,
			"message": map[string]any{"role": "assistant", "content": "A slide."}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(vision.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/providers", owner, map[string]any{"name": "lab", "endpoint": vision.URL + "/v1"}).status)
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "vision", "provider": "lab", "model": "vl"}).status)

	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nslide"))
	started := ts.call("POST", "/v1/forests/"+forestID+"/ingest", owner, map[string]any{
		"files": []any{map[string]any{"name": "slide.png", "b64": png}}, "dest": "operations"})
	require.Equal(t, http.StatusAccepted, started.status, started.body)
	job := started.json["job"].(map[string]any)["id"].(string)

	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "batches", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: ts.url + "/mcp", HTTPClient: &http.Client{Transport: bearer(owner)}}, nil)
	require.NoError(t, err)
	defer cs.Close()
	ingest := func() *sdk.CallToolResult {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ingest", Arguments: map[string]any{"forest": forestID,
			"files": []any{map[string]any{"name": "note.md", "text": "# Note\n\nTides."}}, "dest": "operations"}})
		require.NoError(t, err)
		return res
	}
	locked := ingest()
	require.True(t, locked.IsError)
	text := locked.Content[0].(*sdk.TextContent).Text
	assert.Contains(t, text, "E_LOCKED")
	assert.Contains(t, text, "job "+job+" is running on this forest")

	close(release)
	require.Eventually(t, func() bool { // a wait for the job, not a measure of it
		j := ts.call("GET", "/v1/forests/"+forestID+"/jobs/"+job, owner, nil)
		state, _ := j.json["job"].(map[string]any)["state"].(string)
		return state != "running"
	}, time.Minute, 20*time.Millisecond)
	done := ingest()
	require.False(t, done.IsError, done.Content[0].(*sdk.TextContent).Text)
}
