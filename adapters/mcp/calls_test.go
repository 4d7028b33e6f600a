// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestEveryToolAnswers calls every served tool once with valid arguments
// on a writable fixture, in an order where the writes build on each other.
// A primitive added to the table without a case here fails the test.
func TestEveryToolAnswers(t *testing.T) {
	dir, man := testforest.Fixture(t)
	cs, _ := serve(t, dir, nil, &mcp.Options{Version: "1.0.0-test"})
	probe := "operations/mcp-probe"
	cases := []struct {
		tool   string
		args   string
		keys   []string // top-level keys the answer must carry
		writes bool     // the call makes one commit
	}{
		{"forests", `{}`, []string{"forests", "station"}, false},
		{"locate", `{"query": "tide"}`, []string{"results", "truncated"}, false},
		{"look", `{"id": "concepts/tide", "forest": "mare-alta"}`, []string{"id", "title", "edges_out"}, false},
		{"move", `{"id": "concepts/tide", "direction": "both"}`, []string{"neighbors", "truncated"}, false},
		{"pick", `{"id": "` + man.Large + `"}`, []string{"id", "body", "next"}, false},
		{"scan", `{"parent_id": "_index"}`, []string{"nodes", "total", "returned"}, false},
		{"sniff", `{"terms": "Itapuã"}`, []string{"results", "scanned_nodes"}, false},
		{"harvest", `{"query": "storm at the breakwater"}`, []string{"query", "terms", "results"}, false},
		{"calendar", `{}`, []string{"granularity", "buckets"}, false},
		{"coverage", `{}`, []string{"roots", "total", "types"}, false},
		{"history", `{"id": "concepts/tide"}`, []string{"id", "entries"}, false},
		{"query", `{"id": "` + man.Dataset + `", "sql": "SELECT count(*) AS n FROM ledger"}`, []string{"columns", "rows"}, false},
		{"tend", `{"id": "` + man.Dataset + `", "sql": "INSERT INTO ledger(day, account, port, amount, memo) VALUES ('2026-11-30', 'fuel', 'Itapuã', 12.5, 'mcp probe')"}`, []string{"rows_affected", "commit"}, true},
		{"plant", `{"node": {"id": "` + probe + `", "type": "note", "title": "MCP probe", "summary": "A node planted through the MCP adapter.", "parent": "operations/_index"}}`, []string{"id", "created", "commit"}, true},
		{"graft", `{"id": "` + probe + `", "patch": {"set_frontmatter": {"title": "MCP probe, grafted"}}}`, []string{"id", "commit"}, true},
		{"transplant", `{"id": "` + probe + `", "new_id": "` + probe + `-moved"}`, []string{"id", "moved_from", "commit"}, true},
		{"prune", `{"id": "` + probe + `-moved"}`, []string{"id", "pruned", "commit"}, true},
		{"close_session", `{"success": true, "answer_nodes": ["concepts/tide"]}`, []string{"session", "outcome"}, false},
	}
	covered := map[string]bool{"view": true} // view answers an image: TestViewAnswersImageBlock
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			covered[c.tool] = true
			before := testforest.Head(t, dir)
			res := call(t, cs, c.tool, json.RawMessage(c.args))
			require.Len(t, res.Content, 1)
			got := answer(t, res)
			for _, k := range c.keys {
				assert.Contains(t, got, k)
			}
			var compact bytes.Buffer
			require.NoError(t, json.Compact(&compact, []byte(text(t, res))))
			assert.Equal(t, compact.String(), text(t, res), "the text block is compact")
			assert.NotContains(t, text(t, res), dir, "no server path on the wire")
			if c.writes {
				assert.NotEqual(t, before, testforest.Head(t, dir), "%s commits", c.tool)
			} else {
				assert.Equal(t, before, testforest.Head(t, dir), "%s does not commit", c.tool)
			}
		})
	}
	for _, sig := range vine.Signatures() {
		assert.True(t, covered[sig.Name], "no in-process MCP test calls %s", sig.Name)
	}
}

// TestResultIsWhatTheEngineAnswers: the text block is the engine's result
// encoded compactly, byte for byte what REST sends for the same call.
func TestResultIsWhatTheEngineAnswers(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, reg := serve(t, dir, &vine.Options{ReadOnly: true}, nil)
	args := `{"parent_id": "concepts/_index", "fields": ["id", "title"], "limit": 3}`
	res := call(t, cs, "scan", json.RawMessage(args))
	v, err := reg.Forest(context.Background(), "")
	require.NoError(t, err)
	out, err := v.Call(context.Background(), "scan", []byte(args))
	require.NoError(t, err)
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(out))
	assert.Equal(t, strings.TrimSuffix(want.String(), "\n"), text(t, res))
}

func TestViewAnswersImageBlock(t *testing.T) {
	dir, man := testforest.Fixture(t)
	cs, _ := serve(t, dir, &vine.Options{ReadOnly: true}, nil)
	res := call(t, cs, "view", map[string]any{"id": man.Media})
	require.False(t, res.IsError, text(t, res))
	require.Len(t, res.Content, 2, "a header and an image")
	var head map[string]any
	require.NoError(t, json.Unmarshal([]byte(text(t, res)), &head))
	assert.Equal(t, []string{"id", "media_type", "size", "payload_hash"}, keysInOrder(t, text(t, res)))
	assert.Equal(t, man.Media, head["id"])
	assert.Equal(t, "image/png", head["media_type"])
	assert.NotContains(t, text(t, res), "_assets", "the header never carries a server path")
	assert.NotContains(t, text(t, res), dir)

	img, ok := res.Content[1].(*sdk.ImageContent)
	require.True(t, ok, "second block is an image, got %T", res.Content[1])
	assert.Equal(t, "image/png", img.MIMEType)
	want, err := os.ReadFile(filepath.Join(dir, "media", "_assets", "harbour-map.png"))
	require.NoError(t, err)
	assert.Equal(t, want, img.Data)
	assert.Equal(t, float64(len(want)), head["size"])

	// A refused view is the envelope alone, no image.
	refusal(t, call(t, cs, "view", map[string]any{"id": "concepts/tide"}), vine.ENotFound)
}

// keysInOrder lists a JSON object's top-level keys as they appear.
func keysInOrder(t *testing.T, body string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}
