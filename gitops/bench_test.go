// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// BenchmarkCommitIntoFolder is one plant into a folder that holds n
// documents: a new page and the folder's index grown by one entry line
// (of a manual page's summary length), both in one commit. What grows
// from n=200 to n=2000 is what the Gardener's adopt rate loses as a
// folder fills: the index blob, the folder's tree and the git index.
func BenchmarkCommitIntoFolder(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			dir, r := newForest(b)
			ctx := context.Background()
			paths := []string{"g/_index.md"}
			for i := range n {
				paths = append(paths, fmt.Sprintf("g/page-%05d.md", i))
				writeFile(b, dir, paths[i+1], node(paths[i+1], ""))
			}
			writeFile(b, dir, paths[0], folderIndex(n))
			_, err := r.Commit(ctx, Message{Subject: PlantBatchSubject(n)}, paths, nil, at(1))
			require.NoError(b, err)
			b.ReportAllocs()
			for i := n; b.Loop(); i++ {
				b.StopTimer()
				page := fmt.Sprintf("g/page-%05d.md", i)
				index := []byte(folderIndex(i + 1))
				writeFile(b, dir, page, node(page, ""))
				require.NoError(b, os.WriteFile(filepath.Join(dir, "g", "_index.md"), index, 0o644))
				b.StartTimer()
				_, err := r.Commit(ctx, Message{Subject: PlantSubject(page, "T", "ingest")}, []string{page, paths[0]}, nil,
					Options{Written: map[string][]byte{paths[0]: index}})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// folderIndex is a folder's index listing n pages, each entry about as
// long as a manual page's summary.
func folderIndex(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: g/_index\ntype: branch\ncoverage: %d bananas, 0 sub-branches\n---\n\n# G\n\n## Sub-branches\n\n## Direct bananas\n", n)
	for i := range n {
		fmt.Fprintf(&b, "- [[g/page-%05d]] — Manual page %d: what the command does, the options it takes, "+
			"the files it reads, the environment it honours and the exit status it returns, in short.\n", i, i)
	}
	b.WriteString("\n## Cross trails\n")
	return b.String()
}
