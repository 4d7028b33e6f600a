package forest

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureArchive is the forest the reference implementation wrote, kept
// beside the module; it is searched for upwards from the package directory.
const fixtureArchive = "shared/interop/forest-fixture.tar.gz"

// unpackFixtureForest unpacks the interop fixture into a temporary
// directory and returns the forest root. The test is skipped when the
// archive is not there.
func unpackFixtureForest(t testing.TB) string {
	t.Helper()
	archive := findUpwards(t, fixtureArchive)
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	dest := t.TempDir()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(h.Name) {
			continue
		}
		target := filepath.Join(dest, filepath.FromSlash(h.Name))
		require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(target, data, 0o644))
	}
	root := filepath.Join(dest, "forest-fixture")
	require.True(t, IsForest(root), "the fixture unpacks to forest-fixture/ with an _index.md")
	return root
}

// findUpwards returns the first rel found in the working directory or one
// of its parents, skipping the test when there is none.
func findUpwards(t testing.TB, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		candidate := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := os.Stat(candidate); err == nil {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("%s not found above the package directory", rel)
		}
		dir = parent
	}
}

func TestIsForest(t *testing.T) {
	dir := t.TempDir()
	assert.False(t, IsForest(dir))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "_index.md"), 0o755))
	assert.False(t, IsForest(dir), "a directory named _index.md is not a master index")
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "_index.md"), nil, 0o644))
	assert.True(t, IsForest(other))
	assert.Len(t, GitignoreContent, 44)
	assert.Equal(t, "_derived/\n.vine.lock\n*.db\n*.sqlite\n_assets/\n", GitignoreContent)
}
