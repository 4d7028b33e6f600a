// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"fmt"
	"sync"

	"github.com/monkeyllm/vine"
)

// Batches are the ingest batches running on a host, at most one per
// forest and never a queue (J.9). A host serving ingest on several
// surfaces (REST jobs, the MCP tool) gives them one Batches, so two
// surfaces never run two batches on one forest at once. It is safe for
// concurrent use; the zero value is not: use NewBatches.
type Batches struct {
	mu      sync.Mutex
	running map[string]string // forest -> job id
}

// NewBatches returns an empty set of running batches.
func NewBatches() *Batches { return &Batches{running: map[string]string{}} }

// Reserve claims forest for job, or refuses E_LOCKED naming the batch
// already running there; hint says how to wait for it on the caller's
// surface.
func (b *Batches) Reserve(forest, job, hint string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r, busy := b.running[forest]; busy {
		return &vine.Error{Code: vine.ELocked, Message: fmt.Sprintf("ingest: job %s is running on this forest", r),
			Hint: hint}
	}
	b.running[forest] = job
	return nil
}

// Release frees forest, if job is the batch holding it.
func (b *Batches) Release(forest, job string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running[forest] == job {
		delete(b.running, forest)
	}
}

// Running is the job running on forest, "" when none is.
func (b *Batches) Running(forest string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running[forest]
}
