// SPDX-License-Identifier: Apache-2.0

//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package forest

import (
	"os"
	"syscall"
)

// platformTryLock takes flock(LOCK_EX|LOCK_NB) on f: a whole-file lock
// owned by the open file, so two handles in one process exclude each other
// too, unlike POSIX record locks.
func platformTryLock(f *os.File) (lockState, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return 0, err
	}
	switch {
	case ferr == nil:
		return lockAcquired, nil
	case ferr == syscall.EWOULDBLOCK || ferr == syscall.EAGAIN:
		return lockBusy, nil
	case ferr == syscall.ENOLCK || ferr == syscall.ENOTSUP || ferr == syscall.EOPNOTSUPP:
		return lockUnsupported, nil
	}
	return 0, ferr
}
