// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"errors"
	"io/fs"
	"os"

	"github.com/go-git/go-billy/v5"
)

// steadyListing is the git directory as readers list it. go-billy lists a
// directory by reading its names and then stating each, and fails the
// whole listing when a name is gone by the time it is stated; go-git
// takes that failure for a missing pack directory and finds no packs at
// all. A commit renames a temporary file into objects/pack while readers
// list it, so a reader of HEAD then failed to find the commit HEAD named
// (TestCommitConcurrentWithReads, about one run in twenty).
type steadyListing struct{ billy.Filesystem }

// listAttempts bounds the listings of a directory whose names keep
// vanishing under it; one more is enough in practice.
const listAttempts = 16

// ReadDir lists path, listing it again when an entry vanished while it
// was listed. A directory that is itself absent is reported as absent.
func (f steadyListing) ReadDir(path string) ([]os.FileInfo, error) {
	var err error
	for range listAttempts {
		var infos []os.FileInfo
		if infos, err = f.Filesystem.ReadDir(path); !errors.Is(err, fs.ErrNotExist) {
			return infos, err
		}
		if _, serr := f.Filesystem.Stat(path); serr != nil {
			return nil, err
		}
	}
	return nil, err
}

// Chmod and Capabilities forward what go-git asks of a git directory's
// filesystem beyond billy.Filesystem (packs written by a fetch are made
// read-only through Chmod).
func (f steadyListing) Chmod(name string, mode fs.FileMode) error {
	if c, ok := f.Filesystem.(billy.Chmod); ok {
		return c.Chmod(name, mode)
	}
	return nil
}

// Capabilities are the wrapped filesystem's.
func (f steadyListing) Capabilities() billy.Capability { return billy.Capabilities(f.Filesystem) }
