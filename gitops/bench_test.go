// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigForest is a forest of n tracked .md files in 40 branches, committed
// at once, the shape the Gardener adopts into.
func bigForest(b testing.TB, n int) (string, *Repo) {
	dir, r := newForest(b)
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("branch-%02d/node-%04d.md", i%40, i)
		writeFile(b, dir, paths[i], node(paths[i], "")+strconv.Itoa(i)+"\n")
	}
	_, err := r.Commit(context.Background(), Message{Subject: PlantBatchSubject(n)}, paths, nil, at(1))
	require.NoError(b, err)
	return dir, r
}

// BenchmarkCommitOneFile is one adoption: one new .md file, one commit,
// in a repository of 2,000 tracked files.
func BenchmarkCommitOneFile(b *testing.B) {
	dir, r := bigForest(b, 2000)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		p := fmt.Sprintf("inbox/adopted-%06d.md", i)
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(node(p, "")), 0o644); err != nil {
			require.NoError(b, os.MkdirAll(filepath.Join(dir, "inbox"), 0o755))
			require.NoError(b, os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(node(p, "")), 0o644))
		}
		b.StartTimer()
		if _, err := r.Commit(ctx, Message{Subject: PlantSubject(p, "T", "ingest")}, []string{p}, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogFollow reads a node's history through 500 later commits.
func BenchmarkLogFollow(b *testing.B) {
	dir, r := bigForest(b, 2000)
	ctx := context.Background()
	for i := range 500 {
		p := fmt.Sprintf("branch-%02d/node-%04d.md", i%40, i)
		writeFile(b, dir, p, node(p, "tags:\n- t\n"))
		_, err := r.Commit(ctx, Message{Subject: GraftSubject(p, PatchSummary{Set: []string{"tags"}})}, []string{p}, nil, Options{})
		require.NoError(b, err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := r.Log(ctx, "branch-00/node-0000.md", 21, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeltaIndex deltas a branch index of 1,800 entries (about
// 150 KB) against itself with one entry fewer: the pack work every plant
// into a large folder does.
func BenchmarkDeltaIndex(b *testing.B) {
	base, target := []byte(indexText(1799)), []byte(indexText(1800))
	b.SetBytes(int64(len(target)))
	for b.Loop() {
		newDeltaBase(base).delta(target)
	}
}
