// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/payload"
)

// countedFetcher passes fetches through and counts them.
type countedFetcher struct {
	next  payload.Fetcher
	calls atomic.Int32
}

func (c *countedFetcher) Fetch(ctx context.Context, uri string, w io.Writer) error {
	c.calls.Add(1)
	return c.next.Fetch(ctx, uri, w)
}

// remoteFixture is the fixture forest opened with fetcher, plus a copy of
// the ledger dataset outside the forest and its sha256.
func remoteFixture(t *testing.T, fetcher payload.Fetcher) (v *Vine, dir, ledger, hash string) {
	t.Helper()
	dir, _ = testforest.Fixture(t)
	ledger = filepath.Join(t.TempDir(), "ledger remote.db")
	src, err := os.ReadFile(filepath.Join(dir, "finance", "ledger-2026.db"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ledger, src, 0o644))
	return openT(t, dir, &Options{Now: plantClock, Fetcher: fetcher}), dir, ledger, fileSHA(t, ledger)
}

// plantRemote plants a dataset node under finance whose payload is uri.
func plantRemote(t *testing.T, v *Vine, id, uri, hash string) {
	t.Helper()
	_, err := v.Plant(context.Background(), NodeSpec{
		ID: id, Type: "dataset", Title: "Remote ledger " + filepath.Base(id), Parent: "finance/_index",
		Summary: "The cooperative ledger, kept in object storage and read through the cache.",
		Payload: uri, PayloadType: "sqlite", PayloadHash: hash,
	}, PlantOptions{})
	require.NoError(t, err)
}

func fileURL(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(dir, forest.DerivedDir, "payloads"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

func TestQueryFetchesRemotePayloadOnMiss(t *testing.T) {
	t.Parallel()
	f := &countedFetcher{next: payload.Registry{"file": payload.FileFetcher{}}}
	v, dir, ledger, hash := remoteFixture(t, f)
	ctx := context.Background()
	uri := fileURL(ledger)
	plantRemote(t, v, "finance/ledger-remote", uri, hash)

	res, err := v.Query(ctx, "finance/ledger-remote", "SELECT count(*) FROM ledger")
	require.NoError(t, err)
	assert.Equal(t, int64(330), res.Rows[0][0])
	assert.Equal(t, []string{payload.CacheName(uri)}, cacheEntries(t, dir), "the copy lives at the G.9 cache path")
	assert.EqualValues(t, 1, f.calls.Load())

	_, err = v.Query(ctx, "finance/ledger-remote", "SELECT count(*) FROM ledger")
	require.NoError(t, err)
	assert.EqualValues(t, 1, f.calls.Load(), "a hit does not fetch again")

	cached := filepath.Join(dir, forest.DerivedDir, "payloads", payload.CacheName(uri))
	require.NoError(t, os.WriteFile(cached, []byte("tampered"), 0o644))
	_, err = v.Query(ctx, "finance/ledger-remote", "SELECT count(*) FROM ledger")
	require.NoError(t, err, "a copy that fails its hash is dropped and fetched again")
	assert.EqualValues(t, 2, f.calls.Load())
}

func TestQueryRemotePayloadRefusals(t *testing.T) {
	t.Parallel()
	f := &countedFetcher{next: payload.Registry{"file": payload.FileFetcher{}}}
	v, dir, ledger, hash := remoteFixture(t, f)
	ctx := context.Background()
	plantRemote(t, v, "finance/ledger-badhash", fileURL(ledger), "0000000000000000000000000000000000000000000000000000000000000000")
	plantRemote(t, v, "finance/ledger-gone", fileURL(ledger+".gone"), hash)
	plantRemote(t, v, "finance/ledger-gopher", "gopher://archive/ledger.db", hash)
	before := testforest.TreeDigest(t, dir)
	commit := head(t, dir)

	_, err := v.Query(ctx, "finance/ledger-badhash", "SELECT count(*) FROM ledger")
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "do not match its payload_hash")
	assert.Empty(t, cacheEntries(t, dir), "a mismatch caches nothing, not even a scratch file")

	_, err = v.Query(ctx, "finance/ledger-gone", "SELECT count(*) FROM ledger")
	e = refusal(t, err, envelope.NotFound)
	assert.Contains(t, e.Message, "payload missing: file://")

	_, err = v.Query(ctx, "finance/ledger-gopher", "SELECT count(*) FROM ledger")
	e = refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, `"gopher"`)
	assert.Contains(t, e.Hint, "schemes served: file")

	assert.Equal(t, before, testforest.TreeDigest(t, dir))
	assert.Equal(t, commit, head(t, dir), "reads never commit")
}

