// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/internal/testforest"
)

// wireType reads a parameter's wire type back from its schema, so the
// comparison with the table does not trust the code that wrote it.
func wireType(t *testing.T, s map[string]any) vine.ParamType {
	t.Helper()
	one := func(s map[string]any) string {
		typ, _ := s["type"].(string)
		if typ == "array" {
			items, _ := s["items"].(map[string]any)
			inner, _ := items["type"].(string)
			return inner + "[]"
		}
		return typ
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		require.Len(t, anyOf, 2)
		return vine.ParamType(one(anyOf[0].(map[string]any)) + "|" + one(anyOf[1].(map[string]any)))
	}
	return vine.ParamType(one(s))
}

func listTools(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	out := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	require.Len(t, out, len(res.Tools), "tool names are unique")
	return out
}

func schemaOf(t *testing.T, tool *sdk.Tool) map[string]any {
	t.Helper()
	b, err := json.Marshal(tool.InputSchema)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// TestToolsMatchSignatureTable compares the served tool list with
// vine.Signatures() one to one (spec 08 §3 r1): names, parameters,
// required, types, defaults and enums; forest set aside.
func TestToolsMatchSignatureTable(t *testing.T) {
	single, _ := testforest.Fixture(t)
	registry := t.TempDir()
	require.NoError(t, os.Rename(single, filepath.Join(registry, "mare-alta")))
	for _, mode := range []string{vine.ModeSingle, vine.ModeRegistry} {
		t.Run(mode, func(t *testing.T) {
			root := filepath.Join(registry, "mare-alta")
			if mode == vine.ModeRegistry {
				root = registry
			}
			cs, _ := serve(t, root, &vine.Options{ReadOnly: true}, nil)
			tools := listTools(t, cs)
			sigs := vine.Signatures()
			assert.Len(t, tools, len(sigs)+1, "every primitive plus forests, nothing else")
			require.Contains(t, tools, "forests")
			assert.Empty(t, schemaOf(t, tools["forests"])["properties"])
			for _, sig := range sigs {
				tool, ok := tools[sig.Name]
				if !assert.True(t, ok, "primitive %s is not served", sig.Name) {
					continue
				}
				s := schemaOf(t, tool)
				props := s["properties"].(map[string]any)
				forest, hasForest := props["forest"].(map[string]any)
				require.True(t, hasForest, "%s: the forest argument", sig.Name)
				assert.Equal(t, "string", forest["type"])
				delete(props, "forest")

				required := []string{}
				for _, r := range asSlice(s["required"]) {
					required = append(required, r.(string))
				}
				assert.Equal(t, mode == vine.ModeRegistry, slices.Contains(required, "forest"),
					"%s: forest is required exactly in registry mode", sig.Name)
				required = slices.DeleteFunc(required, func(r string) bool { return r == "forest" })

				wantRequired := []string{}
				for _, p := range sig.Params {
					wantRequired = appendIf(wantRequired, p.Name, p.Required)
					ps, ok := props[p.Name].(map[string]any)
					if !assert.True(t, ok, "%s.%s missing from the schema", sig.Name, p.Name) {
						continue
					}
					assert.Equal(t, p.Type, wireType(t, ps), "%s.%s type", sig.Name, p.Name)
					if p.Default != nil {
						want, _ := json.Marshal(p.Default)
						got, _ := json.Marshal(ps["default"])
						assert.JSONEq(t, string(want), string(got), "%s.%s default", sig.Name, p.Name)
					} else {
						assert.NotContains(t, ps, "default", "%s.%s", sig.Name, p.Name)
					}
					var enum []string
					for _, e := range asSlice(ps["enum"]) {
						enum = append(enum, e.(string))
					}
					assert.Equal(t, p.Enum, enum, "%s.%s enum", sig.Name, p.Name)
					delete(props, p.Name)
				}
				assert.Empty(t, props, "%s: schema parameters not in the table", sig.Name)
				assert.Equal(t, wantRequired, required, "%s required", sig.Name)
				assert.Equal(t, false, s["additionalProperties"], sig.Name)
			}
		})
	}
}

func appendIf(s []string, v string, ok bool) []string {
	if ok {
		return append(s, v)
	}
	return s
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestToolAnnotations(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, _ := serve(t, dir, &vine.Options{ReadOnly: true}, nil)
	tools := listTools(t, cs)
	for name, tool := range tools {
		a := tool.Annotations
		require.NotNil(t, a, name)
		require.NotNil(t, a.OpenWorldHint, name)
		assert.False(t, *a.OpenWorldHint, "%s: a forest is a closed world", name)
		require.NotNil(t, a.DestructiveHint, name)
		if name == "forests" {
			assert.True(t, a.ReadOnlyHint)
			continue
		}
		sig, _ := vine.LookupSignature(name)
		assert.Equal(t, sig.ReadOnly, a.ReadOnlyHint, name)
		assert.Equal(t, sig.Destructive || name == "graft", *a.DestructiveHint, name)
		assert.Equal(t, sig.Idempotent, a.IdempotentHint, name)
	}
	assert.True(t, *tools["prune"].Annotations.DestructiveHint)
	assert.True(t, *tools["graft"].Annotations.DestructiveHint, "graft replaces bodies and removes links")
	assert.False(t, tools["plant"].Annotations.ReadOnlyHint)
	assert.True(t, tools["locate"].Annotations.ReadOnlyHint)
}

// TestDescriptionsServed checks on the served text that each tool names
// its budget and the neighbour that does what it refuses (§4.3 r7).
func TestDescriptionsServed(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, _ := serve(t, dir, &vine.Options{ReadOnly: true}, nil)
	tools := listTools(t, cs)
	word := func(s, w string) bool { return regexp.MustCompile(`\b` + w + `\b`).MatchString(s) }
	for pair, names := range map[string][]string{
		"locate": {"sniff", "calendar", "coverage"}, "look": {"pick", "view"}, "query": {"tend"}, "tend": {"query"},
		"plant": {"graft", "if_absent"}, "graft": {"transplant"}, "prune": {"force"},
	} {
		for _, n := range names {
			assert.True(t, word(tools[pair].Description, n), "%s should name %s", pair, n)
		}
	}
	assert.Contains(t, tools["locate"].Description, "800 tokens")
	assert.Contains(t, tools["pick"].Description, "4000 tokens")
	assert.Contains(t, tools["plant"].Description, "No token budget")
	assert.Contains(t, tools["forests"].Description, "forest")
}

func TestInitializeAnnouncesToolsOnly(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, _ := serve(t, dir, &vine.Options{ReadOnly: true}, &mcp.Options{Version: "9.9.9-test"})
	init := cs.InitializeResult()
	require.NotNil(t, init)
	assert.Equal(t, "vine", init.ServerInfo.Name)
	assert.Equal(t, "9.9.9-test", init.ServerInfo.Version)
	caps := init.Capabilities
	assert.NotNil(t, caps.Tools)
	assert.Nil(t, caps.Resources, "no empty capabilities")
	assert.Nil(t, caps.Prompts)
	assert.Nil(t, caps.Logging)

	// Instructions name every registered tool (§4.3 r5).
	tools := listTools(t, cs)
	m := regexp.MustCompile(`Tools: ([a-z_, ]+)\.`).FindStringSubmatch(init.Instructions)
	require.Len(t, m, 2, init.Instructions)
	var named []string
	for _, n := range regexp.MustCompile(`, `).Split(m[1], -1) {
		named = append(named, n)
	}
	var served []string
	for n := range tools {
		served = append(served, n)
	}
	slices.Sort(served)
	assert.Equal(t, served, named)
}

func TestInstructionsInRegistryModeSayForestsFirst(t *testing.T) {
	root := t.TempDir()
	_, err := vine.Init(context.Background(), filepath.Join(root, "kb"), "KB", nil)
	require.NoError(t, err)
	cs, _ := serve(t, root, &vine.Options{ReadOnly: true}, nil)
	assert.Contains(t, cs.InitializeResult().Instructions, "call forests first")
}

// TestWithheldMethods: exactly the prompts/* and resources/* families
// answer "method not found" (§4.4); the rest is served.
func TestWithheldMethods(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, _ := serve(t, dir, &vine.Options{ReadOnly: true}, nil)
	ctx := context.Background()
	_, err := cs.ListPrompts(ctx, nil)
	assert.ErrorContains(t, err, "method not found")
	_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "x"})
	assert.ErrorContains(t, err, "method not found")
	_, err = cs.ListResources(ctx, nil)
	assert.ErrorContains(t, err, "method not found")
	_, err = cs.ListResourceTemplates(ctx, nil)
	assert.ErrorContains(t, err, "method not found")
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "file:///x"})
	assert.ErrorContains(t, err, "method not found")

	assert.NoError(t, cs.Ping(ctx, nil))
	_, err = cs.ListTools(ctx, nil)
	assert.NoError(t, err)
}

