// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzClassify runs the whole gate against a small tree for every input:
// a refused frame (code ≠ 0) must leave the tree hash unchanged, nothing
// may ever land outside the root, the default writer never produces 6,
// and an accepted frame writes exactly its body at its path.
func FuzzClassify(f *testing.F) {
	for _, seed := range []string{
		"PATH notes/seed.txt\nseed\n",
		"notes/seed.txt\nseed\nEND_PATCH\n",
		"PATH package-lock.json\n{}\nEND_PATCH\n",
		longFixture(),
		"PATH notes/seed.txt\nseed\nplus one line\nEND_PATCH\n",
		"PATH out/victim.txt\npwned\nEND_PATCH\n",
		"PATH ../outside/victim.txt\npwned\nEND_PATCH\n",
		"PATH .git/config\n[core]\nEND_PATCH\n",
		"PATH notes/seed.txt/x\nEND_PATCH\n",
		"PATH a/b/c.txt\nEND_PATCH\n",
		"END_PATCH\n",
		"PATH \xff\nEND_PATCH\n",
		"PATH notes/seed.txt\nA\nEND_PATCH\nPATH notes/other.txt\nB\nEND_PATCH\n",
		"PATH notes/seed.txt\nA\nEND_PATCH\nB\nEND_PATCH\n",
		"PATH notes/seed.txt\nEND_PATCH \nEND_PATCH\r\nEND_PATCH\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		base := t.TempDir()
		root, outside := filepath.Join(base, "wt"), filepath.Join(base, "outside")
		mkfile(t, filepath.Join(root, "notes", "seed.txt"), "seed\n")
		mkfile(t, filepath.Join(root, ".git", "config"), "[core]\n")
		mkfile(t, filepath.Join(outside, "victim.txt"), "untouched\n")
		if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
			t.Fatal(err)
		}
		outBefore, err := TreeHash(outside)
		if err != nil {
			t.Fatal(err)
		}

		res, err := Apply(context.Background(), root, stream, nil)
		if err != nil {
			t.Fatalf("gate did not run: %v", err)
		}
		if outAfter, _ := TreeHash(outside); outAfter != outBefore {
			t.Fatalf("code %d wrote outside the root (%q)", res.Code, stream)
		}
		gitConfig, _ := os.ReadFile(filepath.Join(root, ".git", "config"))
		if string(gitConfig) != "[core]\n" {
			t.Fatalf("code %d changed .git/config", res.Code)
		}
		switch res.Code {
		case 0:
			frame, err := Classify(stream, nil)
			if err != nil {
				t.Fatalf("applied a frame Classify refuses: %v", err)
			}
			if sentinelLine(frame.Body) > 0 {
				t.Fatalf("applied a body holding an %s line: %q", Sentinel, frame.Body)
			}
			got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(res.Path)))
			if err != nil || string(got) != string(frame.Body) {
				t.Fatalf("accepted %q but the file holds %q (%v)", res.Path, got, err)
			}
		case 2, 3, 4, 5:
			if res.Before != res.After {
				t.Fatalf("refused with %d (%s) but the tree hash moved", res.Code, res.Reason)
			}
			if strings.TrimSpace(res.Reason) == "" {
				t.Fatalf("refusal %d without a reason", res.Code)
			}
		default:
			t.Fatalf("unexpected code %d (%s) for %q", res.Code, res.Reason, stream)
		}
	})
}

func mkfile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzApplyStream runs the frame reader on every input delivered three
// ways: in reads of a fuzzed size (the verdict must be Apply's on the
// whole stream), twice over (two frames are never one: never 0, nothing
// written), and as a drip past a short total limit (2, nothing written).
func FuzzApplyStream(f *testing.F) {
	for _, seed := range []string{
		"PATH notes/seed.txt\nseed\nEND_PATCH\n",
		"PATH notes/seed.txt\nA\nEND_PATCH\nPATH notes/b.txt\nB\nEND_PATCH\n",
		"PATH notes/seed.txt\nA\nEND_PATCH\nB\nEND_PATCH\n",
		"PATH notes/seed.txt\nseed\n",
		"PATH ../x\nEND_PATCH\n",
		longFixture(),
	} {
		f.Add([]byte(seed), uint8(1))
		f.Add([]byte(seed), uint8(13))
	}
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8) {
		n := max(int(chunk), 1)
		whole := applyFresh(t, stream, func() io.Reader { return bytes.NewReader(stream) }, nil)
		pieces := applyFresh(t, stream, func() io.Reader { return &chunkReader{data: stream, n: n} }, nil)
		if pieces.Code != whole.Code || pieces.Class != whole.Class {
			t.Fatalf("%d-byte reads gave %s, the whole stream %s", n, pieces.Class, whole.Class)
		}
		twice := append(slices.Clone(stream), stream...)
		if res := applyFresh(t, twice, func() io.Reader { return &chunkReader{data: twice, n: n} }, nil); res.Code == 0 {
			t.Fatalf("two copies of %q applied as one frame", stream)
		}
		if len(stream) >= 8 {
			drip := &dripReader{data: string(stream), every: 2 * time.Millisecond}
			opts := &Options{IdleTimeout: time.Second, TotalTimeout: 5 * time.Millisecond}
			if res := applyFresh(t, stream, func() io.Reader { return drip }, opts); res.Class != TimedOut {
				t.Fatalf("a drip of %d bytes past the total limit gave %s (%s)", len(stream), res.Class, res.Reason)
			}
		}
	})
}

// applyFresh applies one stream to a fresh seed tree and checks the
// invariant every outcome keeps: a refusal leaves the tree as it was.
func applyFresh(t *testing.T, stream []byte, open func() io.Reader, opts *Options) *Result {
	t.Helper()
	root := filepath.Join(t.TempDir(), "wt")
	mkfile(t, filepath.Join(root, "notes", "seed.txt"), "seed\n")
	res, err := ApplyStream(context.Background(), root, open(), opts)
	if err != nil {
		t.Fatalf("gate did not run: %v", err)
	}
	if res.Code != 0 && res.Before != res.After {
		t.Fatalf("refused with %d (%s) but the tree moved, stream %q", res.Code, res.Reason, stream)
	}
	return res
}
