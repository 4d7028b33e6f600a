// SPDX-License-Identifier: Apache-2.0

//go:build linux

package gitops

import (
	"io/fs"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// On Linux the index also records ctime, device, inode and owner, so git's
// stat check matches and `git status` need not re-hash staged files.
func init() {
	fillStat = func(e *index.Entry, fi fs.FileInfo) {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return
		}
		e.CreatedAt = time.Unix(st.Ctim.Unix())
		e.Dev = uint32(st.Dev)
		e.Inode = uint32(st.Ino)
		e.UID = st.Uid
		e.GID = st.Gid
	}
}
