package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
