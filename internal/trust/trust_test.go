// SPDX-License-Identifier: Apache-2.0

package trust

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGrant(t *testing.T) {
	var zero Grant
	assert.False(t, zero.Adopted(), "the zero grant grants nothing")
	assert.True(t, Ingest().Adopted())
}
