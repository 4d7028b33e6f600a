// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/payload"
)

// TestS3SettingsFromTheEnvironment: the engine reads no environment, so
// the command passes MONKEYLLM_S3_ENDPOINT and AWS_REGION to the fetcher
// of every forest it opens, served or not.
func TestS3SettingsFromTheEnvironment(t *testing.T) {
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket("forest"))
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	_, err := backend.PutObject("forest", "k.db", meta, bytes.NewReader([]byte("from the store")), 14, nil)
	require.NoError(t, err)
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv(payload.EnvS3Endpoint, srv.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")

	for name, f := range map[string]payload.Fetcher{"command": payloadFetcher(), "serve": servedFetcher("")} {
		var b bytes.Buffer
		require.NoError(t, f.Fetch(context.Background(), "s3://forest/k.db", &b), name)
		assert.Equal(t, "from the store", b.String(), name)
	}

	t.Setenv(payload.EnvS3Endpoint, "ftp://nowhere")
	err = payloadFetcher().Fetch(context.Background(), "s3://forest/k.db", &bytes.Buffer{})
	assert.ErrorContains(t, err, payload.EnvS3Endpoint, "a malformed endpoint fails the fetch, naming the variable")
}

// TestHarvestCapFromTheEnvironment: MONKEYLLM_HARVEST_MAX_K reaches the
// harvest primitive through the command, read anew for every command; a
// malformed cap is refused by the sweep, naming the variable.
func TestHarvestCapFromTheEnvironment(t *testing.T) {
	t.Cleanup(func() { vine.SetHarvestMaxK("") })
	dir, _ := testforest.Fixture(t)
	t.Setenv(vine.HarvestMaxKEnv, "1")
	code, out, _ := runCLI(t, "", "call", "harvest", "--forest", dir, `{"query": "cooperative members", "k": 5}`)
	require.Equal(t, exitOK, code, out)
	var res vine.HarvestResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Len(t, res.Results, 1, "k 5 under cap 1")

	t.Setenv(vine.HarvestMaxKEnv, "banana")
	code, out, _ = runCLI(t, "", "call", "harvest", "--forest", dir, `{"query": "cooperative members"}`)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"E_SCHEMA"`)
	assert.Contains(t, out, vine.HarvestMaxKEnv)
}
