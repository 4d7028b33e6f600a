// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Bounds of the open trace files: a server interleaving many sessions
// keeps the most recent few open rather than one descriptor per session
// ever seen, and a file renamed or removed under an open descriptor
// (rotation by hand or by a tool) is noticed within reopenCheck.
const (
	maxOpenTraceFiles = 16
	reopenCheck       = time.Second
)

// traceFiles keeps session trace files open for appending. The zero value
// is ready; it is safe for concurrent use.
type traceFiles struct {
	mu    sync.Mutex
	open  map[string]*traceFile
	order []string // sessions in the order their files were opened
}

// traceFile is one open session file and what it was when opened, to tell
// whether the path still names it.
type traceFile struct {
	f       *os.File
	path    string
	info    os.FileInfo
	checked time.Time
}

// append writes line, one whole line, to the session's file, opening it
// when it is not open, no longer what the path names, or broken.
func (tf *traceFiles) append(dir, session string, line []byte) error {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	f, err := tf.file(dir, session)
	if err != nil {
		return err
	}
	if _, err := f.f.Write(line); err == nil {
		return nil
	}
	// A failed write may mean a descriptor gone bad: reopen and try once
	// more, so one glitch does not silence the session for good.
	tf.drop(session)
	if f, err = tf.file(dir, session); err != nil {
		return err
	}
	_, err = f.f.Write(line)
	return err
}

// file returns the open file of a session, (re)opening it as needed.
// The caller holds mu.
func (tf *traceFiles) file(dir, session string) (*traceFile, error) {
	now := time.Now()
	if f, ok := tf.open[session]; ok {
		if now.Sub(f.checked) < reopenCheck {
			return f, nil
		}
		f.checked = now
		if cur, err := os.Stat(f.path); err == nil && os.SameFile(cur, f.info) {
			return f, nil
		}
		tf.drop(session) // rotated or removed: start the file the path names now
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, session+".jsonl")
	fd, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	info, err := fd.Stat()
	if err != nil {
		return nil, errors.Join(err, fd.Close())
	}
	if len(tf.order) >= maxOpenTraceFiles {
		tf.drop(tf.order[0])
	}
	if tf.open == nil {
		tf.open = map[string]*traceFile{}
	}
	f := &traceFile{f: fd, path: path, info: info, checked: now}
	tf.open[session] = f
	tf.order = append(tf.order, session)
	return f, nil
}

// drop closes a session's file and forgets it. The caller holds mu.
func (tf *traceFiles) drop(session string) error {
	f, ok := tf.open[session]
	if !ok {
		return nil
	}
	delete(tf.open, session)
	for i, s := range tf.order {
		if s == session {
			tf.order = append(tf.order[:i], tf.order[i+1:]...)
			break
		}
	}
	return f.f.Close()
}

// close closes one session's file, if open.
func (tf *traceFiles) close(session string) error {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return tf.drop(session)
}

// closeAll closes every open file.
func (tf *traceFiles) closeAll() error {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	var errs []error
	for len(tf.order) > 0 {
		errs = append(errs, tf.drop(tf.order[0]))
	}
	return errors.Join(errs...)
}
