// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package sqlitefile

import "os"

// linked cannot tell here whether the wal-index was deleted and made
// anew, so the watch never vouches and callers always ask SQLite.
func linked(*os.File) bool { return false }
