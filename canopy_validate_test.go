// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/canopy"
)

func TestValidateReportsAVectorModelMismatch(t *testing.T) {
	v, _ := writableFixture(t)
	ctx := context.Background()
	v.SetEmbedder(canopy.NewHash("model-a", 16))
	_, err := v.CanopyBuild(ctx)
	require.NoError(t, err)
	clean, err := v.Validate(ctx)
	require.NoError(t, err)

	v.SetEmbedder(canopy.NewHash("model-b", 16))
	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Equal(t, clean.Warnings+1, rep.Warnings)
	found := false
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, `"model-a"`) && strings.Contains(f.Message, `"model-b"`) {
			found = true
		}
	}
	assert.True(t, found, "the mismatch names both models")
}
