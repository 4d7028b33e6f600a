// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// fakeS3 starts an in-process S3 server with an empty bucket "backups",
// as the payload fetcher's tests fake the store, and returns its backend
// and endpoint URL.
func fakeS3(t *testing.T) (*s3mem.Backend, string) {
	t.Helper()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("backups"))
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return backend, srv.URL
}

func s3Object(t *testing.T, backend *s3mem.Backend, key string) []byte {
	t.Helper()
	obj, err := backend.GetObject("backups", key, nil)
	require.NoError(t, err)
	defer obj.Contents.Close()
	data, err := io.ReadAll(obj.Contents)
	require.NoError(t, err)
	return data
}

func TestCreateUploadsToS3(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	backend, endpoint := fakeS3(t)
	var ups []vine.Progress
	target := S3Target{Endpoint: endpoint, Region: "us-east-1", AccessKey: "id", SecretKey: "secret"}
	res := create(t, dir, CreateOptions{To: "s3://backups/forests/", Targets: Targets{"s3": target},
		Progress: func(p vine.Progress) {
			if p.Op == "upload" {
				ups = append(ups, p)
			}
		}})

	assert.Equal(t, "s3://backups/forests/mare-alta-20261201T123000Z.forest", res.Uploaded)
	local, err := os.ReadFile(res.File)
	require.NoError(t, err)
	assert.Equal(t, local, s3Object(t, backend, "forests/mare-alta-20261201T123000Z.forest"),
		"the object is the file, byte for byte; the local file is kept")
	require.NotEmpty(t, ups)
	assert.Equal(t, vine.Progress{Op: "upload", Done: 0, Total: int(res.Bytes)}, ups[0])
	assert.Equal(t, vine.Progress{Op: "upload", Done: int(res.Bytes), Total: int(res.Bytes)}, ups[len(ups)-1])

	// A bare bucket receives the file under its own name; a key names it.
	res = create(t, dir, CreateOptions{To: "s3://backups", Targets: Targets{"s3": target}})
	assert.Equal(t, "s3://backups/"+filepath.Base(res.File), res.Uploaded)
	res = create(t, dir, CreateOptions{To: "s3://backups/latest.forest", Targets: Targets{"s3": target}})
	assert.Equal(t, "s3://backups/latest.forest", res.Uploaded)
	assert.NotEmpty(t, s3Object(t, backend, "latest.forest"))
}

func TestCreateUploadsToFile(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	dest := filepath.Join(t.TempDir(), "off site")
	require.NoError(t, os.Mkdir(dest, 0o755))

	// An existing directory, named without a trailing slash.
	res := create(t, dir, CreateOptions{To: "file://" + filepath.ToSlash(dest)})
	want := filepath.Join(dest, filepath.Base(res.File))
	local, err := os.ReadFile(res.File)
	require.NoError(t, err)
	got, err := os.ReadFile(want)
	require.NoError(t, err)
	assert.Equal(t, local, got)
	assert.Equal(t, []string{filepath.Base(res.File)}, entries(t, dest), "no scratch file left beside it")

	// A new file name inside a directory not yet made.
	named := filepath.Join(dest, "deep", "weekly.forest")
	res = create(t, dir, CreateOptions{To: "file://" + filepath.ToSlash(named)})
	assert.FileExists(t, named)
	assert.Equal(t, "file://"+filepath.ToSlash(named), res.Uploaded)

	// The same name again is refused: a snapshot never overwrites.
	before, _ := os.ReadFile(named)
	_, err = Create(context.Background(), dir, CreateOptions{OutDir: t.TempDir(), To: "file://" + filepath.ToSlash(named)})
	require.Error(t, err)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "'to'")
	after, _ := os.ReadFile(named)
	assert.Equal(t, before, after)
	assert.Equal(t, []string{"weekly.forest"}, entries(t, filepath.Dir(named)))
}

func TestCreateRefusesTargetsBeforeWriting(t *testing.T) {
	t.Parallel()
	dir, _ := testforest.Fixture(t)
	before := testforest.TreeDigest(t, dir)
	for _, tc := range []struct {
		to, want string
		targets  Targets
	}{
		{to: "ftp://host/x.forest", want: `scheme "ftp" is not served`},
		{to: "s3://backups/", want: `scheme "s3" is not served`}, // no S3Target configured
		{to: "/backups/x.forest", want: "is not a URI"},
		{to: "file://" + filepath.ToSlash(filepath.Join(dir, "inside")) + "/", want: "inside the forest"},
		{to: "file://elsewhere/x.forest", want: "not a local file URI"},
		{to: "s3://backups/", want: "not http(s)://host", targets: Targets{"s3": S3Target{Endpoint: "ftp://host"}}},
	} {
		out := t.TempDir()
		_, err := Create(context.Background(), dir, CreateOptions{OutDir: out, To: tc.to, Targets: tc.targets})
		require.Error(t, err, tc.to)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err), tc.to)
		assert.Contains(t, err.Error(), tc.want, tc.to)
		if tc.targets == nil {
			assert.Contains(t, err.Error(), "'to'", tc.to, "the refusal names the parameter")
		}
		assert.Empty(t, entries(t, out), "%s: refused before the file is written", tc.to)
	}
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "a refused snapshot leaves the forest byte-identical")
}

func TestTargetURI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ in, want string }{
		{"s3://b", "s3://b/f x.forest"},
		{"s3://b/", "s3://b/f x.forest"},
		{"s3://b/p/", "s3://b/p/f x.forest"},
		{"s3://b/p/k.forest", "s3://b/p/k.forest"},
		{"file:///srv/backups/", "file:///srv/backups/f%20x.forest"},
		{"file://" + filepath.ToSlash(dir), "file://" + filepath.ToSlash(dir) + "/f%20x.forest"},
		{"file:///srv/backups/k.forest", "file:///srv/backups/k.forest"},
	} {
		assert.Equal(t, tc.want, targetURI(tc.in, "f x.forest"), tc.in)
	}
}
