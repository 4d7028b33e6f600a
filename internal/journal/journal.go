// SPDX-License-Identifier: Apache-2.0

// Package journal is the forest writer's intent log: before a write
// touches a file, it notes which file and how, so that a writer killed
// half-way (kill -9, a crash, a power cut of the process) leaves enough
// behind for the next writer to put the forest back to a state some
// commit describes.
//
// The log is one small file of JSON lines in the forest's git directory,
// never in _derived/ (which reindex may rebuild) and never in the
// worktree (which git would see). A record is appended before the change
// it announces, so a torn last line announces a change that never began
// and is ignored. Nothing is synced to disk: the log protects against a
// process dying, whose writes the kernel still holds, not against the
// machine losing power.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FileName is the log's name inside the git directory.
const FileName = "vine-journal"

// Kind says what a record announces.
type Kind string

// The record kinds. Paths are forest-relative with "/" separators.
const (
	Begin  Kind = "begin" // a write starts; Base is HEAD, Op names the write
	Put    Kind = "put"   // Path (a node file) is about to be written
	Remove Kind = "del"   // Path (a node file) is about to be deleted
	Move   Kind = "move"  // Path is about to be renamed to To (a file outside git)
	Born   Kind = "born"  // Path (a file outside git, a new payload) is about to be created
	Dir    Kind = "dir"   // Path (a directory) is about to be created
)

// Record is one line of the log.
type Record struct {
	Kind Kind   `json:"k"`
	Path string `json:"p,omitempty"`
	To   string `json:"to,omitempty"`
	Base string `json:"base,omitempty"`
	Op   string `json:"op,omitempty"`
	At   int64  `json:"at,omitempty"` // Begin: when, in Unix nanoseconds
}

// Log is the intent log of one forest. Its zero value is unusable; make
// one with New. A Log is used by one writer at a time (the forest's
// writer lock and mutex see to that) and is not safe for concurrent use.
type Log struct {
	path string
	f    *os.File
}

// New returns the log kept in gitDir.
func New(gitDir string) *Log { return &Log{path: filepath.Join(gitDir, FileName)} }

// Path is the log file's location.
func (l *Log) Path() string { return l.path }

// Begin starts the log of one write, replacing any earlier one: the
// caller has repaired that first (Pending).
func (l *Log) Begin(op, base string) error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("journal: begin: %w", err)
	}
	l.f = f
	if err := l.Note(Record{Kind: Begin, Base: base, Op: op, At: time.Now().UnixNano()}); err != nil {
		l.f.Close()
		l.f = nil
		return err
	}
	return nil
}

// Active reports whether a write has begun and not ended.
func (l *Log) Active() bool { return l.f != nil }

// Note appends a record; call it before the change it announces.
func (l *Log) Note(r Record) error {
	if l.f == nil {
		return errors.New("journal: note outside a write")
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("journal: note: %w", err)
	}
	if _, err := l.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("journal: note: %w", err)
	}
	return nil
}

// End empties and closes the log: the write it describes is whole,
// committed or undone, and an empty log announces nothing (Pending).
//
// The file is truncated rather than deleted because every write begins a
// log: on a filesystem that skips recently freed inodes when it allocates
// one (ext4 without a journal), deleting and recreating a file per write
// made every later file creation slower as an adopt went on.
func (l *Log) End() error {
	if l.f == nil {
		return nil
	}
	terr := l.f.Truncate(0)
	cerr := l.f.Close()
	l.f = nil
	if terr != nil {
		return fmt.Errorf("journal: end: %w", terr)
	}
	return cerr
}

// Close closes the log of a write that did not commit, keeping it on
// disk for the repair that follows (Pending, then Discard).
func (l *Log) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Pending is the log a dead writer left: its records from Begin on and the
// time the log was begun, or no records when there is none. A torn last
// line is dropped; a log without a readable Begin is reported as an error,
// since nothing says what it describes.
func (l *Log) Pending() ([]Record, time.Time, error) {
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("journal: read: %w", err)
	}
	recs := Parse(data)
	switch {
	case len(recs) == 0:
		return nil, time.Time{}, nil // killed inside the first record: nothing began
	case recs[0].Kind != Begin:
		return nil, time.Time{}, fmt.Errorf("journal: %s does not start with a begin record", FileName)
	}
	return recs, time.Unix(0, recs[0].At), nil
}

// Discard empties a pending log once it has been repaired (see End for
// why it is not deleted).
func (l *Log) Discard() error {
	if err := os.Truncate(l.path, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: discard: %w", err)
	}
	return nil
}

// Parse reads the records of a log, stopping at the first line that does
// not parse (a torn write is always the last line).
func Parse(data []byte) []Record {
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Kind == "" {
			break
		}
		out = append(out, r)
	}
	return out
}
