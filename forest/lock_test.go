// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

// lockHelperEnv names the forest a re-executed test binary locks.
const lockHelperEnv = "VINE_FOREST_LOCK_HELPER"

// TestLockHelperProcess is not a test: run as a child with lockHelperEnv
// set, it takes the writer lock, says "locked", and holds the lock until
// its stdin closes (then releases) or it is killed (then it does not).
func TestLockHelperProcess(t *testing.T) {
	dir := os.Getenv(lockHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	l, err := AcquireLock(dir)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	l.Release()
	os.Exit(0)
}

// lockHolder is a child process holding the lock of dir.
type lockHolder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func startLockHolder(t *testing.T, dir string) *lockHolder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
	return &lockHolder{cmd: cmd, stdin: stdin}
}

func requireLocked(t *testing.T, err error) *envelope.Error {
	t.Helper()
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, envelope.Locked, e.Code)
	hint := strings.ToLower(e.Hint)
	for _, bad := range []string{"delete", "rm ", "remove the"} {
		assert.NotContains(t, hint, bad, "never tell callers to delete files")
	}
	return e
}

var sinceRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$`)

func TestAcquireTwiceInProcess(t *testing.T) {
	dir := t.TempDir()
	l1, err := AcquireLock(dir)
	require.NoError(t, err)

	_, err = AcquireLock(dir)
	e := requireLocked(t, err)
	assert.Contains(t, e.Message, fmt.Sprintf("pid %d", os.Getpid()))
	pid, _ := e.Get("pid")
	assert.Equal(t, os.Getpid(), pid)
	host, _ := os.Hostname()
	if host != "" {
		got, _ := e.Get("host")
		assert.Equal(t, host, got)
	}
	since, ok := e.Get("since")
	require.True(t, ok)
	assert.Regexp(t, sinceRe, since)
	_, ok = e.Get("verified")
	assert.False(t, ok)

	require.NoError(t, l1.Release())
	require.NoError(t, l1.Release(), "releasing twice is a no-op")
	_, err = os.Stat(filepath.Join(dir, LockFile))
	assert.ErrorIs(t, err, os.ErrNotExist, "release unlinks the card")

	l2, err := AcquireLock(dir)
	require.NoError(t, err)
	require.NoError(t, l2.Release())
	var nilLock *Lock
	assert.NoError(t, nilLock.Release())
}

func TestAcquireInMissingDir(t *testing.T) {
	_, err := AcquireLock(filepath.Join(t.TempDir(), "no", "such", "forest"))
	require.Error(t, err)
	assert.NotEqual(t, envelope.Locked, envelope.CodeOf(err), "a missing folder is no contention")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestLockMutualExclusionUnderContention(t *testing.T) {
	dir := t.TempDir()
	var holders, maxHolders, wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				l, err := AcquireLock(dir)
				if err != nil {
					assert.Equal(t, envelope.Locked, envelope.CodeOf(err))
					continue
				}
				n := holders.Add(1)
				for m := maxHolders.Load(); n > m && !maxHolders.CompareAndSwap(m, n); m = maxHolders.Load() {
				}
				wins.Add(1)
				holders.Add(-1)
				assert.NoError(t, l.Release())
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), maxHolders.Load(), "never two writers at once")
	assert.Positive(t, wins.Load())
}

func TestLockCardContent(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, LockFile), []byte(strings.Repeat("x", 500)), 0o644))
	l, err := AcquireLock(dir)
	require.NoError(t, err)
	defer l.Release()
	data, err := os.ReadFile(filepath.Join(dir, LockFile))
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(data, &raw), "the card replaced the old content entirely: %q", data)
	assert.Equal(t, float64(os.Getpid()), raw["pid"])
	assert.Regexp(t, sinceRe, raw["since"])
	assert.Contains(t, raw, "host")
}

func TestOrphanTakenOverSilently(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	card := `{"pid": 999999, "host": "gone", "since": "2026-01-01T00:00:00+00:00"}`
	require.NoError(t, os.WriteFile(path, []byte(card), 0o644))

	p, err := ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockProbe{State: LockOrphan,
		Holder: &LockCard{PID: 999999, Host: "gone", Since: "2026-01-01T00:00:00+00:00"}}, p)
	_, err = os.Stat(path)
	require.NoError(t, err, "probing leaves the orphan in place")

	l, err := AcquireLock(dir)
	require.NoError(t, err, "an orphan never blocks")
	defer l.Release()
	assert.Equal(t, os.Getpid(), readCard(path).PID)
}

func TestReadCard(t *testing.T) {
	tests := []struct {
		content string
		want    LockCard
	}{
		{`{"pid": 42, "host": "h", "since": "s"}`, LockCard{PID: 42, Host: "h", Since: "s"}},
		{"4242\n", LockCard{PID: 4242}},
		{"  17  ", LockCard{PID: 17}},
		{`{"pid": "42", "host": 7}`, LockCard{}},
		{`{"pid": 1.5}`, LockCard{}},
		{`{"pid": -3}`, LockCard{}},
		{"garbage", LockCard{}},
		{"[1,2]", LockCard{}},
		{"", LockCard{}},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), LockFile)
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))
			assert.Equal(t, tt.want, readCard(path))
		})
	}
	assert.Equal(t, LockCard{}, readCard(filepath.Join(t.TempDir(), "missing")))
}

func TestProbeAndRemoveOrphan(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)

	p, err := ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockProbe{State: LockFree}, p)
	p, err = RemoveOrphanLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockProbe{State: LockFree, Removed: ptr(false)}, p)

	l, err := AcquireLock(dir)
	require.NoError(t, err)
	p, err = ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockHeld, p.State)
	assert.Nil(t, p.Verified)
	require.NotNil(t, p.Holder)
	assert.Equal(t, os.Getpid(), p.Holder.PID)
	_, err = RemoveOrphanLock(dir)
	requireLocked(t, err)
	_, err = os.Stat(path)
	require.NoError(t, err, "a held lock is never removed")
	require.NoError(t, l.Release())

	require.NoError(t, os.WriteFile(path, []byte("4242"), 0o644))
	p, err = RemoveOrphanLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockProbe{State: LockOrphan, Removed: ptr(true), Holder: &LockCard{PID: 4242}}, p)
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist)

	data, err := json.Marshal(LockProbe{State: LockHeld, Verified: ptr(false), Holder: &LockCard{}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"state":"held","verified":false,"holder":{}}`, string(data))
}

func TestReleaseSparesAnotherWritersFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	l1, err := AcquireLock(dir)
	require.NoError(t, err)
	require.NoError(t, os.Remove(path)) // someone deleted a held lock
	l2, err := AcquireLock(dir)
	require.NoError(t, err)
	require.NoError(t, l1.Release())
	_, err = os.Stat(path)
	require.NoError(t, err, "the first holder's release left the second's file alone")
	p, err := ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockHeld, p.State)
	require.NoError(t, l2.Release())
}

// withTryLock replaces the kernel lock attempt for one test.
func withTryLock(t *testing.T, fn func(*os.File) (lockState, error)) {
	t.Helper()
	saved := tryLockFile
	tryLockFile = fn
	t.Cleanup(func() { tryLockFile = saved })
}

func TestAcquireRetriesOnUnlinkedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	calls := 0
	withTryLock(t, func(f *os.File) (lockState, error) {
		calls++
		st, err := platformTryLock(f)
		if calls == 1 {
			// A releaser unlinked the file just after we locked it.
			require.NoError(t, os.Remove(path))
		}
		return st, err
	})
	l, err := AcquireLock(dir)
	require.NoError(t, err)
	assert.Equal(t, 2, calls, "the identity check failed once, then the fresh file was taken")
	withTryLock(t, platformTryLock)
	p, err := ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockHeld, p.State, "the file at the path is the one held")
	require.NoError(t, l.Release())
}

