// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/internal/testforest"
)

type refusalCase struct {
	name    string
	tool    string
	args    string // raw JSON arguments
	code    vine.Code
	message []string // substrings of the message
	hint    []string // substrings of the hint
}

func runRefusals(t *testing.T, dir string, cs *sdk.ClientSession, cases []refusalCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testforest.Unchanged(t, dir, func() {
				e := refusal(t, call(t, cs, c.tool, json.RawMessage(c.args)), c.code)
				for _, m := range c.message {
					assert.Contains(t, e["message"], m)
				}
				for _, h := range c.hint {
					assert.Contains(t, e["hint"], h)
				}
				assert.NotContains(t, e["message"], dir, "no server path on the wire")
				if hint, ok := e["hint"]; ok {
					assert.NotContains(t, hint, dir)
				}
			})
		})
	}
}

func TestRefusalsWearTheEnvelope(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, _ := serve(t, dir, nil, nil)
	runRefusals(t, dir, cs, []refusalCase{
		{"unknown parameter", "locate", `{"query": "tide", "bogus": 1}`, vine.ESchema,
			[]string{"locate", "unknown parameter 'bogus'"}, []string{"query", "scope"}},
		{"wrong type", "locate", `{"query": 3}`, vine.ESchema,
			[]string{"parameter 'query' expects string, got integer"}, nil},
		{"list for a scalar", "move", `{"id": ["concepts/tide", "concepts/storm-surge"]}`, vine.ESchema,
			[]string{"parameter 'id' expects string, got list of string"}, nil},
		{"missing required", "look", `{}`, vine.ESchema,
			[]string{"missing required parameter 'id'"}, nil},
		{"null required", "look", `{"id": null}`, vine.ESchema,
			[]string{"required parameter 'id'", "null"}, nil},
		{"enum", "move", `{"id": "concepts/tide", "direction": "sideways"}`, vine.ESchema,
			[]string{"direction", "sideways", "out, in, both"}, nil},
		{"integer refuses a fraction", "locate", `{"query": "tide", "k": 2.5}`, vine.ESchema,
			[]string{"parameter 'k' expects integer, got number"}, nil},
		{"arguments not an object", "locate", `["tide"]`, vine.ESchema,
			[]string{"arguments must be a JSON object, got list"}, nil},
		{"forest of the wrong type", "locate", `{"query": "tide", "forest": ["mare-alta"]}`, vine.ESchema,
			[]string{"parameter 'forest' expects string, got list of string"}, nil},
		{"forest of another name", "locate", `{"query": "tide", "forest": "elsewhere"}`, vine.ENotFound,
			[]string{"unknown forest: elsewhere"}, []string{"mare-alta"}},
		{"unknown tool", "teleport", `{}`, vine.ENotFound,
			[]string{"unknown tool: teleport"}, []string{"forests", "locate", "plant", "view"}},
		{"forests takes no arguments", "forests", `{"k": 1}`, vine.ESchema,
			[]string{"unknown parameter 'k'"}, nil},
		{"id climbing out of the forest", "look", `{"id": "../../etc/passwd"}`, vine.ENotFound, nil, nil},
		{"absolute id", "pick", `{"id": "/etc/passwd"}`, vine.ENotFound, nil, nil},
		{"graft outside the forest", "graft", `{"id": "../outside", "patch": {"replace_body": "x"}}`, vine.ENotFound, nil, nil},
		{"transplant out of the forest", "transplant", `{"id": "concepts/tide", "new_id": "../../escaped"}`, vine.ENotFound,
			[]string{"escapes"}, nil},
		{"plant a taken id", "plant", `{"node": {"id": "concepts/tide", "type": "concept", "title": "T", "summary": "Taken id.", "parent": "concepts/_index"}}`,
			vine.ESchema, []string{"id already exists"}, nil},
		{"prune an anchored node", "prune", `{"id": "concepts/tide"}`, vine.EAnchored, nil, []string{"force"}},
		{"query that writes", "query", `{"id": "finance/ledger-2026", "sql": "DELETE FROM ledger"}`, vine.EQueryForbidden, nil, nil},
	})
}

