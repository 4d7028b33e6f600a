// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spikeTree builds the seed's tiny worktree: notes/seed.txt holding
// "seed\n", and a .git directory the hash must ignore.
func spikeTree(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "spike_wt")
	writeFile(t, filepath.Join(root, "notes", "seed.txt"), "seed\n")
	writeFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	return root
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func mustHash(t testing.TB, root string, skip ...string) string {
	t.Helper()
	h, err := TreeHash(root, skip...)
	require.NoError(t, err)
	return h
}

// snapshot maps every file under root (outside .git) to its content.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && rel == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	}))
	return files
}

// longFixture is the seed's long.txt: a valid header and 41 body lines.
func longFixture() string {
	var b strings.Builder
	b.WriteString("PATH notes/seed.txt\n")
	for i := range 41 {
		fmt.Fprintf(&b, "line %d\n", i+1)
	}
	b.WriteString("END_PATCH\n")
	return b.String()
}

// The seed's decision table, read top to bottom on one tree: every red
// row leaves the tree hash unchanged, and the success row changes
// notes/seed.txt and nothing else.
func TestDecisionTable(t *testing.T) {
	root := spikeTree(t)
	rows := []struct {
		fixture string
		stream  string
		class   Class
		code    int
	}{
		{"trunc.txt", "PATH notes/seed.txt\nseed\n", MissingSentinel, 2},
		{"bad_header.txt", "notes/seed.txt\nseed\nEND_PATCH\n", BadHeader, 3},
		{"forbid.txt", "PATH package-lock.json\n{}\nEND_PATCH\n", Forbidden, 4},
		{"long.txt", longFixture(), TooLong, 5},
	}
	for _, row := range rows {
		t.Run(row.fixture, func(t *testing.T) {
			before := snapshot(t, root)
			res, err := ApplyStream(context.Background(), root, strings.NewReader(row.stream), nil)
			require.NoError(t, err)
			assert.Equal(t, row.class, res.Class, res.Reason)
			assert.Equal(t, row.code, res.Code)
			assert.Equal(t, res.Before, res.After, "a red row must leave the tree hash unchanged")
			assert.NotEmpty(t, res.Reason)
			var ref *Refusal
			require.ErrorAs(t, res.Err, &ref)
			assert.Equal(t, row.class, ref.Class)
			assert.Equal(t, before, snapshot(t, root))
		})
	}
	t.Run("ok.txt", func(t *testing.T) {
		before := snapshot(t, root)
		res, err := ApplyStream(context.Background(), root,
			strings.NewReader("PATH notes/seed.txt\nseed\nplus one line\nEND_PATCH\n"), nil)
		require.NoError(t, err)
		assert.Equal(t, Replaced, res.Class)
		assert.Equal(t, 0, res.Code)
		assert.True(t, res.OK())
		assert.Equal(t, "notes/seed.txt", res.Path)
		assert.Equal(t, 2, res.Lines)
		assert.NotEqual(t, res.Before, res.After)
		assert.Equal(t, mustHash(t, root), res.After)
		after := snapshot(t, root)
		assert.Equal(t, "seed\nplus one line\n", after["notes/seed.txt"])
		delete(before, "notes/seed.txt")
		delete(after, "notes/seed.txt")
		assert.Equal(t, before, after, "the success row changes notes/seed.txt only")
	})
}

// writerFunc adapts a function to Writer.
type writerFunc func(ctx context.Context, root, rel string, content []byte) error

func (f writerFunc) Replace(ctx context.Context, root, rel string, content []byte) error {
	return f(ctx, root, rel, content)
}

