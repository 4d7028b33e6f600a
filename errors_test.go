// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine"
)

// TestErrorsIsByCode: a refusal matches its code with errors.Is, through
// wrapping, and matches no other code.
func TestErrorsIsByCode(t *testing.T) {
	err := fmt.Errorf("calling look: %w", &vine.Error{Code: vine.ENotFound, Message: "node not found: x"})
	assert.ErrorIs(t, err, vine.ENotFound)
	assert.NotErrorIs(t, err, vine.ESchema)
	assert.False(t, errors.Is(errors.New("plain"), vine.ENotFound))
	assert.Equal(t, "E_LOCKED", vine.ELocked.Error())

	_, err = vine.Open(context.Background(), t.TempDir(), nil)
	assert.ErrorIs(t, err, vine.ENotFound, "a primitive's refusal matches too")
}
