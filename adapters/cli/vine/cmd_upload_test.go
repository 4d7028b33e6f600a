// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUploadCommand(t *testing.T) {
	forestDir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"minutes.md": "# Minutes\n\nWe met.", "bad.csv": "header only\n"})
	code, out, _ := runCLI(t, "", "upload", filepath.Join(src, "minutes.md"), filepath.Join(src, "bad.csv"),
		"--forest", forestDir, "--dest", "inbox", "--json")
	assert.Equal(t, exitFailure, code, "a failed file makes the batch fail")
	rep := decodeReport(t, out)
	assert.Equal(t, "upload", rep.Mode)
	assert.Equal(t, []string{"inbox/minutes"}, rep.Planted)
	assert.Equal(t, []string{"minutes.md"}, rep.Consumed)
	require.Len(t, rep.Errors, 1)
	assert.FileExists(t, filepath.Join(src, "minutes.md"), "the uploaded originals are not the staged copies")
	assert.FileExists(t, filepath.Join(forestDir, "_derived", "uploads", "bad.csv"), "the failed staged copy stays")

	code, _, _ = runCLI(t, "", "upload", "--forest", forestDir)
	assert.Equal(t, exitUsage, code)
	code, _, _ = runCLI(t, "", "upload", filepath.Join(src, "missing.md"), "--forest", forestDir)
	assert.Equal(t, exitUsage, code)
	_, err := os.Stat(filepath.Join(forestDir, "_meta", "gardener.yaml"))
	assert.True(t, os.IsNotExist(err), "an upload records no config")
}
