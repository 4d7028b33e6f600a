// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceLines parses every line of a trace file, failing on a torn one.
func traceLines(t *testing.T, path string) []Event {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "a whole line: %q", sc.Text())
		out = append(out, e)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestTracersShareOneFileInWholeLines: two Tracers on one directory, as
// two processes on one forest are, append to one session concurrently
// through their open files; every line is whole and none is lost.
func TestTracersShareOneFileInWholeLines(t *testing.T) {
	dir := t.TempDir()
	a, b := NewTracer(dir), NewTracer(dir)
	long := strings.Repeat("x", 6000) // past a pipe's atomic size: one write per line still
	var wg sync.WaitGroup
	for i := range 200 {
		tr, prim := a, "look"
		if i%2 == 1 {
			tr, prim = b, "move"
		}
		if i%10 == 0 {
			prim += long
		}
		wg.Go(func() { assert.NoError(t, tr.Append(Event{Session: "shared", Primitive: prim, TokensOut: i})) })
	}
	wg.Wait()
	require.NoError(t, a.CloseFiles())
	require.NoError(t, b.CloseFiles())
	events := traceLines(t, filepath.Join(dir, "shared.jsonl"))
	require.Len(t, events, 200)
	seen := map[int]bool{}
	for _, e := range events {
		seen[e.TokensOut] = true
	}
	assert.Len(t, seen, 200, "every event once")
}

// TestCloseFilesClosesAndAppendReopens: CloseFiles releases the open
// descriptors, and the Tracer keeps working after it.
func TestCloseFilesClosesAndAppendReopens(t *testing.T) {
	dir := t.TempDir()
	tr := NewTracer(dir)
	require.NoError(t, tr.Append(Event{Session: "s1", Primitive: "look"}))
	require.NoError(t, tr.Append(Event{Session: "s2", Primitive: "look"}))
	held := []*os.File{tr.files.open["s1"].f, tr.files.open["s2"].f}
	require.NoError(t, tr.CloseFiles())
	assert.Empty(t, tr.files.open)
	for _, f := range held {
		_, err := f.Write([]byte("x"))
		assert.ErrorIs(t, err, os.ErrClosed)
	}
	require.NoError(t, tr.Append(Event{Session: "s1", Primitive: "move"}))
	assert.Len(t, traceLines(t, filepath.Join(dir, "s1.jsonl")), 2)
	require.NoError(t, tr.CloseFiles())
}

// TestForgetClosesTheSessionFile: a closed session's file is released
// once its outcome is written.
func TestForgetClosesTheSessionFile(t *testing.T) {
	tr := NewTracer(t.TempDir())
	require.NoError(t, tr.Append(Event{Session: "s1", Primitive: "look"}))
	_, err := tr.Close("s1", false, nil, time.Now())
	require.NoError(t, err)
	tr.Forget("s1")
	assert.NotContains(t, tr.files.open, "s1")
}

// TestRotatedTraceFileIsReopened: a file renamed or removed under the
// open descriptor is noticed at the next identity check, and later events
// go to the file the path names.
func TestRotatedTraceFileIsReopened(t *testing.T) {
	dir := t.TempDir()
	tr := NewTracer(dir)
	path := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, tr.Append(Event{Session: "s1", Primitive: "look"}))
	require.NoError(t, os.Rename(path, path+".1"))
	tr.files.open["s1"].checked = time.Time{} // the check is due
	require.NoError(t, tr.Append(Event{Session: "s1", Primitive: "move"}))
	require.NoError(t, os.Remove(path))
	tr.files.open["s1"].checked = time.Time{}
	require.NoError(t, tr.Append(Event{Session: "s1", Primitive: "pick"}))
	require.NoError(t, tr.CloseFiles())
	assert.Len(t, traceLines(t, path+".1"), 1)
	got := traceLines(t, path)
	require.Len(t, got, 1)
	assert.Equal(t, "pick", got[0].Primitive)
}

// TestOpenTraceFilesAreBounded: a Tracer serving many sessions keeps only
// the most recent few files open, and the rest still get their lines.
func TestOpenTraceFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	tr := NewTracer(dir)
	for round := range 2 {
		for i := range maxOpenTraceFiles + 5 {
			require.NoError(t, tr.Append(Event{Session: "s" + strings.Repeat("i", i+1), Primitive: "look", TokensIn: round}))
			assert.LessOrEqual(t, len(tr.files.open), maxOpenTraceFiles)
		}
	}
	require.NoError(t, tr.CloseFiles())
	for i := range maxOpenTraceFiles + 5 {
		assert.Len(t, traceLines(t, filepath.Join(dir, "s"+strings.Repeat("i", i+1)+".jsonl")), 2)
	}
}
