// SPDX-License-Identifier: Apache-2.0

package payload

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeS3 starts an in-process S3 server holding bucket "forest" with the
// given objects, and returns its endpoint URL.
func fakeS3(t *testing.T, objects map[string][]byte) string {
	t.Helper()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("forest"))
	for key, data := range objects {
		// The server's own PUT stamps Last-Modified; a direct backend
		// write must do it, or GET answers an unparsable header.
		meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
		_, err := backend.PutObject("forest", key, meta, bytes.NewReader(data), int64(len(data)), nil)
		require.NoError(t, err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestS3Fetcher(t *testing.T) {
	data := []byte("sqlite bytes from the bucket")
	endpoint := fakeS3(t, map[string][]byte{"sales/q1 2026.db": data})
	f, err := NewS3Fetcher(S3Config{Endpoint: endpoint, Region: "us-east-1", AccessKey: "id", SecretKey: "secret"})
	require.NoError(t, err)

	var buf bytes.Buffer
	require.NoError(t, f.Fetch(context.Background(), "s3://forest/sales/q1 2026.db", &buf))
	assert.Equal(t, data, buf.Bytes())

	for _, uri := range []string{"s3://forest/sales/none.db", "s3://nobucket/sales/q1 2026.db", "s3://forest/", "s3://forest"} {
		err := f.Fetch(context.Background(), uri, &buf)
		assert.ErrorIs(t, err, fs.ErrNotExist, uri)
	}
	var se *SchemeError
	assert.ErrorAs(t, f.Fetch(context.Background(), "file:///x.db", &buf), &se)
}

func TestS3FetcherFromEnvironment(t *testing.T) {
	data := []byte("env configured")
	endpoint := fakeS3(t, map[string][]byte{"k.db": data})
	t.Setenv(EnvS3Endpoint, endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", "id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "us-east-1")

	cfg := S3ConfigFromEnv()
	assert.Equal(t, endpoint, cfg.Endpoint)
	assert.Equal(t, "us-east-1", cfg.Region)

	// The config read from the environment, passed explicitly (as the
	// command does), reaches the store; the keys come from the AWS chain.
	f, err := NewS3Fetcher(cfg)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, Registry{"s3": f}.Fetch(context.Background(), "s3://forest/k.db", &buf))
	assert.Equal(t, data, buf.Bytes())
}

func TestS3CacheRefusesHashMismatch(t *testing.T) {
	data := []byte("bucket bytes")
	endpoint := fakeS3(t, map[string][]byte{"ledger.db": data})
	f, err := NewS3Fetcher(S3Config{Endpoint: endpoint, Region: "us-east-1", AccessKey: "id", SecretKey: "secret"})
	require.NoError(t, err)
	dir := t.TempDir()
	c := Cache{Dir: dir, Fetcher: Registry{"s3": f}}

	_, _, err = c.Get(context.Background(), "s3://forest/ledger.db", sum([]byte("what the passport claims")))
	var he *HashError
	require.ErrorAs(t, err, &he)
	assert.Empty(t, entries(t, dir), "a mismatch leaves no cache file, scratch or final")

	p, fetched, err := c.Get(context.Background(), "s3://forest/ledger.db", sum(data))
	require.NoError(t, err)
	assert.True(t, fetched)
	assert.FileExists(t, p)
}

func TestS3Endpoint(t *testing.T) {
	for _, tc := range []struct {
		in     string
		host   string
		secure bool
		bad    bool
	}{
		{"", "s3.amazonaws.com", true, false},
		{"http://127.0.0.1:9000", "127.0.0.1:9000", false, false},
		{"https://acct.r2.cloudflarestorage.com", "acct.r2.cloudflarestorage.com", true, false},
		{"https://acct.r2.cloudflarestorage.com/", "acct.r2.cloudflarestorage.com", true, false},
		{"minio:9000", "minio:9000", true, false},
		{"ftp://host", "", false, true},
		{"http://", "", false, true},
		{"https://host/bucket", "", false, true},
	} {
		host, secure, err := s3Endpoint(tc.in)
		if tc.bad {
			assert.Error(t, err, tc.in)
			_, nerr := NewS3Fetcher(S3Config{Endpoint: tc.in})
			assert.Error(t, nerr, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.host, host, tc.in)
		assert.Equal(t, tc.secure, secure, tc.in)
	}
}
