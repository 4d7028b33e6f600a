// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/recordtest"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/internal/testforest"
)

// notes are n small markdown uploads.
func notes(n int) []map[string]string {
	out := make([]map[string]string, n)
	for i := range out {
		out[i] = map[string]string{"name": fmt.Sprintf("note-%d.md", i),
			"text": fmt.Sprintf("# Buoy log %d\n\nThe buoy %d reported a calm sea.", i, i)}
	}
	return out
}

// TestIngestSendsProgress: a client that passes a progress token hears
// one notification per document, (done, total, message naming the
// file), all before the result, which is the finished job (J.9); one
// that passes none hears nothing.
func TestIngestSendsProgress(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })

	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(reg, &mcp.Options{Ingest: &mcp.IngestOptions{}}).Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		},
	}).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	params := &sdk.CallToolParams{Name: "ingest", Arguments: map[string]any{"files": notes(3), "dest": "operations"}}
	params.SetProgressToken("batch-1")
	job := answer(t, call2(t, cs, params))["job"].(map[string]any)
	assert.Equal(t, "done", job["state"], "MCP waits by default")
	assert.Regexp(t, `^ing-[0-9a-f]{8}$`, job["id"])
	assert.InDelta(t, 3, job["done"], 0)
	assert.InDelta(t, 3, job["total"], 0)
	report := job["report"].(map[string]any)
	assert.Equal(t, "upload", report["mode"])
	assert.Len(t, report["planted"], 3)
	assert.NotEqual(t, report["commit_before"], report["commit"], "the batch committed")

	seen := func() []*sdk.ProgressNotificationParams {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
	// The server sends every notification before the result; the client
	// hands notifications to its handler on a goroutine of their own, so
	// the last may be handled after CallTool returned.
	require.Eventually(t, func() bool { return len(seen()) >= 3 }, 10*time.Second, 5*time.Millisecond,
		"one notification per document")
	heard := seen()
	require.Len(t, heard, 3, "one notification per document, no more")
	for i, p := range heard {
		assert.Equal(t, "batch-1", p.ProgressToken)
		assert.InDelta(t, float64(i+1), p.Progress, 0)
		assert.InDelta(t, 3, p.Total, 0)
		assert.Contains(t, p.Message, "note-")
	}
	mu.Lock()
	got = nil
	mu.Unlock()

	res := call(t, cs, "ingest", map[string]any{"files": []map[string]string{{"name": "quiet.md", "text": "# Quiet\n\nNo token."}}})
	assert.Equal(t, "done", answer(t, res)["job"].(map[string]any)["state"])
	assert.Empty(t, seen(), "no token, no progress")
}

func call2(t *testing.T, cs *sdk.ClientSession, p *sdk.CallToolParams) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	require.NoError(t, err)
	return res
}

