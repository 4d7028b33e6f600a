// SPDX-License-Identifier: Apache-2.0

//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package forest

import "os"

// openNonBlocking opens path read-only; platforms without FIFOs in the
// file system need no more.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }

func clearNonBlocking(*os.File) error { return nil }
