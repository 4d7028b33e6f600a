// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/answer"
)

// taught is one call the skill text teaches: the surface, the name and
// its arguments as written.
type taught struct {
	surface, name string
	args          map[string]any
}

// skillCalls reads every call in the skill templates: name({...}) is an
// MCP tool call, POST {{origin}}/v1/forests/{{forest}}/name {...} a REST one.
func skillCalls(t *testing.T) []taught {
	src, err := os.ReadFile(filepath.Join("web", "assets", "consoles", "skills-text.js"))
	require.NoError(t, err)
	text := regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAllString(strings.ReplaceAll(string(src), "\\`", "`"), "")
	var out []taught
	read := func(surface, name string, at int) {
		var args map[string]any
		dec := json.NewDecoder(strings.NewReader(text[at:]))
		require.NoError(t, dec.Decode(&args), "the arguments of %s at %q are JSON", name, text[at:min(len(text), at+80)])
		out = append(out, taught{surface, name, args})
	}
	for _, m := range regexp.MustCompile(`\b([a-z_]+)\((\{)"`).FindAllStringSubmatchIndex(text, -1) {
		read("mcp", text[m[2]:m[3]], m[4])
	}
	for _, m := range regexp.MustCompile(`POST \{\{origin\}\}/v1/forests/\{\{forest\}\}/([a-z_]+) (\{)`).FindAllStringSubmatchIndex(text, -1) {
		read("rest", text[m[2]:m[3]], m[4])
	}
	return out
}

// TestSkillTeachesServedCalls (F.127): every call the skill teaches
// names a served tool or route with the parameters of its signature, the
// required ones present, and every MCP example carries forest.
func TestSkillTeachesServedCalls(t *testing.T) {
	mcp := map[string]vine.Signature{answer.Signature.Name: answer.Signature, ingestreq.Name: ingestreq.Signature(true, false)}
	restSigs := map[string]vine.Signature{ingestreq.Name: ingestreq.Signature(false, true)}
	for _, s := range vine.Signatures() {
		mcp[s.Name] = s
	}
	calls := skillCalls(t)
	require.Greater(t, len(calls), 20, "the templates teach calls")
	rest := 0
	for _, c := range calls {
		if c.surface == "rest" {
			rest++
		}
	}
	assert.Equal(t, 2, rest, "the two REST examples (compose, share) are read too")
	seen := map[string]bool{}
	for _, c := range calls {
		sig, ok := mcp[c.name]
		if c.surface == "rest" {
			sig, ok = restSigs[c.name]
			if c.name == "share" { // a host route, not a primitive: {node, days}
				assert.Contains(t, c.args, "node")
				continue
			}
		} else {
			assert.Contains(t, c.args, "forest", "%s: every example carries forest", c.name)
			delete(c.args, "forest")
		}
		if !assert.True(t, ok, "the skill teaches %s %q, which is not served", c.surface, c.name) {
			continue
		}
		seen[c.name] = true
		for k := range c.args {
			_, known := sig.Param(k)
			assert.True(t, known, "%s: %q is not a parameter of %s", c.surface, k, c.name)
		}
		for _, p := range sig.Params {
			if p.Required {
				assert.Contains(t, c.args, p.Name, "%s %s: the required %q is missing", c.surface, c.name, p.Name)
			}
		}
		body, _ := json.Marshal(c.args)
		_, err := vine.DecodeArgs(sig, body)
		if c.name == ingestreq.Name {
			_, err = ingestreq.Decode(sig, body) // and the rules between its parameters
		}
		assert.NoError(t, err, "%s %s(%s)", c.surface, c.name, body)
	}
	for _, name := range []string{"locate", "sniff", "coverage", "look", "answer", "view", "plant", "graft", "transplant", "history", "query", "tend", "ingest"} {
		assert.True(t, seen[name], "the skill teaches %s", name)
	}
}

// TestSkillsIntegrationsKeys: the keys the two consoles build from a
// list (a block's label, a section's title, an environment line) are in
// the catalogue, so no screen shows a raw key.
func TestSkillsIntegrationsKeys(t *testing.T) {
	cat := map[string]string{}
	for _, ns := range []string{"skills", "integrations"} {
		data, err := os.ReadFile(filepath.Join("web", "assets", "locales", ns, "en.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &cat))
	}
	read := func(name string) string {
		src, err := os.ReadFile(filepath.Join("web", "assets", "consoles", name))
		require.NoError(t, err)
		return string(src)
	}
	var keys []string
	for _, m := range regexp.MustCompile(`\{ key: '(\w+)', cap:`).FindAllStringSubmatch(read("skills-text.js"), -1) {
		keys = append(keys, "skills.block."+m[1])
	}
	integ := read("integrations.js")
	sections := regexp.MustCompile(`const SECTIONS = \[([^\]]+)\]`).FindStringSubmatch(integ)
	require.NotNil(t, sections)
	for _, m := range regexp.MustCompile(`'(\w+)'`).FindAllStringSubmatch(sections[1], -1) {
		keys = append(keys, "integrations."+m[1]+".title")
	}
	for _, m := range regexp.MustCompile(`\['MONKEYLLM[^']*', '[^']*', '(\w+)'\]`).FindAllStringSubmatch(integ, -1) {
		keys = append(keys, "integrations.env."+m[1])
	}
	require.Len(t, keys, 5+9+13)
	for _, k := range keys {
		assert.NotEmpty(t, cat[k], k)
	}
}
