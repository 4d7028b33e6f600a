// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestSnapshotCreateAndRestore(t *testing.T) {
	dir, man := testforest.Fixture(t)
	out := t.TempDir()
	before := testforest.TreeDigest(t, dir)

	code, stdout, _ := runCLI(t, "", "snapshot", "create", "--forest", dir, "--out", out, "--json")
	require.Equal(t, exitOK, code, stdout)
	var created struct {
		File            string `json:"file"`
		Bytes           int64  `json:"bytes"`
		Payloads        int    `json:"payloads"`
		PayloadsOmitted int    `json:"payloads_omitted"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &created))
	assert.Equal(t, out, filepath.Dir(created.File))
	assert.True(t, strings.HasSuffix(created.File, ".forest"))
	assert.Positive(t, created.Bytes)
	assert.Positive(t, created.Payloads)
	assert.Zero(t, created.PayloadsOmitted)
	assert.Equal(t, before, testforest.TreeDigest(t, dir))

	dest := filepath.Join(t.TempDir(), "copy")
	code, stdout, _ = runCLI(t, "", "snapshot", "restore", created.File, "--forest", dest, "--json")
	require.Equal(t, exitOK, code, stdout)
	var restored struct {
		Forest           string `json:"forest"`
		Nodes            int    `json:"nodes"`
		RestoredPayloads int    `json:"restored_payloads"`
		PayloadsMissing  int    `json:"payloads_missing"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &restored))
	assert.Equal(t, len(man.Nodes), restored.Nodes)
	assert.Equal(t, created.Payloads, restored.RestoredPayloads)
	assert.Zero(t, restored.PayloadsMissing)

	code, stdout, _ = runCLI(t, "", "call", "query", "--forest", dest,
		`{"id": "finance/ledger-2026", "sql": "SELECT count(*) AS n FROM ledger"}`)
	require.Equal(t, exitOK, code, stdout)
	assert.Contains(t, stdout, `"rows":[[330]]`)

	code, stdout, _ = runCLI(t, "", "snapshot", "restore", "--forest", dest, created.File)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, `"code":"E_SCHEMA"`)
	assert.Contains(t, stdout, "restore target is not empty")
}

func TestSnapshotPlainOutput(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	out := t.TempDir()
	code, stdout, _ := runCLI(t, "", "snapshot", "create", "--no-payloads", "--forest", dir, "--out", out)
	require.Equal(t, exitOK, code, stdout)
	assert.Regexp(t, `^wrote .*\.forest \(\d+ bytes\): 0 payloads packed, \d+ omitted\n`, stdout)
	assert.Contains(t, stdout, "metadata only")

	des, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, des, 1)
	dest := filepath.Join(t.TempDir(), "meta")
	code, stdout, _ = runCLI(t, "", "snapshot", "restore", filepath.Join(out, des[0].Name()), "--forest", dest)
	require.Equal(t, exitOK, code, stdout)
	assert.Regexp(t, `^restored .*meta: \d+ nodes, 0 payloads restored, [1-9]\d* payloads missing\n$`, stdout)
}

func TestSnapshotUsageAndRefusals(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no action", []string{"snapshot"}, exitUsage, "name the action first"},
		{"flag first", []string{"snapshot", "--forest", dir}, exitUsage, "name the action first"},
		{"unknown action", []string{"snapshot", "export", "--forest", dir}, exitUsage, `unknown action "export"`},
		{"create without forest", []string{"snapshot", "create"}, exitUsage, "--forest DIR is required"},
		{"create with a file", []string{"snapshot", "create", "x.forest", "--forest", dir}, exitUsage, "takes no arguments"},
		{"restore without file", []string{"snapshot", "restore", "--forest", dir}, exitUsage, "name one snapshot file"},
		{"restore without forest", []string{"snapshot", "restore", "x.forest"}, exitUsage, "--forest NEWDIR is required"},
		{"restore with a bad ceiling", []string{"snapshot", "restore", "x.forest", "--forest", "y", "--max-bytes", "0"}, exitUsage, "--max-bytes got 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, stderr, tc.msg)
		})
	}

	code, stdout, _ := runCLI(t, "", "snapshot", "create", "--forest", dir, "--out", filepath.Join(dir, "inside"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, `"code":"E_SCHEMA"`)
	assert.NotContains(t, stdout, dir, "no machine path on the wire")

	code, stdout, _ = runCLI(t, "", "snapshot", "restore", filepath.Join(t.TempDir(), "none.forest"), "--forest", filepath.Join(t.TempDir(), "x"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, `"code":"E_NOT_FOUND"`)
}

func TestSnapshotCreateToS3(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("backups"))
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("MONKEYLLM_S3_ENDPOINT", srv.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	out := t.TempDir()

	code, stdout, stderr := runCLI(t, "", "snapshot", "create", "--forest", dir, "--out", out, "--to", "s3://backups/nightly/")
	require.Equal(t, exitOK, code, stdout+stderr)
	des, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, des, 1, "the local file is kept")
	name := des[0].Name()
	assert.Contains(t, stdout, "sent to s3://backups/nightly/"+name+"\n")
	assert.Contains(t, stderr, "upload: ", "the upload draws progress like the packing")

	obj, err := backend.GetObject("backups", "nightly/"+name, nil)
	require.NoError(t, err)
	defer obj.Contents.Close()
	got, err := io.ReadAll(obj.Contents)
	require.NoError(t, err)
	local, err := os.ReadFile(filepath.Join(out, name))
	require.NoError(t, err)
	assert.Equal(t, local, got)
}

func TestSnapshotCreateToRefusals(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	out := t.TempDir()
	before := testforest.TreeDigest(t, dir)
	for _, to := range []string{"ftp://host/x.forest", "file://" + filepath.ToSlash(dir) + "/"} {
		code, stdout, _ := runCLI(t, "", "snapshot", "create", "--forest", dir, "--out", out, "--to", to)
		assert.Equal(t, exitFailure, code, to)
		assert.Contains(t, stdout, `"code":"E_SCHEMA"`, to)
		assert.Contains(t, stdout, "'to'", to)
	}
	des, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, des, "a refused target writes no file")
	assert.Equal(t, before, testforest.TreeDigest(t, dir))
}
