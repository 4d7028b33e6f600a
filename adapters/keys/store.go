package keys

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// recheck is how often a Store looks at its file for changes: often
// enough that a revocation takes effect within a second or two, rarely
// enough that a busy server does not stat the file per request.
const recheck = time.Second

// Store resolves secrets against a keys file and follows the file as it
// changes, so vine keys add and revoke take effect without a restart. A
// file that stops parsing resolves nothing until it is fixed: failing
// closed is the only safe reading of a revocation with a typo in it.
//
// A Store is safe for concurrent use.
type Store struct {
	path string
	now  func() time.Time

	mu       sync.RWMutex
	keys     map[string]Key // by digest
	err      error          // the file's last failure to load
	modTime  time.Time
	size     int64
	checked  time.Time
	lastUsed map[string]time.Time // by digest; memory only
}

// Load reads the keys file at path. The file must exist and parse; a
// server asked to check keys against nothing is misconfigured.
func Load(path string) (*Store, error) {
	s := &Store{path: path, now: time.Now, lastUsed: map[string]time.Time{}}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := s.load(fi); err != nil {
		return nil, err
	}
	return s, nil
}

// SetClock replaces the clock that decides expiry and stamps last use,
// for tests. Call it before the Store is shared.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

func (s *Store) load(fi os.FileInfo) error {
	data, err := os.ReadFile(s.path)
	var f *File
	if err == nil {
		f, err = Parse(data)
	}
	s.modTime, s.size = fi.ModTime(), fi.Size()
	if err != nil {
		s.keys, s.err = nil, err
		return err
	}
	s.keys, s.err = make(map[string]Key, len(f.Keys)), nil
	for _, k := range f.Keys {
		s.keys[k.SHA256] = k
	}
	return nil
}

// refresh re-reads the file when its size or time changed since the last
// look, at most once per recheck.
func (s *Store) refresh() {
	now := time.Now()
	s.mu.RLock()
	due := now.Sub(s.checked) >= recheck
	s.mu.RUnlock()
	if !due {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.checked) < recheck {
		return
	}
	s.checked = now
	fi, err := os.Stat(s.path)
	if err != nil {
		s.keys, s.err = nil, err
		return
	}
	if fi.ModTime().Equal(s.modTime) && fi.Size() == s.size && s.err == nil {
		return
	}
	s.load(fi) // a failure is kept in s.err and resolves nothing
}

// Err is the file's current failure to load, nil while it serves.
func (s *Store) Err() error {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.err
}

// Resolve looks the secret up by its digest and refuses a revoked key
// and one whose expires_at is not in the future. A use is stamped in
// memory (Keys reports it), never written to the file, which belongs to
// the operator.
func (s *Store) Resolve(_ context.Context, secret string) (*Principal, bool) {
	if secret == "" {
		return nil, false
	}
	s.refresh()
	d := Digest(secret)
	now := s.now()
	s.mu.RLock()
	k, ok := s.keys[d]
	s.mu.RUnlock()
	if !ok || k.Status(now) != StatusActive {
		return nil, false
	}
	s.mu.Lock()
	s.lastUsed[d] = now
	s.mu.Unlock()
	return k.principal(), true
}

// Keys lists the keys the Store serves, with last use as this process
// saw it, ordered by label.
func (s *Store) Keys() []Key {
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Key, 0, len(s.keys))
	for d, k := range s.keys {
		if t, ok := s.lastUsed[d]; ok {
			k.LastUsedAt = t.UTC().Format(time.RFC3339)
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Key) int { return strings.Compare(a.Label, b.Label) })
	return out
}
