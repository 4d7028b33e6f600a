// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

func refusal(t *testing.T, err error, code envelope.Code) *envelope.Error {
	t.Helper()
	var e *envelope.Error
	require.ErrorAs(t, err, &e, "want an envelope, got %v", err)
	require.Equal(t, code, e.Code, e.Message)
	return e
}

// nodeCount opens a forest read-only and counts its catalog.
func nodeCount(t *testing.T, dir string) int {
	t.Helper()
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true, SkipAutoIndex: true})
	require.NoError(t, err)
	defer v.Close()
	res, err := v.Reindex(ctx)
	require.NoError(t, err)
	return res.Nodes
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	src := historyForest(t)
	created := create(t, src, CreateOptions{})
	dest := filepath.Join(t.TempDir(), "restored", "mare-alta")
	var ops []string
	res, err := Restore(context.Background(), created.File, dest, RestoreOptions{Progress: func(p vine.Progress) {
		if len(ops) == 0 || ops[len(ops)-1] != p.Op {
			ops = append(ops, p.Op)
		}
	}})
	require.NoError(t, err)

	assert.Equal(t, dest, res.Forest)
	assert.Equal(t, nodeCount(t, src), res.Nodes)
	assert.Equal(t, created.Payloads, res.RestoredPayloads)
	assert.Zero(t, res.PayloadsMissing)
	assert.Equal(t, []string{"payloads", "reindex"}, ops)

	assert.Equal(t, worktree(t, src), worktree(t, dest), "same nodes, same bytes, same payloads")
	srcLog, srcBranch := gitLog(t, src)
	destLog, destBranch := gitLog(t, dest)
	assert.GreaterOrEqual(t, len(srcLog), 3)
	assert.Equal(t, srcLog, destLog, "the whole history travels")
	assert.Equal(t, srcBranch, destBranch)
	assert.Equal(t, []string{"mare-alta"}, entries(t, filepath.Dir(dest)), "no scratch directory left beside it")

	ctx := context.Background()
	v, err := vine.Open(ctx, dest, nil)
	require.NoError(t, err, "the restored forest opens writable: its own repository, its own lock")
	defer v.Close()
	rows, err := v.Query(ctx, "finance/ledger-2026", "SELECT count(*) FROM ledger WHERE memo = 'snapshot drill'")
	require.NoError(t, err)
	assert.Equal(t, int64(1), rows.Rows[0][0], "the dataset answers as it did at the cut")
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "operations/after-restore", Type: "note", Title: "After restore",
		Parent: "operations/_index", Summary: "The first write to a restored forest lands as a normal commit."}, vine.PlantOptions{})
	require.NoError(t, err)
	afterLog, _ := gitLog(t, dest)
	assert.Equal(t, srcLog, afterLog[1:], "new commits grow the restored history")
}

func TestRestoreShapeComesFromContent(t *testing.T) {
	t.Parallel()
	src, _ := testforest.Fixture(t)
	created := create(t, src, CreateOptions{})
	ctx := context.Background()

	misnamed := filepath.Join(t.TempDir(), "backup.bundle")
	data, err := os.ReadFile(created.File)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(misnamed, data, 0o644))
	res, err := Restore(ctx, misnamed, filepath.Join(t.TempDir(), "a"), RestoreOptions{})
	require.NoError(t, err, "a .forest under another name is still a .forest")
	assert.Equal(t, created.Payloads, res.RestoredPayloads)

	var bundle []byte
	for _, m := range readMembers(t, created.File) {
		if m.name == bundleMember {
			bundle = m.data
		}
	}
	bare := filepath.Join(t.TempDir(), "backup.forest")
	require.NoError(t, os.WriteFile(bare, bundle, 0o644))
	dest := filepath.Join(t.TempDir(), "b")
	res, err = Restore(ctx, bare, dest, RestoreOptions{})
	require.NoError(t, err, "a legacy bare bundle restores, metadata only")
	assert.Zero(t, res.RestoredPayloads)
	assert.Equal(t, created.Payloads, res.PayloadsMissing)
	srcLog, _ := gitLog(t, src)
	destLog, _ := gitLog(t, dest)
	assert.Equal(t, srcLog, destLog)

	junk := filepath.Join(t.TempDir(), "junk.forest")
	require.NoError(t, os.WriteFile(junk, bytes.Repeat([]byte("PK not really"), 100), 0o644))
	e := refusal(t, func() error {
		_, err := Restore(ctx, junk, filepath.Join(t.TempDir(), "c"), RestoreOptions{})
		return err
	}(), envelope.Schema)
	assert.Contains(t, e.Message, "neither a git bundle nor a zip")
}

func TestRestoreTargetRules(t *testing.T) {
	t.Parallel()
	src, _ := testforest.Fixture(t)
	created := create(t, src, CreateOptions{})
	ctx := context.Background()

	_, err := Restore(ctx, filepath.Join(t.TempDir(), "none.forest"), filepath.Join(t.TempDir(), "x"), RestoreOptions{})
	e := refusal(t, err, envelope.NotFound)
	assert.Contains(t, e.Message, "none.forest")

	busy := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(busy, "keep.txt"), []byte("mine"), 0o644))
	_, err = Restore(ctx, created.File, busy, RestoreOptions{})
	e = refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "restore target is not empty")
	assert.Equal(t, []string{"keep.txt"}, entries(t, busy), "restore never writes into an existing tree")

	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = Restore(ctx, created.File, file, RestoreOptions{})
	refusal(t, err, envelope.Schema)

	empty := t.TempDir()
	res, err := Restore(ctx, created.File, empty, RestoreOptions{})
	require.NoError(t, err, "an empty directory is a fresh target")
	assert.Equal(t, empty, res.Forest)
	assert.FileExists(t, filepath.Join(empty, "_index.md"))

	_, err = Restore(ctx, created.File, empty, RestoreOptions{})
	refusal(t, err, envelope.Schema)
}

