// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUnlinkedCompositeSaysWhatToImport: a program that calls answer
// without linking it hears which package to import, not only "unknown".
func TestUnlinkedCompositeSaysWhatToImport(t *testing.T) {
	e := unknownPrimitive("answer")
	assert.Equal(t, ENotFound, e.Code)
	assert.Equal(t, "unknown primitive: answer", e.Message)
	assert.Contains(t, e.Hint, `import _ "github.com/monkeyllm/vine/answer"`)
	assert.NotContains(t, unknownPrimitive("teleport").Hint, "import _")
}

// TestHarvestIsAPrimitive: harvest is in the signature table with no
// import, as every primitive of spec 05 is, so Call never answers it
// with the unlinked-composite hint.
func TestHarvestIsAPrimitive(t *testing.T) {
	sig, ok := LookupSignature("harvest")
	assert.True(t, ok)
	assert.Equal(t, HarvestBudget, sig.Budget)
	assert.NotContains(t, unknownPrimitive("harvest").Hint, "import _")
}
