// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTree writes n files of size bytes each, 50 per directory.
func benchTree(b *testing.B, n, size int) string {
	b.Helper()
	root := b.TempDir()
	body := strings.Repeat("x", size)
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("d%03d", i/50), fmt.Sprintf("n%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

func BenchmarkTreeHash1000x2KB(b *testing.B) {
	root := benchTree(b, 1000, 2048)
	for b.Loop() {
		if _, err := TreeHash(root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClassify40Lines(b *testing.B) {
	frame := []byte("PATH notes/seed.txt\n" + strings.Repeat("a line of a patch body, not long\n", 40) + "END_PATCH\n")
	for b.Loop() {
		if _, err := Classify(frame, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyRefused is the cost of a refusal on a 1000-file tree:
// two tree hashes around a classification.
func BenchmarkApplyRefused(b *testing.B) {
	root := benchTree(b, 1000, 2048)
	frame := []byte("PATH d000/n0000.md\ncut")
	for b.Loop() {
		res, err := Apply(context.Background(), root, frame, nil)
		if err != nil || res.Code != 2 {
			b.Fatal(err, res)
		}
	}
}
