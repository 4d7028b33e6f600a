// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestInitValidateReindex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kb")
	code, out, _ := runCLI(t, "", "init", "--forest", dir, "--title", "Team knowledge")
	require.Equal(t, exitOK, code, out)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, "Team knowledge", res["title"])

	code, out, _ = runCLI(t, "", "validate", "--forest", dir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "2 nodes, 0 errors, 0 warnings")

	code, out, _ = runCLI(t, "", "reindex", "--forest", dir)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "indexed 2 nodes, 1 branches, 0 edges\n", out)

	code, out, _ = runCLI(t, "", "init", "--forest", dir, "--title", "Again")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `{"error":{"code":"E_SCHEMA"`)
}

func TestValidateExitsNonZeroOnErrors(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.md"), []byte("---\nid: [\n---\n"), 0o644))
	code, out, _ := runCLI(t, "", "validate", "--forest", dir, "--json")
	assert.Equal(t, exitFailure, code)
	var rep struct {
		Errors int `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 1, rep.Errors)
}

func TestCallPrintsResultOrEnvelope(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	code, out, _ := runCLI(t, "", "call", "plant", "--forest", dir,
		`{"dry_run": true, "node": {"id": "operations/x", "type": "note", "title": "T", "summary": "A short valid summary.", "parent": "operations/_index"}}`)
	assert.Equal(t, exitOK, code, out)
	assert.JSONEq(t, `{"id":"operations/x","valid":true,"dry_run":true}`, out)

	code, out, _ = runCLI(t, `{"node": {"id": "operations/x"}, "bogus": 1}`, "call", "plant", "--forest", dir, "-")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"code":"E_SCHEMA"`)
	assert.Contains(t, out, "bogus")

	for _, c := range []struct{ args, want string }{
		{`{"dry_run": true, "node":`, "plant: invalid JSON at offset 25: unexpected end of input"},
		{`{"dry_run": tru}`, "plant: invalid JSON at offset 15: invalid character '}' in literal true (expecting 'e')"},
		{`[{"dry_run": true}]`, "plant: arguments must be a JSON object, got list of object"},
	} {
		code, out, _ = runCLI(t, "", "call", "plant", "--forest", dir, c.args)
		assert.Equal(t, exitFailure, code)
		assert.Contains(t, out, `"code":"E_SCHEMA"`)
		assert.Contains(t, out, c.want)
	}

	code, out, _ = runCLI(t, "", "call", "teleport", "--forest", dir, `{}`)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"code":"E_NOT_FOUND"`)
	assert.Contains(t, out, "plant", "the hint lists served primitives")

	code, out, _ = runCLI(t, "", "call", "plant", "--forest", filepath.Join(dir, "nope"), `{}`)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"code":"E_NOT_FOUND"`)
	assert.NotContains(t, out, dir, "no machine path on the wire")
}

// TestInternalDetailOnStderr: an E_INTERNAL envelope says "the detail is
// in the log"; a command's log is its stderr, so the detail is there,
// once, and stdout stays the envelope alone. A refusal logs nothing.
func TestInternalDetailOnStderr(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		args   func(dir string) []string
		code   string
		detail string // "" means stderr stays empty
	}{
		{"call: a damaged repository", deleteObjects,
			func(dir string) []string {
				return []string{"call", "history", "--forest", dir, `{"id": "operations/_index"}`}
			},
			"E_INTERNAL", "object not found"},
		{"open: an error that is no refusal", derivedIsAFile,
			func(dir string) []string { return []string{"validate", "--forest", dir} },
			"E_INTERNAL", "create derived dir"},
		{"a refusal logs nothing", func(*testing.T, string) {},
			func(dir string) []string { return []string{"call", "look", "--forest", dir, `{"id": "no/such"}`} },
			"E_NOT_FOUND", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := testforest.Fixture(t)
			tt.damage(t, dir)
			code, out, errOut := runCLI(t, "", tt.args(dir)...)
			assert.Equal(t, exitFailure, code)
			assert.Contains(t, out, `"code":"`+tt.code+`"`)
			assert.Equal(t, 1, strings.Count(out, "\n"), "stdout is the envelope alone")
			if tt.detail == "" {
				assert.Empty(t, errOut)
				return
			}
			assert.Contains(t, out, "the detail is in the log")
			assert.Contains(t, errOut, tt.detail)
			assert.Equal(t, 1, strings.Count(errOut, tt.detail), "the detail is logged once: %s", errOut)
		})
	}
}

// deleteObjects empties the forest's object store, a damage only the
// host can repair.
func deleteObjects(t *testing.T, dir string) {
	t.Helper()
	objects := filepath.Join(dir, ".git", "objects")
	require.NoError(t, filepath.WalkDir(objects, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Remove(p)
		}
		return err
	}))
}

// derivedIsAFile puts a file where the derived layer's folder goes.
func derivedIsAFile(t *testing.T, dir string) {
	t.Helper()
	derived := filepath.Join(dir, "_derived")
	require.NoError(t, os.RemoveAll(derived))
	require.NoError(t, os.WriteFile(derived, []byte("x"), 0o644))
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{}, {"frobnicate"}, {"validate"}, {"call"}, {"call", "--forest", "x"}, {"init", "--bogus"},
	} {
		code, _, _ := runCLI(t, "", args...)
		assert.Equal(t, exitUsage, code, args)
	}
	code, out, _ := runCLI(t, "", "primitives", "--json")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, `"name":"plant"`)
	code, out, _ = runCLI(t, "", "primitives")
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^NAME +ACCESS +BUDGET +PARAMS +SUMMARY$`, out, "a table for a person")
	assert.Regexp(t, `(?m)^plant +write +- +\d+ +Write new nodes$`, out)
}

// TestFlagsAnywhere: flags go before or after positional arguments, take
// "--name=value", and everything after a lone "--" is positional.
func TestFlagsAnywhere(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	for _, args := range [][]string{
		{"call", "look", "--forest", dir, `{"id": "operations/_index"}`},
		{"call", "--forest", dir, "look", `{"id": "operations/_index"}`},
		{"call", "look", `{"id": "operations/_index"}`, "--forest=" + dir},
		{"call", "look", "-forest", dir, `{"id": "operations/_index"}`}, // the single dash Go's flag package took
		{"call", "look", "--forest", dir, "--", `{"id": "operations/_index"}`},
	} {
		code, out, errOut := runCLI(t, "", args...)
		assert.Equal(t, exitOK, code, "%v: %s%s", args, out, errOut)
		assert.Contains(t, out, `"operations/_index"`, args)
	}
}

func TestVersionAndHelpForACommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCLI(t, "", args...)
		assert.Equal(t, exitOK, code)
		assert.Regexp(t, `^vine \S+ \(go\S+ \w+/\w+\)\n$`, out, args)
	}
	code, out, _ := runCLI(t, "", "help", "serve")
	assert.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(out, "usage: vine serve "), out)
	code, _, errOut := runCLI(t, "", "help", "nonsense")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown command "nonsense"`)
}