// TestIngestRefusalsWriteNothing: ingest over MCP refuses as REST does
// (one validation package) and a refused call leaves the forest
// byte-identical, staging included.
func TestIngestRefusalsWriteNothing(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	table := keyTable{
		"mk_read": {Name: "reader", Grants: map[string]vine.Policy{"mare-alta": {Allow: []string{""}, Caps: []vine.Capability{vine.CapRead}}}},
		"mk_ops": {Name: "ops", Grants: map[string]vine.Policy{
			"mare-alta": {Allow: []string{"operations/"}, Caps: []vine.Capability{vine.CapRead, vine.CapIngest}}}},
		"mk_all": {Name: "owner", Grants: map[string]vine.Policy{"mare-alta": {Allow: []string{""}, Caps: []vine.Capability{vine.CapAdmin}}}},
	}
	srv := httptest.NewServer(mcp.Handler(reg, &mcp.Options{Keys: table, AllowedHosts: []string{"*"}, Ingest: &mcp.IngestOptions{}}))
	t.Cleanup(srv.Close)
	as := func(key string) *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: withKey{key, http.DefaultTransport}}}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	one := []map[string]string{{"name": "a.md", "text": "# A"}}
	cases := []struct {
		name, key string
		args      map[string]any
		code      vine.Code
		says      string
	}{
		{"upload without files", "mk_all", map[string]any{}, vine.ESchema, "needs parameter 'files'"},
		{"unknown mode", "mk_all", map[string]any{"mode": "compost", "files": one}, vine.ESchema, "mode"},
		{"text and b64 both", "mk_all", map[string]any{"files": []map[string]string{{"name": "a", "text": "x", "b64": "eA=="}}}, vine.ESchema, "files[0]"},
		{"bad b64 in the second entry", "mk_all", map[string]any{"files": []map[string]string{{"name": "a.md", "text": "# A"}, {"name": "b.bin", "b64": "%%"}}}, vine.ESchema, "files[1]"},
		{"path names no ingest root", "mk_all", map[string]any{"mode": "adopt", "path": dir}, vine.EForbidden, "MONKEYLLM_INGEST_ROOTS"},
		{"no ingest capability", "mk_read", map[string]any{"files": one}, vine.EForbidden, "ingest capability"},
		{"limited key without dest", "mk_ops", map[string]any{"files": one}, vine.ESchema, "'dest' is required"},
		{"limited key, dest outside", "mk_ops", map[string]any{"files": one, "dest": "projects"}, vine.EForbidden, "outside"},
		{"limited key, adopt", "mk_ops", map[string]any{"mode": "adopt", "path": dir}, vine.EForbidden, "admin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := as(c.key)
			testforest.Unchanged(t, dir, func() {
				e := refusal(t, call(t, cs, "ingest", c.args), c.code)
				assert.Contains(t, e["message"], c.says)
			})
		})
	}
}

// TestIngestServedWhenConfigured: the tool is listed, with b64 in its
// description, only on a server given IngestOptions.
func TestIngestServedWhenConfigured(t *testing.T) {
	for _, o := range []*mcp.Options{nil, {Ingest: &mcp.IngestOptions{}}} {
		dir, _ := testforest.Fixture(t)
		cs, _ := serve(t, dir, nil, o)
		tools := listTools(t, cs)
		tool, ok := tools["ingest"]
		assert.Equal(t, o != nil, ok)
		if ok {
			assert.Contains(t, tool.Description, "b64")
			assert.Len(t, tools, len(vine.Signatures())+2, "every primitive, forests and ingest")
		}
	}
}

// TestIngestAuditAtFinish: a waited batch writes one row when its job
// ends, naming the job and carrying the last commit; a refusal writes
// its row at once. A batch that does not wait answers its running job.
func TestIngestAuditAtFinish(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	tr := &recordtest.Trail{}
	cs, _ := serve(t, dir, nil, &mcp.Options{Recorder: tr, Ingest: &mcp.IngestOptions{}})
	job := answer(t, call(t, cs, "ingest", map[string]any{"files": notes(2)}))["job"].(map[string]any)
	refusal(t, call(t, cs, "ingest", map[string]any{"mode": "sync", "files": notes(1)}), vine.ESchema)
	rows := tr.All()
	require.Len(t, rows, 2)
	assert.Equal(t, "ingest", rows[0].Primitive)
	assert.Equal(t, record.OK, rows[0].Result)
	assert.Equal(t, job["id"], rows[0].Args["job"])
	assert.Equal(t, job["report"].(map[string]any)["commit"], rows[0].CommitSHA)
	assert.Equal(t, record.Error, rows[1].Result)
	assert.Equal(t, "E_SCHEMA", rows[1].ErrorCode)

	started := answer(t, call(t, cs, "ingest", map[string]any{"files": notes(1), "wait": false}))["job"].(map[string]any)
	assert.Equal(t, "running", started["state"], "wait false answers the job as it starts")
	assert.InDelta(t, 1, started["total"], 0)
	assert.NotContains(t, started, "report")
	// The forest is free again once that batch has finished: a second
	// batch is refused E_LOCKED until then, never queued.
	require.Eventually(t, func() bool {
		return !call(t, cs, "ingest", map[string]any{"files": notes(1)}).IsError
	}, 30*time.Second, 10*time.Millisecond, "the batch that did not wait finishes and frees the forest")
}
