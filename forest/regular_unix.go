// SPDX-License-Identifier: Apache-2.0

//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package forest

import (
	"os"
	"syscall"
)

// openNonBlocking opens path read-only with O_NONBLOCK, which makes the
// open of a FIFO without a writer return at once.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// clearNonBlocking puts a checked regular file back in blocking mode, so
// reads behave as usual (regular files never block anyway).
func clearNonBlocking(f *os.File) error {
	return syscall.SetNonblock(int(f.Fd()), false)
}