func TestReadOnlyForestRefusesWrites(t *testing.T) {
	dir, man := testforest.Fixture(t)
	cs, _ := serve(t, dir, &vine.Options{ReadOnly: true}, nil)
	runRefusals(t, dir, cs, []refusalCase{
		{"plant", "plant", `{"node": {"id": "operations/x", "type": "note", "title": "T", "summary": "A short valid summary.", "parent": "operations/_index"}}`,
			vine.EReadOnly, nil, nil},
		{"graft", "graft", `{"id": "concepts/tide", "patch": {"set_frontmatter": {"title": "Tides"}}}`, vine.EReadOnly, nil, nil},
		{"prune", "prune", `{"id": "concepts/tide", "force": true}`, vine.EReadOnly, nil, nil},
		{"transplant", "transplant", `{"id": "operations/radio-schedule", "new_id": "operations/radio-watch"}`, vine.EReadOnly, nil, nil},
		{"tend", "tend", `{"id": "` + man.Dataset + `", "sql": "DELETE FROM ledger WHERE 1"}`, vine.EReadOnly, nil, nil},
	})
	answer(t, call(t, cs, "locate", map[string]any{"query": "tide"})) // reads still serve
}

// TestRegistryMode serves a directory of forests: forest is required,
// ids are contained, and each call touches only its forest.
func TestRegistryMode(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	for _, id := range []string{"harbour", "lighthouse"} {
		_, err := vine.Init(ctx, filepath.Join(root, id), "The "+id, nil)
		require.NoError(t, err)
	}
	harbour, lighthouse := filepath.Join(root, "harbour"), filepath.Join(root, "lighthouse")
	cs, _ := serve(t, root, nil, &mcp.Options{Version: "2.0.0-test"})

	got := answer(t, call(t, cs, "forests", nil))
	assert.Equal(t, "2.0.0-test", got["station"])
	var ids []string
	for _, f := range got["forests"].([]any) {
		ids = append(ids, f.(map[string]any)["id"].(string))
	}
	assert.Equal(t, []string{"harbour", "lighthouse"}, ids)

	for _, dir := range []string{harbour, lighthouse} {
		runRefusals(t, dir, cs, []refusalCase{
			{"forest missing", "locate", `{"query": "tide"}`, vine.ESchema,
				[]string{"parameter 'forest' is required"}, []string{"harbour", "lighthouse", "forests()"}},
			{"forest null", "locate", `{"query": "tide", "forest": null}`, vine.ESchema,
				[]string{"parameter 'forest' is required"}, nil},
			{"forest escaping the root", "locate", `{"query": "tide", "forest": "../harbour"}`, vine.ENotFound,
				[]string{"unknown forest: ../harbour"}, nil},
			{"forest absolute", "look", `{"id": "_index", "forest": "/harbour"}`, vine.ENotFound, nil, nil},
			{"forest unknown", "look", `{"id": "_index", "forest": "nowhere"}`, vine.ENotFound,
				[]string{"unknown forest: nowhere"}, nil},
			{"schema before forest", "look", `{"idd": "_index"}`, vine.ESchema,
				[]string{"unknown parameter 'idd'"}, nil},
		})
	}

	before := testforest.Head(t, lighthouse)
	plant := `{"forest": "harbour", "node": {"id": "berths", "type": "note", "title": "Berths", "summary": "Which boat sits where.", "parent": "_index"}}`
	answer(t, call(t, cs, "plant", json.RawMessage(plant)))
	assert.Equal(t, before, testforest.Head(t, lighthouse), "a write to one forest leaves the other alone")
	look := answer(t, call(t, cs, "look", map[string]any{"forest": "harbour", "id": "berths"}))
	assert.Equal(t, "Berths", look["title"])
	refusal(t, call(t, cs, "look", map[string]any{"forest": "lighthouse", "id": "berths"}), vine.ENotFound)
}
