// SPDX-License-Identifier: Apache-2.0

// Package recordtest is a [record.Recorder] for the surfaces' tests: it
// keeps every audit row handed to it, in order, for the test to read.
package recordtest

import (
	"context"
	"sync"

	"github.com/monkeyllm/vine/adapters/record"
)

// Trail collects the rows a surface records. The zero value is ready;
// it is safe for concurrent use, since surfaces record from the
// goroutine that served the call.
type Trail struct {
	mu   sync.Mutex
	rows []record.Call
}

// Record keeps c.
func (tr *Trail) Record(_ context.Context, c record.Call) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.rows = append(tr.rows, c)
}

// All is a copy of the rows recorded so far, oldest first.
func (tr *Trail) All() []record.Call {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]record.Call(nil), tr.rows...)
}