// The "any dirty failure" row: a failure that changed the tree is 6,
// whatever failed first, and the hashes differ.
func TestDirtyFailureIsSix(t *testing.T) {
	frame := []byte("PATH notes/seed.txt\nhalf\nEND_PATCH\n")
	tests := []struct {
		name   string
		writer Writer
	}{
		{"half-written target", writerFunc(func(_ context.Context, root, rel string, _ []byte) error {
			require.NoError(t, os.WriteFile(filepath.Join(root, rel), []byte("ha"), 0o644))
			return errors.New("disk full")
		})},
		{"stray temp file", writerFunc(func(_ context.Context, root, _ string, _ []byte) error {
			require.NoError(t, os.WriteFile(filepath.Join(root, "notes", ".patch.tmp"), []byte("x"), 0o644))
			return errors.New("rename failed")
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := spikeTree(t)
			res, err := Apply(context.Background(), root, frame, &Options{Writer: tt.writer})
			require.NoError(t, err)
			assert.Equal(t, Dirty, res.Class)
			assert.Equal(t, 6, res.Code)
			assert.NotEqual(t, res.Before, res.After)
			var ref *Refusal
			require.ErrorAs(t, res.Err, &ref)
			assert.Equal(t, Dirty, ref.Class)
			assert.Contains(t, res.Reason, "write refused")
		})
	}

	t.Run("a refused shape check that still dirtied the tree", func(t *testing.T) {
		root := spikeTree(t)
		res, err := Run(context.Background(), root, func(context.Context) ([]byte, error) {
			writeFile(t, filepath.Join(root, "notes", "seed.txt"), "se") // a naive streaming writer
			return nil, io.ErrUnexpectedEOF
		}, nil)
		require.NoError(t, err)
		assert.Equal(t, Dirty, res.Class)
		assert.Equal(t, 6, res.Code)
		assert.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	})
}

func TestRefusedWriteLeavesTreeUnchanged(t *testing.T) {
	root := spikeTree(t)
	veto := errors.New("node failed validation")
	res, err := Apply(context.Background(), root, []byte("PATH notes/seed.txt\nx\nEND_PATCH\n"),
		&Options{Writer: writerFunc(func(context.Context, string, string, []byte) error { return veto })})
	require.NoError(t, err)
	assert.Equal(t, Refused, res.Class)
	assert.Equal(t, 4, res.Code)
	assert.Equal(t, res.Before, res.After)
	assert.ErrorIs(t, res.Err, veto)
}

func TestWriterDeadlineIsATimeout(t *testing.T) {
	root := spikeTree(t)
	res, err := Apply(context.Background(), root, []byte("PATH notes/seed.txt\nx\nEND_PATCH\n"),
		&Options{Writer: writerFunc(func(context.Context, string, string, []byte) error {
			return context.DeadlineExceeded
		})})
	require.NoError(t, err)
	assert.Equal(t, TimedOut, res.Class)
	assert.Equal(t, 2, res.Code)
	assert.Equal(t, res.Before, res.After)
}

func TestOnDiskChecksFailClosed(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, root, outside string)
		path    string
	}{
		{"directory symlink out of the root", func(t *testing.T, root, outside string) {
			require.NoError(t, os.Symlink(outside, filepath.Join(root, "out")))
		}, "out/victim.txt"},
		{"relative directory symlink out of the root", func(t *testing.T, root, _ string) {
			require.NoError(t, os.Symlink("../outside", filepath.Join(root, "rel")))
		}, "rel/victim.txt"},
		{"symlink inside the root", func(t *testing.T, root, _ string) {
			require.NoError(t, os.Symlink("notes", filepath.Join(root, "alias")))
		}, "alias/seed.txt"},
		{"file symlink", func(t *testing.T, root, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(root, "notes", "link.txt")))
		}, "notes/link.txt"},
		{"target is a directory", func(*testing.T, string, string) {}, "notes"},
		{"file where a directory must be", func(*testing.T, string, string) {}, "notes/seed.txt/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root, outside := filepath.Join(base, "spike_wt"), filepath.Join(base, "outside")
			writeFile(t, filepath.Join(root, "notes", "seed.txt"), "seed\n")
			writeFile(t, filepath.Join(outside, "victim.txt"), "untouched\n")
			tt.prepare(t, root, outside)
			outBefore := mustHash(t, outside)
			res, err := Apply(context.Background(), root, []byte("PATH "+tt.path+"\npwned\nEND_PATCH\n"), nil)
			require.NoError(t, err)
			assert.Equal(t, Forbidden, res.Class, res.Reason)
			assert.Equal(t, 4, res.Code)
			assert.Equal(t, res.Before, res.After)
			assert.Equal(t, outBefore, mustHash(t, outside))
		})
	}
}

