// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngineOnlyHostNamesThePanel is F.190: a host with no console
// surface validates a declared panel (the kit), installs the extension
// without error, and names the panel unserved.
func TestEngineOnlyHostNamesThePanel(t *testing.T) {
	tree := orgExtensionTree(t)
	m, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tree, "manifest.json"),
		[]byte(strings.Replace(string(m), `"contributes": {`, `"contributes": {"panel": "ui/panel.json",`, 1)), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "ui"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "ui", "panel.json"),
		[]byte(`{"title": "Org", "sections": [{"title": "Headings", "fields": ["keep_todo"]}]}`), 0o644))
	home := filepath.Join(t.TempDir(), "ext-home")
	code, out, errOut := runCLI(t, "", "ext", "install", tree, "--home", home, "--acknowledge")
	require.Equal(t, exitOK, code, out+errOut)
	code, out, errOut = runCLI(t, "", "ext", "show", "org", "--home", home)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, `"unserved"`)
	assert.Contains(t, out, `declared (no host surface)`)
}
