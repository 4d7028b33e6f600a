// SPDX-License-Identifier: Apache-2.0

package install

import (
	"io"
	"testing"
	"time"
)

// SetMaxArchive lowers the archive ceiling for one test, so an oversize
// archive need not be a hundred megabytes.
func SetMaxArchive(t *testing.T, n int64) {
	old := maxArchive
	maxArchive = n
	t.Cleanup(func() { maxArchive = old })
}

// Unzip is the archive door's extraction, for tests that look at what
// it wrote.
func Unzip(r io.ReaderAt, size int64, dir string) error { return unzip(r, size, dir) }

// SetIndexTimeout shortens the index fetch's deadline for one test, so
// a slow server need not hold it for thirty seconds.
func SetIndexTimeout(t *testing.T, d time.Duration) {
	old := indexTimeout
	indexTimeout = d
	t.Cleanup(func() { indexTimeout = old })
}

// OwnerOf is the forge account t names as a location's owner.
func (t Trust) OwnerOf(location string) (forge, account string, ok bool) { return t.owner(location) }