// TestToolTitlesAndOutputSchemas: every tool has a human title (beside
// its name, and in its annotations) and an object outputSchema, and a
// result carries structuredContent equal to its text block.
func TestToolTitlesAndOutputSchemas(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	cs, _ := serve(t, dir, &vine.Options{ReadOnly: true}, nil)
	tools := listTools(t, cs)
	titles := map[string]bool{}
	for name, tool := range tools {
		assert.NotEmpty(t, tool.Title, name)
		assert.NotEqual(t, name, tool.Title, "%s: a title is for people, not the name again", name)
		assert.Equal(t, tool.Title, tool.Annotations.Title, name)
		assert.False(t, titles[tool.Title], "%s: titles tell tools apart", name)
		titles[tool.Title] = true
		schema, err := json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		var s map[string]any
		require.NoError(t, json.Unmarshal(schema, &s), name)
		assert.Equal(t, "object", s["type"], "%s: MCP's outputSchema is an object", name)
	}
	assert.Equal(t, "Change a node", tools["graft"].Title)

	for tool, args := range map[string]any{
		"forests": nil, "locate": map[string]any{"query": "tide"}, "look": map[string]any{"id": "concepts/tide"},
		"scan": map[string]any{"parent_id": "concepts/_index"}, "coverage": nil, "history": map[string]any{"id": "concepts/tide"},
	} {
		res := call(t, cs, tool, args)
		answer(t, res) // asserts structuredContent = text
	}
}
