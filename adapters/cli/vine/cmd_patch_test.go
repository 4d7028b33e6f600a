// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/testforest"
)

type patchJSON struct {
	Class  string `json:"classification"`
	Exit   int    `json:"exit"`
	Path   string `json:"path"`
	Lines  int    `json:"lines"`
	Before string `json:"before"`
	After  string `json:"after"`
	Reason string `json:"reason"`
	Commit string `json:"commit"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func runPatch(t *testing.T, stdin io.Reader, args ...string) (int, patchJSON, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"patch", "--json"}, args...), stdin, &out, &errb)
	var rep patchJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "stdout: %s stderr: %s", out.String(), errb.String())
	return code, rep, errb.String()
}

func spikeRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "spike_wt")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "notes"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes", "seed.txt"), []byte("seed\n"), 0o644))
	return root
}

// The seed's decision table through the command: exit codes and hashes.
func TestPatchDecisionTable(t *testing.T) {
	root := spikeRoot(t)
	long := "PATH notes/seed.txt\n" + strings.Repeat("line\n", 41) + "END_PATCH\n"
	rows := []struct {
		name, stream, class string
		code                int
	}{
		{"trunc", "PATH notes/seed.txt\nseed\n", "sentinel_missing", 2},
		{"bad_header", "notes/seed.txt\nseed\nEND_PATCH\n", "bad_header", 3},
		{"forbid", "PATH package-lock.json\n{}\nEND_PATCH\n", "forbidden_path", 4},
		{"long", long, "body_too_long", 5},
		{"ok", "PATH notes/seed.txt\nseed\nplus one line\nEND_PATCH\n", "replaced", 0},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			code, rep, _ := runPatch(t, strings.NewReader(row.stream), "--root", root)
			assert.Equal(t, row.code, code)
			assert.Equal(t, row.code, rep.Exit)
			assert.Equal(t, row.class, rep.Class)
			require.Len(t, rep.Before, 64)
			if row.code == 0 {
				assert.NotEqual(t, rep.Before, rep.After)
				return
			}
			assert.Equal(t, rep.Before, rep.After)
			assert.NotEmpty(t, rep.Reason)
		})
	}
	got, err := os.ReadFile(filepath.Join(root, "notes", "seed.txt"))
	require.NoError(t, err)
	assert.Equal(t, "seed\nplus one line\n", string(got))
}

func TestPatchPlainOutput(t *testing.T) {
	root := spikeRoot(t)
	code, out, errOut := runCLI(t, "PATH notes/seed.txt\nnew\nEND_PATCH\n", "patch", "--root", root)
	assert.Equal(t, 0, code)
	assert.Equal(t, "replaced notes/seed.txt\n", out)
	assert.Empty(t, errOut)

	code, out, errOut = runCLI(t, "PATH ../escape.txt\nx\nEND_PATCH\n", "patch", "--root", root)
	assert.Equal(t, 4, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "forbidden_path (exit 4)")
}

func TestPatchFlags(t *testing.T) {
	root := spikeRoot(t)
	frame := "PATH notes/seed.txt\na\nb\nc\nEND_PATCH\n"
	code, rep, _ := runPatch(t, strings.NewReader(frame), "--max-lines", "2", "--root", root)
	assert.Equal(t, 5, code)
	assert.Contains(t, rep.Reason, "limit of 2")

	code, rep, _ = runPatch(t, hangingStdin(t), "--root", root, "--timeout", "50ms")
	assert.Equal(t, 2, code)
	assert.Equal(t, "timeout", rep.Class)
	assert.Equal(t, rep.Before, rep.After)
}

func TestPatchUsage(t *testing.T) {
	root := spikeRoot(t)
	for _, args := range [][]string{
		{"patch"},
		{"patch", "--root", root, "--forest", root},
		{"patch", "--root", root, "extra"},
		{"patch", "--root", root, "--max-lines", "0"},
		{"patch", "--root", root, "--timeout", "0s"},
		{"patch", "--root", root, "--total-timeout", "0s"},
		{"patch", "--root", root, "--bogus"},
	} {
		code, _, errOut := runCLI(t, "PATH notes/seed.txt\nx\nEND_PATCH\n", args...)
		assert.Equal(t, exitUsage, code, args)
		assert.NotEmpty(t, errOut, args)
	}
	data, _ := os.ReadFile(filepath.Join(root, "notes", "seed.txt"))
	assert.Equal(t, "seed\n", string(data), "a usage mistake reads nothing and writes nothing")

	code, _, _ := runCLI(t, "PATH a\nEND_PATCH\n", "patch", "--root", filepath.Join(root, "absent"))
	assert.Equal(t, exitFailure, code)
	code, out, _ := runCLI(t, "PATH a.md\nEND_PATCH\n", "patch", "--forest", root)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, "E_NOT_FOUND")
}

// ---- forest mode ----

const lucia = "people/lucia-andrade"

func nodeFrame(t *testing.T, dir, id string, edit func(string) string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, id+forest.NodeExt))
	require.NoError(t, err)
	return "PATH " + id + forest.NodeExt + "\n" + edit(string(data)) + "END_PATCH\n"
}

func forestHead(t *testing.T, dir string) string {
	t.Helper()
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	sha, err := repo.Head()
	require.NoError(t, err)
	return sha
}

func TestPatchForestNodeGoesThroughTheEngine(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	head := forestHead(t, dir)
	frame := nodeFrame(t, dir, lucia, func(s string) string {
		s = strings.Replace(s, "summary: Lúcia Andrade, treasurer, based in Salvador.",
			"summary: Lúcia Andrade, treasurer of the cooperative since 2024, based in Salvador.", 1)
		s = strings.Replace(s, "- salvador\n", "- salvador\n- treasurer\n", 1)
		s = strings.Replace(s, "  target: organizations/mare-alta\n",
			"  target: organizations/mare-alta\n- rel: related-to\n  target: people/tomas-feliz\n", 1)
		return strings.Replace(s, "## Overview\n", "## Overview\n\nSigns the quarterly ledger.\n", 1)
	})
	code, rep, errOut := runPatch(t, strings.NewReader(frame), "--forest", dir)
	require.Equal(t, 0, code, "%+v %s", rep, errOut)
	assert.Equal(t, "replaced", rep.Class)
	assert.NotEqual(t, rep.Before, rep.After)
	require.Len(t, rep.Commit, 40)
	assert.Equal(t, rep.Commit, forestHead(t, dir))
	assert.NotEqual(t, head, rep.Commit)

	data, err := os.ReadFile(filepath.Join(dir, lucia+forest.NodeExt))
	require.NoError(t, err)
	n, err := forest.Parse(lucia, data)
	require.NoError(t, err)
	assert.Equal(t, "Lúcia Andrade, treasurer of the cooperative since 2024, based in Salvador.", n.Summary())
	assert.Equal(t, []string{"person", "salvador", "treasurer"}, n.Tags())
	assert.Contains(t, n.Body, "Signs the quarterly ledger.")
	assert.Contains(t, string(data), "target: people/tomas-feliz")

	index, err := os.ReadFile(filepath.Join(dir, "people", forest.IndexFile))
	require.NoError(t, err)
	assert.Contains(t, string(index), "treasurer of the cooperative since 2024", "the new summary reached the index")

	code, out, _ := runCLI(t, "", "validate", "--forest", dir)
	assert.Equal(t, exitOK, code, out)
}

func TestPatchForestIdenticalNodeWritesNothing(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	head, digest := forestHead(t, dir), testforest.TreeDigest(t, dir)
	code, rep, _ := runPatch(t, strings.NewReader(nodeFrame(t, dir, lucia, func(s string) string { return s })), "--forest", dir)
	assert.Equal(t, 0, code)
	assert.Empty(t, rep.Commit)
	assert.Equal(t, head, forestHead(t, dir))
	assert.Equal(t, digest, testforest.TreeDigest(t, dir))
}

// Every refusal on a forest leaves the worktree byte-identical and makes
// no commit; an engine refusal carries its envelope.
func TestPatchForestRefusals(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	tests := []struct {
		name, stream string
		code         int
		class, env   string
	}{
		{"summary breaks A.4", nodeFrame(t, dir, lucia, func(s string) string {
			return strings.Replace(s, "summary: Lúcia Andrade, treasurer, based in Salvador.",
				"summary: "+strings.Repeat("Lúcia keeps the books. ", 20), 1)
		}), 4, "write_refused", "E_FRONTMATTER"},
		{"type is not graft-mutable", nodeFrame(t, dir, lucia, func(s string) string {
			return strings.Replace(s, "type: entity", "type: note", 1)
		}), 4, "write_refused", "E_READONLY"},
		{"created never changes", nodeFrame(t, dir, lucia, func(s string) string {
			return strings.Replace(s, "created: '2025-09-10'\n", "", 1)
		}), 4, "write_refused", "E_READONLY"},
		{"broken frontmatter", "PATH " + lucia + ".md\n---\nid: [\n---\nbody\nEND_PATCH\n", 4, "write_refused", "E_FRONTMATTER"},
		{"undeclared rel", nodeFrame(t, dir, lucia, func(s string) string {
			return strings.Replace(s, "- rel: related-to\n", "- rel: befriends\n", 1)
		}), 4, "write_refused", "E_SCHEMA"},
		{"a patch never creates a node", "PATH people/new-person.md\n---\nid: people/new-person\n---\nx\nEND_PATCH\n",
			4, "write_refused", "E_NOT_FOUND"},
		{"not a node file", "PATH people/notes.txt\nx\nEND_PATCH\n", 4, "forbidden_path", ""},
		{"the dialect", "PATH _meta/schema.md\nx\nEND_PATCH\n", 4, "forbidden_path", ""},
		{"the catalog", "PATH _derived/catalog.md\nx\nEND_PATCH\n", 4, "forbidden_path", ""},
		{"cut stream", strings.TrimSuffix(nodeFrame(t, dir, lucia, func(s string) string { return s }), "END_PATCH\n"),
			2, "sentinel_missing", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, digest := forestHead(t, dir), testforest.TreeDigest(t, dir)
			code, rep, errOut := runPatch(t, strings.NewReader(tt.stream), "--forest", dir)
			assert.Equal(t, tt.code, code, "%+v %s", rep, errOut)
			assert.Equal(t, tt.class, rep.Class)
			assert.Equal(t, rep.Before, rep.After)
			if tt.env != "" {
				require.NotNil(t, rep.Error, rep.Reason)
				assert.Equal(t, tt.env, rep.Error.Code)
				assert.NotEmpty(t, rep.Error.Message)
			}
			assert.Empty(t, rep.Commit)
			assert.Equal(t, head, forestHead(t, dir), "no commit")
			assert.Equal(t, digest, testforest.TreeDigest(t, dir), "worktree byte-identical")
		})
	}
}

func TestPatchForestPlainOutputPrintsTheEnvelope(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	frame := nodeFrame(t, dir, lucia, func(s string) string { return strings.Replace(s, "type: entity", "type: note", 1) })
	code, out, errOut := runCLI(t, frame, "patch", "--forest", dir)
	assert.Equal(t, 4, code)
	assert.True(t, strings.HasPrefix(out, `{"error":{"code":"E_READONLY"`), out)
	assert.Contains(t, errOut, "write_refused (exit 4)")
}

func hangingStdin(t *testing.T) io.Reader {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	return r
}

// TestPatchOneFrameAndDrips: a second frame in stdin, in a plain root or a
// forest, refuses the whole stream with 3 and writes and commits nothing;
// a drip that never goes idle is cut at --total-timeout with 2.
func TestPatchOneFrameAndDrips(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	node := nodeFrame(t, dir, lucia, func(s string) string { return s + "\nAppended line.\n" })
	tests := []struct {
		name  string
		mode  string // "--root" or "--forest"
		stdin func(t *testing.T) io.Reader
		extra []string
		class string
		code  int
	}{
		{"two frames in a plain root", "--root", func(*testing.T) io.Reader {
			return strings.NewReader("PATH notes/seed.txt\nA\nEND_PATCH\nPATH notes/b.txt\nB\nEND_PATCH\n")
		}, nil, "bad_frame", 3},
		{"a second frame inside a node body", "--forest", func(*testing.T) io.Reader {
			return strings.NewReader(node + "PATH people/tomas-feliz.md\nx\nEND_PATCH\n")
		}, nil, "bad_frame", 3},
		{"the same node frame twice", "--forest", func(*testing.T) io.Reader {
			return strings.NewReader(node + node)
		}, nil, "bad_frame", 3},
		{"a drip past the total limit", "--root", func(t *testing.T) io.Reader {
			return dripStdin(t, "PATH notes/seed.txt\n"+strings.Repeat("x", 400)+"\nEND_PATCH\n", 5*time.Millisecond)
		}, []string{"--timeout", "1s", "--total-timeout", "80ms"}, "timeout", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := dir
			if tt.mode == "--root" {
				target = spikeRoot(t)
			}
			unchangedTree(t, target, tt.mode == "--forest", func() {
				start := time.Now()
				code, rep, _ := runPatch(t, tt.stdin(t), append([]string{tt.mode, target}, tt.extra...)...)
				assert.Equal(t, tt.code, code, rep.Reason)
				assert.Equal(t, tt.class, rep.Class)
				assert.Equal(t, rep.Before, rep.After)
				assert.Empty(t, rep.Commit)
				assert.Less(t, time.Since(start), 5*time.Second)
			})
		})
	}
}

// unchangedTree asserts fn leaves target byte-identical, and a
// forest's history without a new commit.
func unchangedTree(t *testing.T, target string, isForest bool, fn func()) {
	t.Helper()
	if isForest {
		testforest.Unchanged(t, target, fn)
		return
	}
	before := testforest.TreeDigest(t, target)
	fn()
	assert.Equal(t, before, testforest.TreeDigest(t, target), "the tree changed")
}

// dripStdin writes data one byte per tick into a pipe: never idle, and
// slow enough to outlast a short total limit.
func dripStdin(t *testing.T, data string, every time.Duration) io.Reader {
	r, w := io.Pipe()
	done := make(chan struct{})
	t.Cleanup(func() { close(done); r.Close() })
	go func() {
		defer w.Close()
		for i := range len(data) {
			select {
			case <-done:
				return
			case <-time.After(every):
			}
			if _, err := w.Write([]byte{data[i]}); err != nil {
				return
			}
		}
	}()
	return r
}
