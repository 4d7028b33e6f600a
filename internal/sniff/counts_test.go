// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTermCountsBelongToOneGeneration(t *testing.T) {
	var c termCounts
	c.put(3, "storm", 40)
	n, ok := c.get(3, "storm")
	assert.True(t, ok)
	assert.Equal(t, 40, n)
	_, ok = c.get(4, "storm")
	assert.False(t, ok, "a write moves the generation on")
	c.put(4, "alert", 2)
	_, ok = c.get(3, "storm")
	assert.False(t, ok, "a new generation starts afresh")
}
