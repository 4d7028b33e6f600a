// SPDX-License-Identifier: Apache-2.0

package payloadplace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIntersectTables(t *testing.T) {
	tests := []struct {
		lists [][]string
		want  []string
	}{
		{[][]string{{"a", "b"}}, []string{"a", "b"}},
		{[][]string{{"a", "b"}, {"B", "c"}}, []string{"b"}},
		{[][]string{{"a"}, {"b"}}, []string{NoTable}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, intersectTables(tt.lists), "%v", tt.lists)
	}
}
