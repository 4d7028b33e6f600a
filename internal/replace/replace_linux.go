// SPDX-License-Identifier: Apache-2.0

package replace

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps tmp and a regular file at target and removes tmp (by
// then the old file). It reports false, nil when the swap is not for
// here — target absent or not a regular file, or a file system or kernel
// without RENAME_EXCHANGE — so the caller renames instead.
func exchange(tmp, target string) (bool, error) {
	// An exchange swaps whatever is there, a directory included, where a
	// rename over one refuses: keep the rename's answer for those.
	if fi, err := os.Lstat(target); err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS),
		errors.Is(err, unix.EOPNOTSUPP):
		return false, nil
	default:
		return false, &os.LinkError{Op: "renameat2", Old: tmp, New: target, Err: err}
	}
	// Should this fail, the new bytes are in place all the same and the
	// old ones linger under tmp, for the caller's repair to sweep.
	_ = os.Remove(tmp)
	return true, nil
}
