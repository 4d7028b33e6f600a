// SPDX-License-Identifier: Apache-2.0

package keys

import (
	"context"
	"fmt"
	"log/slog"
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
// changes, so vine keys add and revoke take effect without a restart.
//
// A change that does not parse (a hand edit half done, a typo) is not
// applied: the Store logs an error naming the file and keeps serving the
// keys of the last good read, and applies the file, revocations included,
// once it parses again. Turning every key into 401 over a typo would take
// the whole deployment down and say nothing; vine keys revoke never
// writes a file that does not parse. A file that is gone serves no key:
// removing it is how an operator cuts every key at once.
//
// A Store is safe for concurrent use.
type Store struct {
	path string
	now  func() time.Time
	log  *slog.Logger

	mu       sync.RWMutex
	keys     map[string]Key // by digest
	err      error          // the file's last failure to load
	modTime  time.Time
	size     int64
	checked  time.Time
	lastUsed map[string]time.Time // by digest; memory only
}

// StoreOptions tune a Store; a nil *StoreOptions is the defaults.
type StoreOptions struct {
	// Logger receives the file's reload failures and recoveries; nil is
	// slog.Default(), so they are never silent.
	Logger *slog.Logger
}

// Load is NewStore with the default options.
func Load(path string) (*Store, error) { return NewStore(path, nil) }

// NewStore reads the keys file at path. The file must exist and parse: a
// server asked to check keys against nothing, or against a file it cannot
// read, is misconfigured and must not start. The error names the file.
func NewStore(path string, opt *StoreOptions) (*Store, error) {
	s := &Store{path: path, now: time.Now, log: slog.Default(), lastUsed: map[string]time.Time{}}
	if opt != nil && opt.Logger != nil {
		s.log = opt.Logger
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := s.load(fi); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// SetClock replaces the clock that decides expiry and stamps last use,
// for tests. Call it before the Store is shared.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// load reads and parses the file. A failure keeps the keys already
// served and is logged when it differs from the last one, so a file that
// stays broken is reported once, not every second.
func (s *Store) load(fi os.FileInfo) error {
	data, err := os.ReadFile(s.path)
	var f *File
	if err == nil {
		f, err = Parse(data)
	}
	if err != nil {
		if s.keys != nil && (s.err == nil || s.err.Error() != err.Error()) {
			s.log.Error("keys file not reloaded: the keys already loaded stay in force until it parses",
				"file", s.path, "err", err, "keys", len(s.keys))
		}
		s.err = err
		return err
	}
	if s.err != nil && s.keys != nil {
		s.log.Info("keys file reloaded", "file", s.path, "keys", len(f.Keys))
	}
	s.modTime, s.size = fi.ModTime(), fi.Size()
	s.keys, s.err = make(map[string]Key, len(f.Keys)), nil
	for _, k := range f.Keys {
		s.keys[k.SHA256] = k
	}
	return nil
}

// refresh re-reads the file when its size or time changed since the last
// good read, or the last read failed, at most once per recheck.
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
		s.gone(err)
		return
	}
	if fi.ModTime().Equal(s.modTime) && fi.Size() == s.size && s.err == nil {
		return
	}
	s.load(fi) // a failure is logged and kept in s.err
}

// gone serves no key while the file cannot be found: its removal is a
// deliberate act, unlike a broken edit.
func (s *Store) gone(err error) {
	if s.err == nil || s.err.Error() != err.Error() {
		s.log.Error("keys file unreadable; no key is accepted until it is back", "file", s.path, "err", err)
	}
	s.keys, s.err = map[string]Key{}, err
	s.modTime, s.size = time.Time{}, 0
}

// Err is the file's current failure to load: nil when the last read
// succeeded. While it is not nil the Store serves the keys of the last
// good read, or none when the file is gone.
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
