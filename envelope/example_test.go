// SPDX-License-Identifier: Apache-2.0

package envelope_test

import (
	"errors"
	"fmt"

	"github.com/monkeyllm/vine/envelope"
)

// A refusal is built with its code, a message that teaches and a hint
// naming the next move; callers branch on the code with errors.Is and
// read the rest with errors.As. Its JSON is the wire envelope.
func ExampleError() {
	err := fmt.Errorf("look: %w", envelope.New(envelope.NotFound,
		"no node 'ops/radio'", "locate the node first").With("moved_to", "operations/radio"))

	fmt.Println(errors.Is(err, envelope.NotFound))
	var e *envelope.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Code.HTTPStatus())
		fmt.Println(string(e.Body()))
	}
	// Output:
	// true
	// E_NOT_FOUND 404
	// {"error":{"code":"E_NOT_FOUND","message":"no node 'ops/radio'","hint":"locate the node first","moved_to":"operations/radio"}}
}
