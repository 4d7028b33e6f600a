// SPDX-License-Identifier: Apache-2.0

package install

import (
	"os"
	"testing"

	"github.com/monkeyllm/vine/internal/exttest"
)

// TestMain removes the extension executables the tests built once m.Run
// is done with them.
func TestMain(m *testing.M) {
	code := m.Run()
	exttest.Cleanup()
	os.Exit(code)
}
