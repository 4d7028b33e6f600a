// SPDX-License-Identifier: Apache-2.0

package replace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFile(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, target string) // what is at target before
		wantErr bool
	}{
		{"over a file", func(t *testing.T, target string) { require.NoError(t, os.WriteFile(target, []byte("old"), 0o644)) }, false},
		{"to a new name", func(t *testing.T, target string) {}, false},
		{"over a symlink, replacing the link", func(t *testing.T, target string) {
			other := filepath.Join(filepath.Dir(target), "other")
			require.NoError(t, os.WriteFile(other, []byte("kept"), 0o644))
			require.NoError(t, os.Symlink(other, target))
		}, false},
		{"over a directory refuses as rename does", func(t *testing.T, target string) {
			require.NoError(t, os.Mkdir(target, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(target, "inside"), nil, 0o644))
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp, target := filepath.Join(dir, ".tmp"), filepath.Join(dir, "target")
			tt.setup(t, target)
			require.NoError(t, os.WriteFile(tmp, []byte("new"), 0o644))
			err := File(tmp, target)
			if tt.wantErr {
				assert.Error(t, err)
				fi, serr := os.Lstat(target)
				require.NoError(t, serr)
				assert.True(t, fi.IsDir(), "the directory stays")
				return
			}
			require.NoError(t, err)
			fi, err := os.Lstat(target)
			require.NoError(t, err)
			assert.True(t, fi.Mode().IsRegular())
			got, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Equal(t, "new", string(got))
			assert.NoFileExists(t, tmp, "the temporary name is gone")
			if kept := filepath.Join(dir, "other"); fileExists(kept) {
				data, _ := os.ReadFile(kept)
				assert.Equal(t, "kept", string(data), "a symlink's target is not touched")
			}
		})
	}
}

func TestFileMissingTemporary(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	assert.ErrorIs(t, File(filepath.Join(dir, "absent"), target), os.ErrNotExist)
	got, _ := os.ReadFile(target)
	assert.Equal(t, "old", string(got))
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
