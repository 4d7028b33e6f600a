// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"sync"
	"testing"
)

// TestSoloJobOnceAtATime: a start while a job runs is dropped; once it
// has finished, the next start runs again.
func TestSoloJobOnceAtATime(t *testing.T) {
	var (
		s       soloJob
		wg      sync.WaitGroup
		mu      sync.Mutex
		runs    int
		release = make(chan struct{})
		started = make(chan struct{}, 2)
	)
	job := func() {
		mu.Lock()
		runs++
		mu.Unlock()
		started <- struct{}{}
		<-release
	}
	s.start(&wg, job)
	<-started
	s.start(&wg, job) // dropped: the first still runs
	close(release)
	wg.Wait()
	if runs != 1 {
		t.Fatalf("runs while one ran = %d, want 1", runs)
	}
	s.start(&wg, job) // release is closed: this one runs through
	wg.Wait()
	if runs != 2 {
		t.Fatalf("runs after the first finished = %d, want 2", runs)
	}
}
