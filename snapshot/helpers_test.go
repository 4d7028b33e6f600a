// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

var stamp = func() time.Time { return time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC) }

// historyForest is the fixture forest with more than one commit: a plant
// and a tend on top of the fixture's own, so the ledger payload differs
// from the one the fixture wrote.
func historyForest(t *testing.T) string {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, &vine.Options{Now: stamp})
	require.NoError(t, err)
	defer v.Close()
	_, err = v.Plant(ctx, vine.NodeSpec{ID: "operations/snapshot-drill", Type: "note", Title: "Snapshot drill",
		Parent: "operations/_index", Summary: "How the cooperative rehearses restoring its forest from a snapshot.",
		Body: "# Snapshot drill\n\nRestore into a new folder, then query the ledger.\n"}, vine.PlantOptions{})
	require.NoError(t, err)
	_, err = v.Tend(ctx, "finance/ledger-2026", "INSERT INTO ledger VALUES ('2026-12-01', 'ice', 'Salvador', -7.5, 'snapshot drill')")
	require.NoError(t, err)
	return dir
}

// create snapshots dir into a fresh directory.
func create(t *testing.T, dir string, opts CreateOptions) *Created {
	t.Helper()
	if opts.OutDir == "" {
		opts.OutDir = t.TempDir()
	}
	if opts.Now == nil {
		opts.Now = stamp
	}
	res, err := Create(context.Background(), dir, opts)
	require.NoError(t, err)
	return res
}

// worktree maps every file outside .git and _derived to its sha256.
func worktree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (rel == ".git" || rel == "_derived") {
			return filepath.SkipDir
		}
		if d.IsDir() || rel == ".vine.lock" {
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		s := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(s[:])
		return nil
	})
	require.NoError(t, err)
	return out
}

// gitLog lists the commits reachable from HEAD, newest first, and the
// branch HEAD names.
func gitLog(t *testing.T, dir string) (commits []string, branch string) {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	head, err := repo.Head()
	require.NoError(t, err)
	iter, err := repo.Log(&git.LogOptions{From: head.Hash()})
	require.NoError(t, err)
	require.NoError(t, iter.ForEach(func(c *object.Commit) error {
		commits = append(commits, c.Hash.String())
		return nil
	}))
	return commits, head.Name().String()
}

// zipMember is one entry of a crafted archive.
type zipMember struct {
	name   string
	data   []byte
	mode   fs.FileMode // 0 means a regular 0644 file
	method uint16
	// declared, when set, replaces the uncompressed size in the headers
	// (a lying archive); the data is then written raw, already deflated.
	declared uint64
	raw      bool
}

// writeZip writes members into a new file under t.TempDir().
func writeZip(t *testing.T, members []zipMember) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: m.method}
		mode := m.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		if m.raw {
			h.CompressedSize64 = uint64(len(m.data))
			h.UncompressedSize64 = m.declared
			w, err := zw.CreateRaw(h)
			require.NoError(t, err)
			_, err = w.Write(m.data)
			require.NoError(t, err)
			continue
		}
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write(m.data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	p := filepath.Join(t.TempDir(), "crafted.forest")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// readMembers returns the members of a .forest file, in order, with
// their bytes.
func readMembers(t *testing.T, file string) []zipMember {
	t.Helper()
	zr, err := zip.OpenReader(file)
	require.NoError(t, err)
	defer zr.Close()
	var out []zipMember
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		out = append(out, zipMember{name: f.Name, data: data, method: f.Method})
	}
	return out
}

// entries lists a directory, nil when it does not exist.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}
