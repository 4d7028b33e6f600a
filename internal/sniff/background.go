// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"sync"
	"sync/atomic"
)

// soloJob runs a background rebuild once at a time: a request that comes
// while one runs is dropped, because the running rebuild reads the state
// the request would have read.
type soloJob struct {
	running atomic.Bool
}

// start runs job on wg unless a job started here is still running.
func (s *soloJob) start(wg *sync.WaitGroup, job func()) {
	if !s.running.CompareAndSwap(false, true) {
		return
	}
	wg.Go(func() {
		defer s.running.Store(false)
		job()
	})
}
