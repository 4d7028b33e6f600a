// SPDX-License-Identifier: Apache-2.0

package answer

import "sync"

// flights coalesces concurrent sweep misses of one key in one forest
// (J.10.7, v0.58): the first asker leads and runs the model; the others
// wait, holding nothing, then re-check the store under their own reading.
type flights struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// join makes the caller the leader of key (done must be called when the
// leader has settled, stored or not) or returns the channel to wait on.
func (f *flights) join(key string) (wait <-chan struct{}, done func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ch, ok := f.m[key]; ok {
		return ch, nil
	}
	if f.m == nil {
		f.m = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	f.m[key] = ch
	return nil, func() {
		f.mu.Lock()
		delete(f.m, key)
		f.mu.Unlock()
		close(ch)
	}
}
