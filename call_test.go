// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUnlinkedCompositeSaysWhatToImport: a program that calls harvest
// without linking it hears which package to import, not only "unknown".
func TestUnlinkedCompositeSaysWhatToImport(t *testing.T) {
	e := unknownPrimitive("harvest")
	assert.Equal(t, ENotFound, e.Code)
	assert.Equal(t, "unknown primitive: harvest", e.Message)
	assert.Contains(t, e.Hint, `import _ "github.com/monkeyllm/vine/harvest"`)
	assert.NotContains(t, unknownPrimitive("teleport").Hint, "import _")
}
