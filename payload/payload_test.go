// SPDX-License-Identifier: Apache-2.0

package payload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fileURI is the file:// URI of a local path.
func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

func TestSchemeAndIsRemote(t *testing.T) {
	for _, tc := range []struct {
		in     string
		scheme string
	}{
		{"s3://bucket/key.db", "s3"},
		{"file:///srv/x.db", "file"},
		{"git+ssh://host/x", "git+ssh"},
		{"ledger.db", ""},
		{"_assets/a.png", ""},
		{"S3://bucket/key", ""}, // G.9: schemes are lower case
		{"3s://bucket/key", ""},
		{"s3:/bucket/key", ""},
		{"", ""},
	} {
		assert.Equal(t, tc.scheme, Scheme(tc.in), tc.in)
		assert.Equal(t, tc.scheme != "", IsRemote(tc.in), tc.in)
	}
}

func TestRegistryDispatchesByScheme(t *testing.T) {
	var got string
	reg := Registry{"mem": fetchFunc(func(_ context.Context, uri string, w io.Writer) error {
		got = uri
		_, err := io.WriteString(w, "bytes")
		return err
	})}
	var buf bytes.Buffer
	require.NoError(t, reg.Fetch(context.Background(), "mem://a/b", &buf))
	assert.Equal(t, "mem://a/b", got)
	assert.Equal(t, "bytes", buf.String())

	err := reg.Fetch(context.Background(), "s3://b/k", &buf)
	var se *SchemeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "s3", se.Scheme)
	assert.Equal(t, []string{"mem"}, se.Served)
	assert.Contains(t, err.Error(), `"s3"`)

	err = reg.Fetch(context.Background(), "plain.db", &buf)
	require.ErrorAs(t, err, &se)
	assert.Empty(t, se.Scheme)

	def := DefaultRegistry()
	assert.Contains(t, def, "file")
	assert.Contains(t, def, "s3")
}

func TestFileFetcher(t *testing.T) {
	dir := t.TempDir()
	data := []byte("sqlite bytes")
	name := filepath.Join(dir, "sales q1.db")
	require.NoError(t, os.WriteFile(name, data, 0o644))
	outside := filepath.Join(t.TempDir(), "secret.db")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.db")))

	for _, tc := range []struct {
		name     string
		fetcher  FileFetcher
		uri      string
		want     []byte
		notExist bool
	}{
		{"plain", FileFetcher{}, fileURI(name), data, false},
		{"localhost host", FileFetcher{}, "file://localhost" + (&url.URL{Path: filepath.ToSlash(name)}).EscapedPath(), data, false},
		{"missing", FileFetcher{}, fileURI(filepath.Join(dir, "nope.db")), nil, true},
		{"directory", FileFetcher{}, fileURI(dir), nil, true},
		{"other host", FileFetcher{}, "file://example.org/x.db", nil, true},
		{"no path", FileFetcher{}, "file://", nil, true},
		{"inside root", FileFetcher{Root: dir}, fileURI(name), data, false},
		{"outside root", FileFetcher{Root: dir}, fileURI(outside), nil, true},
		{"symlink out of root", FileFetcher{Root: dir}, fileURI(filepath.Join(dir, "link.db")), nil, true},
		{"unconfined symlink", FileFetcher{}, fileURI(filepath.Join(dir, "link.db")), []byte("x"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tc.fetcher.Fetch(context.Background(), tc.uri, &buf)
			if tc.notExist {
				require.Error(t, err)
				assert.ErrorIs(t, err, fs.ErrNotExist)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, buf.Bytes())
		})
	}

	var se *SchemeError
	require.ErrorAs(t, FileFetcher{}.Fetch(context.Background(), "s3://b/k", io.Discard), &se)
}

