// SPDX-License-Identifier: Apache-2.0

//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package forest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFileRegularOnly(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("tide ", 100000)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "node.md"), []byte(big), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.md"), nil, 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder.md"), 0o755))
	tests := []struct {
		name string
		want string
		err  error
	}{
		{"node.md", big, nil},
		{"empty.md", "", nil},
		{"pipe.md", "", ErrNotRegular},
		{"folder.md", "", ErrNotRegular},
		{"missing.md", "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		got, err := ReadFile(filepath.Join(dir, tt.name)) // a FIFO would block an os.ReadFile for ever
		if tt.err != nil {
			assert.True(t, errors.Is(err, tt.err), "%s: %v", tt.name, err)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, string(got), tt.name)
	}
}