func TestAcquireGivesUpWhenContended(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	withTryLock(t, func(f *os.File) (lockState, error) {
		calls++
		st, err := platformTryLock(f)
		os.Remove(filepath.Join(dir, LockFile))
		return st, err
	})
	_, err := AcquireLock(dir)
	e := requireLocked(t, err)
	assert.Contains(t, e.Message, "contended")
	assert.Equal(t, acquireTries, calls)
}

func TestExclusiveCreateFallback(t *testing.T) {
	withTryLock(t, func(*os.File) (lockState, error) { return lockUnsupported, nil })
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)

	l, err := AcquireLock(dir)
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), readCard(path).PID)
	_, err = AcquireLock(dir)
	e := requireLocked(t, err)
	verified, ok := e.Get("verified")
	assert.True(t, ok)
	assert.Equal(t, false, verified)

	p, err := ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockHeld, p.State)
	assert.Equal(t, ptr(false), p.Verified)

	require.NoError(t, l.Release())
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist)

	// A card left by a crash cannot be told from a live one: refuse, never
	// guess, until an operator removes it.
	require.NoError(t, os.WriteFile(path, []byte(`{"pid": 999999}`), 0o644))
	_, err = AcquireLock(dir)
	requireLocked(t, err)
	p, err = RemoveOrphanLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockProbe{State: LockUnverified, Removed: ptr(true), Holder: &LockCard{PID: 999999}}, p)
	l, err = AcquireLock(dir)
	require.NoError(t, err)
	require.NoError(t, l.Release())
}

func TestLockHeldByChildProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	child := startLockHolder(t, dir)
	childPID := child.cmd.Process.Pid

	_, err := AcquireLock(dir)
	e := requireLocked(t, err)
	assert.Contains(t, e.Message, fmt.Sprintf("pid %d", childPID))
	pid, _ := e.Get("pid")
	assert.Equal(t, childPID, pid)

	p, err := ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockHeld, p.State)
	assert.Equal(t, childPID, p.Holder.PID)
	_, err = RemoveOrphanLock(dir)
	requireLocked(t, err)

	// A crash: the card stays behind, the kernel frees the lock.
	require.NoError(t, child.cmd.Process.Kill())
	child.cmd.Wait()
	p, err = ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockOrphan, p.State)
	assert.Equal(t, childPID, p.Holder.PID)

	l, err := AcquireLock(dir)
	require.NoError(t, err, "the lock frees itself when its holder dies")
	require.NoError(t, l.Release())
}

func TestLockReleasedByChildOnExit(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	child := startLockHolder(t, dir)
	require.NoError(t, child.stdin.Close())
	require.NoError(t, child.cmd.Wait())
	p, err := ProbeLock(dir)
	require.NoError(t, err)
	assert.Equal(t, LockProbe{State: LockFree}, p, "a clean release leaves no card")
	l, err := AcquireLock(dir)
	require.NoError(t, err)
	require.NoError(t, l.Release())
}

// TestAcquireLockWait: a writer queues behind a held lock and gets it once
// released; past the wait it hears E_LOCKED naming the holder.
func TestAcquireLockWait(t *testing.T) {
	dir := t.TempDir()
	held, err := AcquireLock(dir)
	require.NoError(t, err)

	_, err = AcquireLockWait(context.Background(), dir, -1)
	assert.Equal(t, envelope.Locked, envelope.CodeOf(err), "a negative wait tries once")
	_, err = AcquireLockWait(context.Background(), dir, 30*time.Millisecond)
	assert.Equal(t, envelope.Locked, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "pid")

	go func() {
		time.Sleep(20 * time.Millisecond)
		held.Release()
	}()
	l, err := AcquireLockWait(context.Background(), dir, 5*time.Second)
	require.NoError(t, err, "the lock passes to the waiter once released")
	require.NoError(t, l.Release())

	again, err := AcquireLock(dir)
	require.NoError(t, err)
	defer again.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = AcquireLockWait(ctx, dir, time.Minute)
	assert.Equal(t, envelope.Locked, envelope.CodeOf(err), "a cancelled wait stops at once")
}