func TestNewFileInNewDirectories(t *testing.T) {
	root := spikeTree(t)
	res, err := Apply(context.Background(), root, []byte("PATH a/b/new.txt\nhello\nEND_PATCH\n"), nil)
	require.NoError(t, err)
	require.Equal(t, Replaced, res.Class, res.Reason)
	got, err := os.ReadFile(filepath.Join(root, "a", "b", "new.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(got))
	assertNoTempFiles(t, root)
}

func TestReplaceKeepsPermissionsAndLeavesNoTemp(t *testing.T) {
	root := spikeTree(t)
	target := filepath.Join(root, "notes", "seed.txt")
	require.NoError(t, os.Chmod(target, 0o600))
	res, err := Apply(context.Background(), root, []byte("PATH notes/seed.txt\nnew\nEND_PATCH\n"), nil)
	require.NoError(t, err)
	require.Equal(t, Replaced, res.Class)
	fi, err := os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assertNoTempFiles(t, root)
}

func TestFileWriterUndoesAFailedWrite(t *testing.T) {
	t.Run("rename over a non-empty directory", func(t *testing.T) {
		root := spikeTree(t)
		writeFile(t, filepath.Join(root, "x", "t.txt", "keep"), "k")
		before := mustHash(t, root)
		err := FileWriter{}.Replace(context.Background(), root, "x/t.txt", []byte("c\n"))
		require.Error(t, err)
		assert.Equal(t, before, mustHash(t, root))
		assertNoTempFiles(t, root)
	})
	t.Run("directories made for a failed write are removed", func(t *testing.T) {
		root := spikeTree(t)
		before := mustHash(t, root)
		tooLong := strings.Repeat("n", 300) // the temp file fits, the final name does not
		err := FileWriter{}.Replace(context.Background(), root, "fresh/dir/"+tooLong, []byte("c\n"))
		require.Error(t, err)
		_, statErr := os.Stat(filepath.Join(root, "fresh"))
		assert.True(t, os.IsNotExist(statErr), "fresh/ should be gone, got %v", statErr)
		assert.Equal(t, before, mustHash(t, root))
	})
	t.Run("a cancelled context writes nothing", func(t *testing.T) {
		root := spikeTree(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.ErrorIs(t, FileWriter{}.Replace(ctx, root, "notes/seed.txt", []byte("x")), context.Canceled)
		assert.Equal(t, "seed\n", snapshot(t, root)["notes/seed.txt"])
	})
}

func assertNoTempFiles(t *testing.T, root string) {
	t.Helper()
	for rel := range snapshot(t, root) {
		assert.NotContains(t, rel, ".gate-", "temporary file left behind")
	}
}

// A dropped stream and a hung one both end as exit 2 with the tree hash
// unchanged.
func TestStreamFailuresAreTwo(t *testing.T) {
	tests := []struct {
		name  string
		src   io.Reader
		opts  Options
		ctx   time.Duration
		class Class
	}{
		{"dropped socket", io.MultiReader(strings.NewReader("PATH notes/seed.txt\nse"), errReader{io.ErrUnexpectedEOF}),
			Options{}, 0, MissingSentinel},
		{"hang", hung(t), Options{IdleTimeout: 50 * time.Millisecond}, 0, TimedOut},
		{"slow drip past the context's deadline", &dripReader{data: "PATH notes/seed.txt\nx\nEND_PATCH\n", every: 20 * time.Millisecond},
			Options{IdleTimeout: time.Second}, 100 * time.Millisecond, TimedOut},
		{"slow drip past the total limit", &dripReader{data: "PATH notes/seed.txt\nx\nEND_PATCH\n", every: 20 * time.Millisecond},
			Options{IdleTimeout: time.Second, TotalTimeout: 100 * time.Millisecond}, 0, TimedOut},
		{"clean EOF without sentinel", strings.NewReader("PATH notes/seed.txt\nseed\nEND_PAT"), Options{}, 0, MissingSentinel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := spikeTree(t)
			ctx := context.Background()
			if tt.ctx > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctx)
				defer cancel()
			}
			res, err := ApplyStream(ctx, root, tt.src, &tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.class, res.Class, res.Reason)
			assert.Equal(t, 2, res.Code)
			assert.Equal(t, res.Before, res.After)
			assert.Equal(t, "seed\n", snapshot(t, root)["notes/seed.txt"])
		})
	}
}

func TestOversizedStreamIsFive(t *testing.T) {
	root := spikeTree(t)
	frame := "PATH notes/seed.txt\n" + strings.Repeat("x", 200) + "\nEND_PATCH\n"
	res, err := ApplyStream(context.Background(), root, strings.NewReader(frame), &Options{MaxBytes: 64})
	require.NoError(t, err)
	assert.Equal(t, TooLong, res.Class)
	assert.Equal(t, 5, res.Code)
	assert.ErrorIs(t, res.Err, ErrTooLarge)
	assert.Equal(t, res.Before, res.After)
}

// timeoutErr is how a network client reports a deadline (net.Error).
type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

func TestSourceErrorsClassify(t *testing.T) {
	tests := []struct {
		err   error
		class Class
	}{
		{ErrIdleTimeout, TimedOut},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), TimedOut},
		{timeoutErr{}, TimedOut},
		{ErrTooLarge, TooLong},
		{io.ErrUnexpectedEOF, MissingSentinel},
		{context.Canceled, MissingSentinel},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			root := spikeTree(t)
			res, err := Run(context.Background(), root, func(context.Context) ([]byte, error) { return nil, tt.err }, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.class, res.Class)
			assert.ErrorIs(t, res.Err, tt.err)
			assert.Equal(t, res.Before, res.After)
		})
	}
}

func TestRunRefusesAMissingRoot(t *testing.T) {
	_, err := Apply(context.Background(), filepath.Join(t.TempDir(), "absent"), []byte("PATH a\nEND_PATCH\n"), nil)
	require.Error(t, err)
}

