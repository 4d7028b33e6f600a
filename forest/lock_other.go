// SPDX-License-Identifier: Apache-2.0

//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package forest

import "os"

// platformTryLock reports kernel locks as unsupported here, so the writer
// lock falls back to exclusive create (C.9 rule 4).
func platformTryLock(*os.File) (lockState, error) {
	return lockUnsupported, nil
}
