package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

