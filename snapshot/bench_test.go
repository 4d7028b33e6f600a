// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// benchForest is the fixture with 50 more commits of history.
func benchForest(b *testing.B) string {
	b.Helper()
	dir, _ := testforest.Fixture(b)
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, &vine.Options{Now: stamp})
	require.NoError(b, err)
	defer v.Close()
	for i := range 50 {
		_, err := v.Plant(ctx, vine.NodeSpec{ID: fmt.Sprintf("operations/log-%02d", i), Type: "note", Title: fmt.Sprintf("Log %d", i),
			Parent: "operations/_index", Summary: "A day of harbour operations, kept for the benchmark's history.",
			Body: "# Log\n\nTides, boats and buoys.\n"}, vine.PlantOptions{})
		require.NoError(b, err)
	}
	return dir
}

func BenchmarkCreate(b *testing.B) {
	dir := benchForest(b)
	out := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Create(context.Background(), dir, CreateOptions{OutDir: out}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRestore(b *testing.B) {
	dir := benchForest(b)
	created, err := Create(context.Background(), dir, CreateOptions{OutDir: b.TempDir()})
	require.NoError(b, err)
	work := b.TempDir()
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		if _, err := Restore(context.Background(), created.File, filepath.Join(work, fmt.Sprint(i)), RestoreOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