func TestRestoreLegacySidecar(t *testing.T) {
	t.Parallel()
	src, _ := testforest.Fixture(t)
	created := create(t, src, CreateOptions{})
	ctx := context.Background()
	var bundle, ledger []byte
	for _, m := range readMembers(t, created.File) {
		switch m.name {
		case bundleMember:
			bundle = m.data
		case payloadPrefix + "finance/ledger-2026.db":
			ledger = m.data
		}
	}
	require.NotNil(t, ledger)
	bare := filepath.Join(t.TempDir(), "mare-alta-2026-12-01.bundle")
	require.NoError(t, os.WriteFile(bare, bundle, 0o644))

	sidecar := writeZip(t, []zipMember{{name: "finance/", mode: os.ModeDir | 0o755}, {name: "finance/ledger-2026.db", data: ledger, method: 8}})
	dest := filepath.Join(t.TempDir(), "legacy")
	res, err := Restore(ctx, bare, dest, RestoreOptions{Sidecar: sidecar})
	require.NoError(t, err)
	assert.Equal(t, 1, res.RestoredPayloads)
	assert.Equal(t, created.Payloads-1, res.PayloadsMissing, "the sidecar carried the dataset, not the media")
	assert.FileExists(t, filepath.Join(dest, "finance", "ledger-2026.db"))

	for _, tc := range []struct{ name, member string }{
		{"media in a sidecar", "media/_assets/a.png"},
		{"dot component", "finance/.git/x.db"},
		{"escape", "../x.db"},
		{"derived", "_derived/trails.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := writeZip(t, []zipMember{{name: tc.member, data: []byte("x")}})
			dest := filepath.Join(t.TempDir(), "legacy")
			_, err := Restore(ctx, bare, dest, RestoreOptions{Sidecar: bad})
			refusal(t, err, envelope.Schema)
			assert.NoDirExists(t, dest)
		})
	}

	_, err = Restore(ctx, created.File, filepath.Join(t.TempDir(), "x"), RestoreOptions{Sidecar: sidecar})
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "sidecar goes with a bare bundle")
}

// TestGitCloneOpensTheSnapshot follows README.txt with stock tools: unzip
// and git clone, no vine. The bundle must be one git itself accepts.
func TestGitCloneOpensTheSnapshot(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git binary")
	}
	src := historyForest(t)
	created := create(t, src, CreateOptions{})
	work := t.TempDir()

	bundle := filepath.Join(work, "mare-alta-snapshot", bundleMember)
	if unzip, err := exec.LookPath("unzip"); err == nil {
		out, err := exec.Command(unzip, "-q", created.File, "-d", filepath.Join(work, "mare-alta-snapshot")).CombinedOutput()
		require.NoError(t, err, string(out))
	} else {
		require.NoError(t, os.MkdirAll(filepath.Dir(bundle), 0o755))
		for _, m := range readMembers(t, created.File) {
			if m.name == bundleMember {
				require.NoError(t, os.WriteFile(bundle, m.data, 0o644))
			}
		}
	}
	out, err := exec.Command(gitBin, "bundle", "verify", bundle).CombinedOutput()
	require.NoError(t, err, string(out))

	clone := filepath.Join(work, "mare-alta")
	cmd := exec.Command(gitBin, "clone", "-q", bundle, clone)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+work)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, string(out))

	logOut, err := exec.Command(gitBin, "-C", clone, "log", "--format=%H").Output()
	require.NoError(t, err)
	srcLog, _ := gitLog(t, src)
	assert.Equal(t, srcLog, strings.Fields(string(logOut)))
	fsckOut, err := exec.Command(gitBin, "-C", clone, "fsck", "--full").CombinedOutput()
	require.NoError(t, err, string(fsckOut))

	want := worktree(t, src)
	got := worktree(t, clone)
	for rel, sum := range want {
		if strings.HasSuffix(rel, ".md") {
			assert.Equal(t, sum, got[rel], rel)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "mare-alta-snapshot", "payloads")); err == nil {
		// README's last step: the payloads go back to their paths.
		cp := exec.Command("cp", "-R", filepath.Join(work, "mare-alta-snapshot", "payloads")+"/.", clone+"/")
		out, err := cp.CombinedOutput()
		require.NoError(t, err, string(out))
		got = worktree(t, clone)
		for rel, sum := range want {
			assert.Equal(t, sum, got[rel], rel)
		}
	}
}

// TestRoundTripReferenceForest: a forest written by the original
// implementation (its own branch name, its own history) survives the trip.
func TestRoundTripReferenceForest(t *testing.T) {
	t.Parallel()
	src := testforest.Reference(t)
	created := create(t, src, CreateOptions{})
	dest := filepath.Join(t.TempDir(), "reference")
	res, err := Restore(context.Background(), created.File, dest, RestoreOptions{})
	require.NoError(t, err)
	assert.Equal(t, nodeCount(t, src), res.Nodes)
	assert.Equal(t, created.Payloads, res.RestoredPayloads)
	assert.Equal(t, worktree(t, src), worktree(t, dest))
	srcLog, srcBranch := gitLog(t, src)
	destLog, destBranch := gitLog(t, dest)
	assert.Equal(t, srcLog, destLog)
	assert.Equal(t, srcBranch, destBranch)
}