func TestFileFetcherStopsWithContext(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.db")
	require.NoError(t, os.WriteFile(name, []byte("data"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := FileFetcher{}.Fetch(ctx, fileURI(name), io.Discard)
	assert.ErrorIs(t, err, context.Canceled)
}

// countingFetcher serves fixed bytes for any URI and counts the calls.
type countingFetcher struct {
	data  []byte
	calls atomic.Int32
	delay time.Duration
	err   error
}

func (f *countingFetcher) Fetch(_ context.Context, _ string, w io.Writer) error {
	f.calls.Add(1)
	time.Sleep(f.delay)
	if f.err != nil {
		io.WriteString(w, "partial")
		return f.err
	}
	_, err := w.Write(f.data)
	return err
}

type fetchFunc func(ctx context.Context, uri string, w io.Writer) error

func (f fetchFunc) Fetch(ctx context.Context, uri string, w io.Writer) error { return f(ctx, uri, w) }

// entries lists the cache directory.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

func TestCacheName(t *testing.T) {
	uri := "s3://bucket/sales/q1.db"
	s := sha256.Sum256([]byte(uri))
	assert.Equal(t, hex.EncodeToString(s[:])[:16]+"-q1.db", CacheName(uri))
	assert.NotEqual(t, CacheName("s3://a/q1.db"), CacheName("s3://b/q1.db"), "one basename, two entries")
	c := Cache{Dir: "cache"}
	assert.Equal(t, filepath.Join("cache", CacheName(uri)), c.Path(uri))
}

func TestCacheGet(t *testing.T) {
	data := []byte("the dataset")
	uri := "mem://bucket/ledger.db"

	t.Run("miss fetches, hit touches", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "payloads")
		f := &countingFetcher{data: data}
		clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		c := Cache{Dir: dir, Fetcher: f, Now: func() time.Time { return clock }}

		p, fetched, err := c.Get(context.Background(), uri, sum(data))
		require.NoError(t, err)
		assert.True(t, fetched)
		assert.Equal(t, c.Path(uri), p)
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, data, got)
		assert.Equal(t, []string{CacheName(uri)}, entries(t, dir), "no scratch file left")

		clock = clock.Add(time.Hour)
		p2, fetched, err := c.Get(context.Background(), uri, sum(data))
		require.NoError(t, err)
		assert.False(t, fetched)
		assert.Equal(t, p, p2)
		assert.EqualValues(t, 1, f.calls.Load())
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.True(t, fi.ModTime().Equal(clock), "a hit touches the mtime the LRU orders by")

		ok, err := c.Cached(uri, sum(data))
		require.NoError(t, err)
		assert.True(t, ok)
	})

	t.Run("hash mismatch leaves nothing", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "payloads")
		c := Cache{Dir: dir, Fetcher: &countingFetcher{data: data}}
		_, _, err := c.Get(context.Background(), uri, sum([]byte("other")))
		var he *HashError
		require.ErrorAs(t, err, &he)
		assert.Equal(t, sum(data), he.Got)
		assert.Equal(t, sum([]byte("other")), he.Want)
		assert.Empty(t, entries(t, dir))
	})

	t.Run("fetch failure leaves nothing", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "payloads")
		boom := errors.New("connection reset")
		c := Cache{Dir: dir, Fetcher: &countingFetcher{err: boom}}
		_, _, err := c.Get(context.Background(), uri, "")
		assert.ErrorIs(t, err, boom)
		assert.Empty(t, entries(t, dir))
	})

	t.Run("stale entry is refetched", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "payloads")
		f := &countingFetcher{data: data}
		c := Cache{Dir: dir, Fetcher: f}
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(c.Path(uri), []byte("tampered"), 0o644))
		ok, err := c.Cached(uri, sum(data))
		require.NoError(t, err)
		assert.False(t, ok)
		assert.NoFileExists(t, c.Path(uri), "a failing entry is deleted")

		require.NoError(t, os.WriteFile(c.Path(uri), []byte("tampered"), 0o644))
		p, fetched, err := c.Get(context.Background(), uri, sum(data))
		require.NoError(t, err)
		assert.True(t, fetched)
		got, _ := os.ReadFile(p)
		assert.Equal(t, data, got)
	})

	t.Run("rewritten entry is rehashed", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "payloads")
		f := &countingFetcher{data: data}
		c := Cache{Dir: dir, Fetcher: f}
		p, _, err := c.Get(context.Background(), uri, sum(data))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, []byte("same size!!"), 0o644))
		_, fetched, err := c.Get(context.Background(), uri, sum(data))
		require.NoError(t, err)
		assert.True(t, fetched, "the remembered proof does not outlive a rewrite")
	})

	t.Run("no hash accepts the bytes", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "payloads")
		f := &countingFetcher{data: data}
		c := Cache{Dir: dir, Fetcher: f}
		_, fetched, err := c.Get(context.Background(), uri, "")
		require.NoError(t, err)
		assert.True(t, fetched)
		_, fetched, err = c.Get(context.Background(), uri, "")
		require.NoError(t, err)
		assert.False(t, fetched)
	})
}

func TestCacheFetchesOnceUnderConcurrency(t *testing.T) {
	data := []byte(strings.Repeat("row", 1000))
	f := &countingFetcher{data: data, delay: 20 * time.Millisecond}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = Cache{Dir: dir, Fetcher: f}.Get(context.Background(), "mem://b/k.db", sum(data))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	assert.EqualValues(t, 1, f.calls.Load())
}

func TestCacheWithFileFetcher(t *testing.T) {
	src := filepath.Join(t.TempDir(), "ledger.db")
	data := []byte("ledger bytes")
	require.NoError(t, os.WriteFile(src, data, 0o644))
	c := Cache{Dir: t.TempDir(), Fetcher: DefaultRegistry()}
	p, fetched, err := c.Get(context.Background(), fileURI(src), sum(data))
	require.NoError(t, err)
	assert.True(t, fetched)
	assert.True(t, strings.HasSuffix(p, "-ledger.db"))

	_, _, err = c.Get(context.Background(), fileURI(src+".gone"), "")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// FuzzURI checks the URI readers: no panic, and what they accept has the
// shape they promise.
func FuzzURI(f *testing.F) {
	for _, s := range []string{"s3://b/k.db", "file:///x/y.db", "file://localhost/a%20b.db", "s3://b/", "s3:///k",
		"file://h/x", "ledger.db", "s3://b/a/../k", "file:///%00", "http://[::1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		if s := Scheme(uri); s != "" {
			require.True(t, strings.HasPrefix(uri, s+"://"))
		}
		if bucket, key, err := splitS3(uri); err == nil {
			require.Equal(t, "s3://"+bucket+"/"+key, uri)
			require.NotEmpty(t, bucket)
			require.NotContains(t, bucket, "/")
		}
		if p, err := filePath(uri); err == nil {
			require.True(t, filepath.IsAbs(p))
			require.Equal(t, filepath.Clean(p), p)
		}
		if host, _, err := s3Endpoint(uri); err == nil {
			require.NotEmpty(t, host)
		}
	})
}
