// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"io/fs"
	"os"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vanishing fails its first listings as go-billy's osfs does when an
// entry is renamed away between reading the names and stating them.
type vanishing struct {
	billy.Filesystem
	fails int
}

func (v *vanishing) ReadDir(path string) ([]os.FileInfo, error) {
	if v.fails > 0 {
		v.fails--
		return nil, &fs.PathError{Op: "lstat", Path: path + "/tmp_pack_1", Err: fs.ErrNotExist}
	}
	return v.Filesystem.ReadDir(path)
}

func TestSteadyListing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fails   int
		dir     string
		want    []string
		missing bool
	}{
		{name: "a steady directory", dir: "objects/pack", want: []string{"pack-a.idx", "pack-a.pack"}},
		{name: "entries vanished while listed", fails: 3, dir: "objects/pack", want: []string{"pack-a.idx", "pack-a.pack"}},
		{name: "an absent directory", dir: "objects/none", missing: true},
		{name: "names vanishing at every listing", fails: listAttempts, dir: "objects/pack", missing: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memfs.New()
			for _, n := range []string{"objects/pack/pack-a.idx", "objects/pack/pack-a.pack"} {
				f, err := mem.Create(n)
				require.NoError(t, err)
				require.NoError(t, f.Close())
			}
			infos, err := steadyListing{&vanishing{Filesystem: mem, fails: tc.fails}}.ReadDir(tc.dir)
			if tc.missing {
				assert.ErrorIs(t, err, fs.ErrNotExist)
				return
			}
			require.NoError(t, err)
			var names []string
			for _, fi := range infos {
				names = append(names, fi.Name())
			}
			assert.Equal(t, tc.want, names)
		})
	}
}
