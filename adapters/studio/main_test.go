// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"testing"

	"github.com/monkeyllm/vine/internal/exttest"
)

// TestMain removes the extension executables the tests built.
func TestMain(m *testing.M) { exttest.Main(m) }
