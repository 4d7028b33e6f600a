// SPDX-License-Identifier: Apache-2.0

package gate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/gate"
)

// A model's patch is applied only when its frame is whole; a stream cut
// before END_PATCH writes nothing.
func ExampleApplyStream() {
	root, _ := os.MkdirTemp("", "spike_wt")
	defer os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "notes"), 0o755)
	os.WriteFile(filepath.Join(root, "notes", "seed.txt"), []byte("seed\n"), 0o644)

	for _, stream := range []string{
		"PATH notes/seed.txt\nseed\n", // cut short
		"PATH notes/seed.txt\nseed\nplus one line\nEND_PATCH\n",
	} {
		res, err := gate.ApplyStream(context.Background(), root, strings.NewReader(stream), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("exit %d %s, tree unchanged: %v\n", res.Code, res.Class, res.Before == res.After)
	}
	data, _ := os.ReadFile(filepath.Join(root, "notes", "seed.txt"))
	fmt.Printf("%q\n", data)
	// Output:
	// exit 2 sentinel_missing, tree unchanged: true
	// exit 0 replaced, tree unchanged: false
	// "seed\nplus one line\n"
}

func ExampleClassify() {
	_, err := gate.Classify([]byte("PATH ../outside.txt\nx\nEND_PATCH\n"), nil)
	var ref *gate.Refusal
	if errors.As(err, &ref) {
		fmt.Println(ref.Class, ref.Class.ExitCode())
	}
	// Output: forbidden_path 4
}
