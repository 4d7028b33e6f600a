// SPDX-License-Identifier: Apache-2.0

package install_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/install"
)

// TestReadPanel: the panel a console is served is the one the kit
// passed: strict, every field a declared setting; none declared is none.
func TestReadPanel(t *testing.T) {
	m := &ext.Manifest{ID: "peek", Contributes: ext.Contributes{Panel: "ui/panel.json"},
		Config: map[string]ext.ConfigField{"greeting": {Type: "string"}, "api_key": {Type: "string", Secret: true}}}
	cases := []struct {
		name, file, want string // want: "" means it reads
	}{
		{"valid", `{"title": "Peek", "blurb": "b", "sections": [{"title": "S", "fields": ["greeting", "api_key"]}], "notes": "n"}`, ""},
		{"no sections", `{"title": "Peek"}`, ""},
		{"undeclared field", `{"title": "Peek", "sections": [{"title": "S", "fields": ["colour"]}]}`, `"colour"`},
		{"unknown key", `{"title": "Peek", "script": "x.js"}`, "not a panel"},
		{"trailing data", `{"title": "Peek"} {}`, "data after"},
		{"oversized", `{"title": "` + strings.Repeat("x", install.PanelLimit) + `"}`, "limit"},
		{"absent", "", "not in the tree"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := t.TempDir()
			if c.file != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(tree, "ui"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(tree, "ui", "panel.json"), []byte(c.file), 0o644))
			}
			p, err := install.ReadPanel(tree, m)
			if c.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "Peek", p.Title)
			assert.NotNil(t, p.Sections, "sections is a list, never null")
		})
	}
	none, err := install.ReadPanel(t.TempDir(), &ext.Manifest{ID: "peek"})
	assert.NoError(t, err)
	assert.Nil(t, none, "no panel declared is no panel")
}
