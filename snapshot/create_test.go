// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// fixturePayloads are the payload files of the fixture forest.
func fixturePayloads(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for rel := range worktree(t, dir) {
		if strings.HasSuffix(rel, ".db") || strings.Contains(rel, "/_assets/") {
			out = append(out, rel)
		}
	}
	require.NotEmpty(t, out)
	return out
}

func TestCreateWritesForestFile(t *testing.T) {
	t.Parallel()
	dir := historyForest(t)
	before := testforest.TreeDigest(t, dir)
	out := t.TempDir()
	var steps []vine.Progress
	res := create(t, dir, CreateOptions{OutDir: out, Progress: func(p vine.Progress) { steps = append(steps, p) }})

	payloads := fixturePayloads(t, dir)
	assert.Equal(t, filepath.Join(out, "mare-alta-20261201T123000Z.forest"), res.File)
	assert.Equal(t, len(payloads), res.Payloads)
	assert.Zero(t, res.PayloadsOmitted)
	assert.Empty(t, res.Skipped)
	fi, err := os.Stat(res.File)
	require.NoError(t, err)
	assert.Equal(t, fi.Size(), res.Bytes)
	assert.Equal(t, []string{filepath.Base(res.File)}, entries(t, out), "no scratch file left beside it")
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "a snapshot changes nothing in the forest")

	zr, err := zip.OpenReader(res.File)
	require.NoError(t, err)
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		switch {
		case f.Name == bundleMember:
			assert.Equal(t, zip.Store, f.Method, "the pack is stored: it is compressed already")
		default:
			assert.Equal(t, zip.Deflate, f.Method, f.Name)
		}
		assert.True(t, f.Mode().IsRegular(), f.Name)
	}
	assert.Equal(t, []string{readmeMember, bundleMember}, names[:2])
	for _, p := range payloads {
		assert.Contains(t, names, payloadPrefix+p)
	}
	assert.Len(t, names, 2+len(payloads))

	members := readMembers(t, res.File)
	readme := string(members[0].data)
	assert.Contains(t, readme, "unzip FILE.forest -d mare-alta-snapshot")
	assert.Contains(t, readme, "git clone mare-alta-snapshot/forest.bundle mare-alta")
	assert.True(t, strings.HasPrefix(string(members[1].data), bundleV2))

	require.NotEmpty(t, steps)
	assert.Equal(t, vine.Progress{Op: "bundle", Done: 1, Total: 1}, steps[1])
	assert.Equal(t, vine.Progress{Op: "payloads", Done: len(payloads), Total: len(payloads)}, steps[len(steps)-1])

	again := create(t, dir, CreateOptions{OutDir: out})
	assert.Equal(t, filepath.Join(out, "mare-alta-20261201T123000Z-2.forest"), again.File, "a second snapshot in the same second keeps the first")
}

func TestCreateDefaultsBesideTheForest(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	res, err := Create(context.Background(), dir, CreateOptions{Now: stamp})
	require.NoError(t, err)
	assert.Equal(t, filepath.Dir(dir), filepath.Dir(res.File))
}

func TestCreateNoPayloadsIsReported(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	res := create(t, dir, CreateOptions{NoPayloads: true})
	n := len(fixturePayloads(t, dir))
	assert.Zero(t, res.Payloads)
	assert.Equal(t, n, res.PayloadsOmitted)
	for _, m := range readMembers(t, res.File) {
		assert.False(t, strings.HasPrefix(m.name, payloadPrefix), m.name)
	}

	restored, err := Restore(context.Background(), res.File, filepath.Join(t.TempDir(), "meta-only"), RestoreOptions{})
	require.NoError(t, err)
	assert.Zero(t, restored.RestoredPayloads)
	assert.Equal(t, n, restored.PayloadsMissing, "the damage of a metadata-only artifact is named")
}

func TestCreateSkipsNamesThatCannotTravel(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	travel := len(fixturePayloads(t, dir))
	for _, rel := range []string{"media/_assets/.thumbs.db", "notes/50%.db", ".trash/old.db", "_derived/payloads/x.db"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.db")
	require.NoError(t, os.WriteFile(outside, []byte("not the forest's"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "finance", "linked.db")))

	res := create(t, dir, CreateOptions{})
	assert.ElementsMatch(t, []string{".trash/old.db", "media/_assets/.thumbs.db", "notes/50%.db"}, res.Skipped,
		"_derived is never a payload; a symlink is never followed")
	assert.Equal(t, 3, res.PayloadsOmitted)
	assert.Equal(t, travel, res.Payloads)

	_, err := Restore(context.Background(), res.File, filepath.Join(t.TempDir(), "r"), RestoreOptions{})
	require.NoError(t, err, "what Create packs, Restore accepts")
}

func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	before := testforest.TreeDigest(t, dir)
	ctx := context.Background()

	plain := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(plain, "_index.md"), []byte("# no git\n"), 0o644))
	for _, tc := range []struct {
		name   string
		forest string
		opts   CreateOptions
		code   envelope.Code
		msg    string
	}{
		{"no git", plain, CreateOptions{OutDir: t.TempDir()}, envelope.Schema, "not a forest git repo"},
		{"missing forest", filepath.Join(plain, "nope"), CreateOptions{OutDir: t.TempDir()}, envelope.NotFound, "forest not found"},
		{"output inside", dir, CreateOptions{OutDir: filepath.Join(dir, "exports")}, envelope.Schema, "inside the forest"},
		{"output is the forest", dir, CreateOptions{OutDir: dir}, envelope.Schema, "inside the forest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Create(ctx, tc.forest, tc.opts)
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.code, e.Code)
			assert.Contains(t, e.Message, tc.msg)
			assert.NotContains(t, e.Message, plain, "no machine path in the message")
		})
	}
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
	assert.NoDirExists(t, filepath.Join(dir, "exports"), "nothing written inside the forest")

	held, err := forest.AcquireLock(dir) // a writer in the middle of a write
	require.NoError(t, err)
	out := t.TempDir()
	_, err = Create(ctx, dir, CreateOptions{OutDir: out, LockWait: -1})
	assert.Equal(t, envelope.Locked, envelope.CodeOf(err), "a snapshot is serialized with writes")
	assert.Empty(t, entries(t, out))
	require.NoError(t, held.Release())

	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	_, err = Create(ctx, dir, CreateOptions{OutDir: out})
	assert.NoError(t, err, "a Vine open beside it holds no lock between writes")
	require.NoError(t, v.Close())
}