func TestTendRefusesRemotePayloadWithoutFetching(t *testing.T) {
	t.Parallel()
	f := &countedFetcher{next: payload.Registry{"file": payload.FileFetcher{}}}
	v, dir, ledger, hash := remoteFixture(t, f)
	ctx := context.Background()
	plantRemote(t, v, "finance/ledger-remote", fileURL(ledger), hash)
	_, err := v.Query(ctx, "finance/ledger-remote", "SELECT count(*) FROM ledger")
	require.NoError(t, err, "warm the cache: a cached copy must not make tend willing")
	before, commit := testforest.TreeDigest(t, dir), head(t, dir)
	ledgerBefore := fileSHA(t, ledger)

	_, err = v.Tend(ctx, "finance/ledger-remote", "DELETE FROM ledger WHERE 1")
	e := refusal(t, err, envelope.QueryForbidden)
	assert.Contains(t, e.Message, "remote payload")
	assert.Contains(t, e.Hint, "fork")
	assert.EqualValues(t, 1, f.calls.Load(), "tend fetches nothing")
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
	assert.Equal(t, commit, head(t, dir))
	assert.Equal(t, ledgerBefore, fileSHA(t, ledger), "the remote bytes are untouched")
	cached := filepath.Join(dir, forest.DerivedDir, "payloads", payload.CacheName(fileURL(ledger)))
	assert.Equal(t, hash, fileSHA(t, cached), "and so is the cached copy")
}

// payloadS3 serves bucket "coop" with the given objects in process and
// returns a fetcher for it.
func payloadS3(t *testing.T, objects map[string][]byte) payload.Fetcher {
	t.Helper()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("coop"))
	for key, data := range objects {
		meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
		_, err := backend.PutObject("coop", key, meta, bytes.NewReader(data), int64(len(data)), nil)
		require.NoError(t, err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	s3, err := payload.NewS3Fetcher(payload.S3Config{Endpoint: srv.URL, Region: "us-east-1", AccessKey: "id", SecretKey: "secret"})
	require.NoError(t, err)
	return payload.Registry{"s3": s3}
}

func TestQueryAndPrefetchFromS3(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	src, err := os.ReadFile(filepath.Join(dir, "finance", "ledger-2026.db"))
	require.NoError(t, err)
	fetcher := &countedFetcher{next: payloadS3(t, map[string][]byte{"ledgers/2026.db": src, "ledgers/old.db": []byte("not the passport's bytes")})}
	var progress []Progress
	v := openT(t, dir, &Options{Now: plantClock, Fetcher: fetcher, Progress: func(p Progress) {
		if p.Op == "prefetch" {
			progress = append(progress, p)
		}
	}})
	ctx := context.Background()
	hash := fileSHA(t, filepath.Join(dir, "finance", "ledger-2026.db"))
	plantRemote(t, v, "finance/ledger-s3", "s3://coop/ledgers/2026.db", hash)
	plantRemote(t, v, "finance/ledger-s3-copy", "s3://coop/ledgers/2026.db", hash)
	plantRemote(t, v, "finance/ledger-stale", "s3://coop/ledgers/old.db", hash)
	plantRemote(t, v, "finance/ledger-lost", "s3://coop/ledgers/lost.db", hash)

	res, err := v.Query(ctx, "finance/ledger-s3", "SELECT count(*) FROM ledger")
	require.NoError(t, err)
	assert.Equal(t, int64(330), res.Rows[0][0])
	assert.EqualValues(t, 1, fetcher.calls.Load())

	pre, err := v.Prefetch(ctx, "finance")
	require.NoError(t, err)
	assert.Equal(t, "finance", pre.Scope)
	assert.Empty(t, pre.Fetched, "both passports name the one object already cached")
	assert.Equal(t, 2, pre.AlreadyLocal)
	require.Len(t, pre.Errors, 2)
	assert.Contains(t, pre.Errors[0], "finance/ledger-lost: payload missing: s3://coop/ledgers/lost.db")
	assert.Contains(t, pre.Errors[1], "finance/ledger-stale: ")
	assert.Contains(t, pre.Errors[1], "payload_hash")
	require.NotEmpty(t, progress)
	assert.Equal(t, Progress{Op: "prefetch", Done: 4, Total: 4}, progress[len(progress)-1])

	require.NoError(t, os.RemoveAll(filepath.Join(dir, forest.DerivedDir, "payloads")))
	pre, err = v.Prefetch(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, "_index", pre.Scope)
	assert.Equal(t, []string{"finance/ledger-s3"}, pre.Fetched, "one object, fetched once for both passports")
	assert.Equal(t, 1, pre.AlreadyLocal)

	_, err = v.Prefetch(ctx, "nowhere")
	refusal(t, err, envelope.NotFound)
}