func TestExitCodes(t *testing.T) {
	want := map[Class]int{Replaced: 0, MissingSentinel: 2, TimedOut: 2, BadHeader: 3, Forbidden: 4,
		Refused: 4, TooLong: 5, Dirty: 6, Class("unheard-of"): 6}
	for c, code := range want {
		assert.Equal(t, code, c.ExitCode(), c)
	}
}

func TestSkipHashIgnoresDerivedState(t *testing.T) {
	root := spikeTree(t)
	before := mustHash(t, root, "_derived", ".vine.lock")
	writeFile(t, filepath.Join(root, "_derived", "catalog.db"), "rows")
	writeFile(t, filepath.Join(root, ".vine.lock"), "pid")
	assert.Equal(t, before, mustHash(t, root, "_derived", ".vine.lock"))
	assert.NotEqual(t, before, mustHash(t, root))
}

func TestTreeHashMatchesSeedConstruction(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "notes", "seed.txt"), "seed\n")
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref")
	// sha256("notes/seed.txt\x00seed\n\x00"), as the seed's Python checker computes it.
	assert.Equal(t, "3d732b587b151bf3ffae602d8fe3f471b76fbb9a13c4e0db1a245af95a6079c1", mustHash(t, root))
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// blockingReader never delivers: a hung socket.
type blockingReader struct{ release chan struct{} }

func (r blockingReader) Read([]byte) (int, error) {
	<-r.release
	return 0, io.EOF
}

func hung(t testing.TB) blockingReader {
	r := blockingReader{release: make(chan struct{})}
	t.Cleanup(func() { close(r.release) })
	return r
}

// dripReader delivers one byte per tick: never idle, never finished in
// time.
type dripReader struct {
	data  string
	every time.Duration
}

func (r *dripReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, io.EOF
	}
	time.Sleep(r.every)
	p[0], r.data = r.data[0], r.data[1:]
	return 1, nil
}

// chunkReader delivers its data n bytes per Read: a stream arriving in
// pieces, as a model's tokens do.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(r.n, len(p), len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// TestOneFramePerStream: a second frame in the stream, however it
// arrives, is refused with 3 and nothing of either frame is written.
func TestOneFramePerStream(t *testing.T) {
	first := "PATH notes/seed.txt\nfirst\nEND_PATCH\n"
	tests := []struct {
		name   string
		stream string
	}{
		{"two frames", first + "PATH notes/other.txt\nsecond\nEND_PATCH\n"},
		{"the same frame twice", first + first},
		{"a second frame for a forbidden path", first + "PATH .git/config\n[core]\nEND_PATCH\n"},
		{"a body line that is the sentinel", "PATH notes/seed.txt\na\nEND_PATCH\nb\nEND_PATCH\n"},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 7, 1 << 16} {
			t.Run(fmt.Sprintf("%s/%d-byte reads", tt.name, chunk), func(t *testing.T) {
				root := spikeTree(t)
				before := snapshot(t, root)
				res, err := ApplyStream(context.Background(), root, &chunkReader{data: []byte(tt.stream), n: chunk}, nil)
				require.NoError(t, err)
				assert.Equal(t, BadFrame, res.Class, res.Reason)
				assert.Equal(t, 3, res.Code)
				assert.Equal(t, res.Before, res.After)
				assert.Equal(t, before, snapshot(t, root), "nothing of either frame is written")
			})
		}
	}
}

// TestTotalLimitStopsADrip: a stream that never goes idle is abandoned at
// the total limit with 2 and the tree unchanged; the write that follows a
// read in time is not bound by it.
func TestTotalLimitStopsADrip(t *testing.T) {
	root := spikeTree(t)
	drip := &dripReader{data: "PATH notes/seed.txt\n" + strings.Repeat("x", 200) + "\nEND_PATCH\n", every: 5 * time.Millisecond}
	start := time.Now()
	res, err := ApplyStream(context.Background(), root, drip,
		&Options{IdleTimeout: time.Second, TotalTimeout: 60 * time.Millisecond})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), time.Second, "the drip never reset the total limit")
	assert.Equal(t, TimedOut, res.Class)
	assert.Equal(t, 2, res.Code)
	assert.ErrorIs(t, res.Err, ErrTotalTimeout)
	assert.Contains(t, res.Reason, "total read limit (60ms)")
	assert.Equal(t, res.Before, res.After)

	var deadline bool
	res, err = ApplyStream(context.Background(), root, strings.NewReader("PATH notes/seed.txt\nx\nEND_PATCH\n"),
		&Options{TotalTimeout: time.Hour, Writer: writerFunc(func(ctx context.Context, root, rel string, b []byte) error {
			_, deadline = ctx.Deadline()
			return FileWriter{}.Replace(ctx, root, rel, b)
		})})
	require.NoError(t, err)
	assert.True(t, res.OK(), res.Reason)
	assert.False(t, deadline, "the total read limit bounds the read only")
}
