// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/monkeyllm/vine/envelope"
)

// acquireTries bounds how often AcquireLock retries after locking a file
// that a releasing holder had already unlinked (C.9).
const acquireTries = 4

// States a LockProbe reports.
const (
	LockFree       = "free"       // no lock file
	LockOrphan     = "orphan"     // a card nobody holds; the next writer takes it over
	LockHeld       = "held"       // a live writer holds it, or it cannot be verified
	LockUnverified = "unverified" // removed from a filesystem without kernel locks
)

// LockCard is the diagnostic content of .vine.lock: who holds, or last
// held, the writer lock. It never decides possession; the kernel does.
type LockCard struct {
	PID   int    `json:"pid,omitempty"`
	Host  string `json:"host,omitempty"`
	Since string `json:"since,omitempty"`
}

// Lock is a held writer lock on one forest (C.9): one writer per forest,
// across processes and within one. Possession is the kernel's advisory
// whole-file lock on the open lock file, so it ends when the holder dies,
// however it dies. Where the filesystem has no such locks, possession is
// the file's existence instead (exclusive create), and nothing guesses
// liveness.
type Lock struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	kernel bool
}

// lockState is the outcome of one non-blocking lock attempt.
type lockState int

const (
	lockAcquired lockState = iota
	lockBusy
	lockUnsupported
)

// tryLockFile takes the kernel lock on f without blocking. A variable so
// tests can stand in a filesystem without kernel locks.
var tryLockFile = platformTryLock

// AcquireLock takes the writer lock of the forest in dir. A card left by a
// dead holder is taken over silently. A live holder gets E_LOCKED quoting
// its pid, host and since.
func AcquireLock(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	for range acquireTries {
		f, created, err := openLockFile(path)
		if errors.Is(err, errLockVanished) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("forest: open writer lock: %w", err)
		}
		state, err := tryLockFile(f)
		switch {
		case err != nil:
			f.Close()
			return nil, fmt.Errorf("forest: take writer lock: %w", err)
		case state == lockUnsupported:
			// C.9 rule 4: without kernel locks, whoever created the file
			// holds the lock, and a file that was already there refuses.
			if !created {
				card := readCard(path)
				f.Close()
				return nil, lockedError(card, false)
			}
			return holdLock(f, path, false)
		case state == lockBusy:
			card := readCard(path)
			f.Close()
			return nil, lockedError(card, true)
		}
		// A releaser unlinks while holding, so the file locked here may
		// already be gone from the path; holding it would let a second
		// writer lock the fresh file and both would believe they won.
		if !samePathFile(f, path) {
			f.Close()
			continue
		}
		return holdLock(f, path, true)
	}
	return nil, envelope.New(envelope.Locked,
		"forest writer lock is contended: it changed hands on every one of 4 attempts",
		"another writer is starting or stopping right now; retry in a moment")
}

// DefaultLockWait is how long AcquireLockWait waits for a busy writer
// lock by default: long enough to queue behind another process's write
// (milliseconds), short enough that a caller stuck behind a long job hears
// E_LOCKED naming the holder instead of hanging.
const DefaultLockWait = 5 * time.Second

// AcquireLockWait is AcquireLock that waits up to wait (0 means
// DefaultLockWait, a negative wait not at all) while another writer holds
// the lock, retrying with a short backoff: writes take the lock for
// milliseconds, so several processes sharing a forest queue behind each
// other instead of failing. Past the wait, or when ctx ends, it answers
// the E_LOCKED of the last attempt, naming the holder.
func AcquireLockWait(ctx context.Context, dir string, wait time.Duration) (*Lock, error) {
	if wait == 0 {
		wait = DefaultLockWait
	}
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		l, err := AcquireLock(dir)
		left := time.Until(deadline)
		if err == nil || envelope.CodeOf(err) != envelope.Locked || left <= 0 {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(min(pause, left)):
		}
		pause = min(pause*2, 50*time.Millisecond)
	}
}

// openLockFile opens the lock file, creating it when missing, and reports
// whether this call created it: on a filesystem without kernel locks that
// is the whole of possession.
func openLockFile(path string) (f *os.File, created bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, false, err
	}
	f, err = os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, errLockVanished
	}
	return f, false, err
}

// errLockVanished: a holder released between our exclusive create and
// our open; the next try creates the file.
var errLockVanished = errors.New("lock file vanished while opening")

// holdLock writes this process's card into the possessed file and keeps
// the handle.
func holdLock(f *os.File, path string, kernel bool) (*Lock, error) {
	if err := writeCard(f); err != nil {
		f.Close()
		if !kernel {
			os.Remove(path)
		}
		return nil, fmt.Errorf("forest: write writer lock card: %w", err)
	}
	return &Lock{path: path, f: f, kernel: kernel}, nil
}

// Release gives the lock up: the file is unlinked while still held, so a
// writer that locked the same file meanwhile fails its identity check and
// retries on a fresh one, then the handle is closed. Releasing twice is a
// no-op.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	if !l.kernel {
		// No kernel lock to hold across the unlink, and some systems
		// refuse to remove an open file.
		return errors.Join(f.Close(), removeLockFile(l.path))
	}
	var rmErr error
	// Someone may have deleted the held file and a new writer created
	// another; that file is theirs to remove.
	if samePathFile(f, l.path) {
		rmErr = removeLockFile(l.path)
	}
	return errors.Join(rmErr, f.Close())
}

// LockProbe is what ProbeLock and RemoveOrphanLock report. Verified is
// false when the filesystem cannot say whether the holder lives; Removed
// is set by RemoveOrphanLock; Holder is the card, when there is a file.
type LockProbe struct {
	State    string    `json:"state"`
	Verified *bool     `json:"verified,omitempty"`
	Removed  *bool     `json:"removed,omitempty"`
	Holder   *LockCard `json:"holder,omitempty"`
}

