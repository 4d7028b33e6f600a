// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSyncCommand(t *testing.T) {
	forestDir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"a.md": "# A\n\nFirst.", "b.md": "# B\n\nSecond."})
	code, _, errOut := runCLI(t, "", "adopt", src, "--forest", forestDir)
	require.Equal(t, exitOK, code, errOut)

	code, out, _ := runCLI(t, "", "sync", "--forest", forestDir, "--json")
	assert.Equal(t, exitOK, code)
	rep := decodeReport(t, out)
	assert.Equal(t, []string{"a", "b"}, rep.Unchanged)
	assert.Equal(t, rep.CommitBefore, *rep.Commit, "nothing changed, nothing committed")

	require.NoError(t, os.WriteFile(filepath.Join(src, "a.md"), []byte("# A\n\nFirst, and revised."), 0o644))
	require.NoError(t, os.Remove(filepath.Join(src, "b.md")))
	code, out, _ = runCLI(t, "", "sync", "--forest", forestDir, "--path", "a.md", "--path", "b.md", "--json")
	assert.Equal(t, exitOK, code)
	rep = decodeReport(t, out)
	assert.Equal(t, "sync", rep.Mode)
	assert.Equal(t, []string{"a"}, rep.Updated)
	assert.Equal(t, []string{"b"}, rep.Stale)

	code, out, _ = runCLI(t, "", "sync", "--forest", forestDir, "--path", "../outside.md")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"code":"E_SCHEMA"`)
	code, _, _ = runCLI(t, "", "sync", "--forest", forestDir, "extra")
	assert.Equal(t, exitUsage, code)
}

func TestSyncWithoutRecordedSource(t *testing.T) {
	forestDir := newCLIForest(t)
	code, out, _ := runCLI(t, "", "sync", "--forest", forestDir)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, "no source_root recorded")
}
