// SPDX-License-Identifier: Apache-2.0

package vine_test

// The real-text suite: every read primitive on a forest adopted from
// manual pages rendered as text (issue 26, spec 00-targets "2,000 real
// documents"). The corpus is built once per machine with
//
//	../shared/bench/build_man_corpus.sh DIR 2000
//
// and named by VINE_BENCH_MAN=DIR; without it the suite is skipped. The
// forest is adopted by the Gardener (no model) into VINE_BENCH_DIR when
// set, so it is built once and reused, else into the process's temporary
// directory.
//
//	VINE_BENCH_MAN=DIR VINE_BENCH_DIR=KEEP go test -run '^$' -bench Man -count 5 .

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
)

// manLayout names how the man forest is built; change it when the build
// changes, so a kept forest of the old build is not reused.
const manLayout = "man-v1"

// manForest is the adopted corpus with the facts the cases need.
type manForest struct {
	Dir    string
	Leaves []string // node ids of adopted pages, sorted
}

// manForestOf adopts (once per VINE_BENCH_DIR, or once per process) the
// corpus VINE_BENCH_MAN names, skipping the benchmark when it is unset.
func manForestOf(tb testing.TB) *manForest {
	tb.Helper()
	src := os.Getenv("VINE_BENCH_MAN")
	if src == "" {
		tb.Skip("set VINE_BENCH_MAN to a corpus built by build_man_corpus.sh")
	}
	scaleForests.Lock()
	defer scaleForests.Unlock()
	root := os.Getenv("VINE_BENCH_DIR")
	if root == "" {
		root = vine.SharedTempDirForTest(tb)
	}
	dir := filepath.Join(root, fmt.Sprintf("%s-%d", manLayout, countFiles(tb, src)))
	if data, err := os.ReadFile(dir + ".manifest.json"); err == nil {
		f := &manForest{}
		if json.Unmarshal(data, f) == nil && f.Dir == dir {
			return f
		}
	}
	tb.Logf("adopting %s into %s", src, dir)
	f, err := buildManForest(dir, src)
	if err != nil {
		tb.Fatalf("man forest: %v", err)
	}
	return f
}

func countFiles(tb testing.TB, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func buildManForest(dir, src string) (*manForest, error) {
	ctx := context.Background()
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if _, err := vine.Init(ctx, dir, "Manual pages", nil); err != nil {
		return nil, err
	}
	v, err := vine.Open(ctx, dir, nil)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	rep, err := gardener.New(v, nil).Adopt(ctx, src, "")
	if err != nil {
		return nil, err
	}
	if len(rep.Errors) > 0 {
		return nil, fmt.Errorf("adopt: %d errors, first %+v", len(rep.Errors), rep.Errors[0])
	}
	f := &manForest{Dir: dir}
	for _, p := range rep.Planted {
		f.Leaves = append(f.Leaves, p)
	}
	slices.Sort(f.Leaves)
	data, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return f, os.WriteFile(dir+".manifest.json", data, 0o644)
}

// manPage is the id of an adopted page whose name starts with stem, for
// cases that want a real, well-known page.
func (f *manForest) manPage(tb testing.TB, stem string) string {
	tb.Helper()
	for _, id := range f.Leaves {
		if strings.HasPrefix(id[strings.LastIndex(id, "/")+1:], stem) {
			return id
		}
	}
	return f.Leaves[len(f.Leaves)/2]
}

// manCases are the warm calls of the suite: questions in the words a
// user types, and reads of pages every corpus of man1 holds.
func manCases(tb testing.TB, v *vine.Vine, f *manForest) []scaleCase {
	tb.Helper()
	page, other := f.manPage(tb, "cp"), f.manPage(tb, "bash")
	err0 := func(_ any, err error) error { return err }
	after := ""
	return []scaleCase{
		{"locate/words", func(ctx context.Context) error {
			return err0(v.Locate(ctx, "copy files and directories", vine.LocateOptions{}))
		}},
		{"locate/question", func(ctx context.Context) error {
			return err0(v.Locate(ctx, "how do I compress an archive with a password?", vine.LocateOptions{}))
		}},
		{"locate/rare", func(ctx context.Context) error {
			return err0(v.Locate(ctx, "setuid", vine.LocateOptions{}))
		}},
		{"look/page", func(ctx context.Context) error { return err0(v.Look(ctx, page, vine.LookOptions{})) }},
		{"look/big-page", func(ctx context.Context) error { return err0(v.Look(ctx, other, vine.LookOptions{})) }},
		{"pick/page", func(ctx context.Context) error { return err0(v.Pick(ctx, page, vine.PickOptions{})) }},
		{"move/page-both", func(ctx context.Context) error {
			return err0(v.Move(ctx, page, vine.MoveOptions{Direction: vine.DirectionBoth}))
		}},
		{"scan/root-recursive", func(ctx context.Context) error {
			return err0(v.Scan(ctx, "_index", vine.ScanOptions{Recursive: true, After: &after}))
		}},
		{"harvest/question", func(ctx context.Context) error {
			return err0(v.Harvest(ctx, "which options preserve file timestamps when copying?", vine.HarvestOptions{}))
		}},
	}
}

func BenchmarkMan(b *testing.B) {
	f := manForestOf(b)
	v, err := vine.Open(context.Background(), f.Dir, &vine.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	for _, c := range manCases(b, v, f) {
		b.Run(c.name, func(b *testing.B) { measure(b, c.call) })
	}
	b.Run("move/call", func(b *testing.B) {
		args := []byte(`{"id":"` + f.manPage(b, "cp") + `"}`)
		measure(b, func(ctx context.Context) error { _, err := v.Call(ctx, "move", args); return err })
	})
	terms := []string{"setuid", "timestamps"}
	b.Run("sniff/warm", func(b *testing.B) { benchSniffTerms(b, v, terms, false) })
	b.Run("sniff/cold", func(b *testing.B) { benchSniffTerms(b, v, terms, true) })
}