// ProbeLock reports the state of the forest's writer lock without opening
// the forest: free (no file), orphan (lockable; the probe's own lock is
// released at once) or held (busy, or unverifiable without kernel locks).
func ProbeLock(dir string) (LockProbe, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return LockProbe{State: LockFree}, nil
	}
	card := readCard(path)
	if err != nil {
		return LockProbe{State: LockHeld, Holder: &card}, nil
	}
	defer f.Close()
	state, err := tryLockFile(f)
	switch {
	case err != nil:
		return LockProbe{}, fmt.Errorf("forest: probe writer lock: %w", err)
	case state == lockUnsupported:
		return LockProbe{State: LockHeld, Verified: ptr(false), Holder: &card}, nil
	case state == lockAcquired:
		return LockProbe{State: LockOrphan, Holder: &card}, nil
	}
	return LockProbe{State: LockHeld, Holder: &card}, nil
}

// RemoveOrphanLock removes a lock file nobody holds. A held lock is
// refused with E_LOCKED and there is no override: breaking a live lock is
// how two writers happen. Without kernel locks the file cannot be
// verified, and removing it is the operator's way out (state unverified).
func RemoveOrphanLock(dir string) (LockProbe, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return LockProbe{State: LockFree, Removed: ptr(false)}, nil
	}
	card := readCard(path)
	if err != nil {
		return LockProbe{State: LockHeld, Removed: ptr(false), Holder: &card}, nil
	}
	state, err := tryLockFile(f)
	switch {
	case err != nil:
		f.Close()
		return LockProbe{}, fmt.Errorf("forest: probe writer lock: %w", err)
	case state == lockBusy:
		f.Close()
		e := lockedError(card, true)
		e.Message = "the writer lock is held by a live writer and cannot be removed" + holderText(card)
		e.Hint = "it frees itself when its holder exits; there is no override, because two writers corrupt a forest"
		return LockProbe{}, e
	case state == lockUnsupported:
		f.Close()
		removed := removeLockFile(path) == nil
		return LockProbe{State: LockUnverified, Removed: &removed, Holder: &card}, nil
	}
	// Unlink while holding, as Release does, so a writer racing us onto
	// this file retries on a fresh one.
	removed := removeLockFile(path) == nil
	f.Close()
	return LockProbe{State: LockOrphan, Removed: &removed, Holder: &card}, nil
}

// lockedError is the E_LOCKED refusal quoting the holder's card.
func lockedError(card LockCard, verified bool) *envelope.Error {
	hint := "one writer per forest: the lock frees itself when its holder exits, and a lock left by a dead process is reclaimed automatically at the next open; retry later, or open the forest read-only to keep reading"
	if !verified {
		hint = "one writer per forest; this filesystem has no kernel locks, so whether the holder still runs cannot be verified and the lock is kept; retry once that writer has stopped, or open the forest read-only to keep reading"
	}
	e := envelope.New(envelope.Locked, "forest already has a writer"+holderText(card), hint)
	if card.PID != 0 {
		e.With("pid", card.PID)
	}
	if card.Host != "" {
		e.With("host", card.Host)
	}
	if card.Since != "" {
		e.With("since", card.Since)
	}
	if !verified {
		e.With("verified", false)
	}
	return e
}

// holderText renders the card for a message: " (pid 42 on host since …)".
func holderText(card LockCard) string {
	var parts []string
	if card.PID != 0 {
		parts = append(parts, fmt.Sprintf("pid %d", card.PID))
	}
	if card.Host != "" {
		parts = append(parts, "on "+card.Host)
	}
	if card.Since != "" {
		parts = append(parts, "since "+card.Since)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, " ") + ")"
}

// currentCard describes this process as the holder.
func currentCard() LockCard {
	host, _ := os.Hostname()
	return LockCard{
		PID:   os.Getpid(),
		Host:  host,
		Since: time.Now().UTC().Format("2006-01-02T15:04:05") + "+00:00",
	}
}

// writeCard replaces the file's content with this process's card.
func writeCard(f *os.File) error {
	data, err := json.Marshal(currentCard())
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	return err
}

// readCard reads the card at path. A pre-v0.55 card is a bare pid; an
// unreadable or foreign one reads as the empty card.
func readCard(path string) LockCard {
	data, err := os.ReadFile(path)
	if err != nil {
		return LockCard{}
	}
	dec := json.NewDecoder(strings.NewReader(strings.TrimSpace(string(data))))
	dec.UseNumber()
	var raw any
	if dec.Decode(&raw) != nil {
		return LockCard{}
	}
	switch v := raw.(type) {
	case json.Number:
		return LockCard{PID: cardPID(v)}
	case map[string]any:
		card := LockCard{}
		if n, ok := v["pid"].(json.Number); ok {
			card.PID = cardPID(n)
		}
		card.Host, _ = v["host"].(string)
		card.Since, _ = v["since"].(string)
		return card
	}
	return LockCard{}
}

// cardPID reads a pid, or 0 when it is not a positive integer.
func cardPID(n json.Number) int {
	i, err := n.Int64()
	if err != nil || i <= 0 || int64(int(i)) != i {
		return 0
	}
	return int(i)
}

// samePathFile reports whether the open file is still the one at path.
func samePathFile(f *os.File, path string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	current, err := os.Stat(path)
	return err == nil && os.SameFile(held, current)
}

// removeLockFile unlinks the lock file; an already missing file is fine.
func removeLockFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
