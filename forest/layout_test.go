// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/monkeyllm/vine/internal/interop"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unpackFixtureForest unpacks the reference forest, or skips.
func unpackFixtureForest(t testing.TB) string { return interop.Forest(t) }

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
