// SPDX-License-Identifier: Apache-2.0

//go:build unix

package sqlitefile

import (
	"os"
	"syscall"
)

// linked reports whether f still has a name: the last connection to
// close a file deletes its wal-index, and the header of a deleted one
// never changes again. It asks fstat through the file's raw
// connection, which stays safe against a concurrent Close and, unlike
// File.Stat, allocates nothing.
func linked(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var st syscall.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return false
	}
	return st.Nlink > 0
}
