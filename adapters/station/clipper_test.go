// SPDX-License-Identifier: Apache-2.0

package station

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClipperZip: /clipper.zip is served without a key, after the API
// and before the console (09 §13); an override directory without a
// manifest ships no Clipper; a /v1 path never falls through to it.
func TestClipperZip(t *testing.T) {
	empty := t.TempDir()
	custom := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(custom, "manifest.json"), []byte(`{"manifest_version":3}`), 0o600))
	for _, tc := range []struct {
		name   string
		dir    string
		path   string
		status int
		body   string
	}{
		{"embedded", "", "/clipper.zip", http.StatusOK, "PK"},
		{"override", custom, "/clipper.zip", http.StatusOK, "PK"},
		{"no manifest", empty, "/clipper.zip", http.StatusNotFound, `{"error":{"code":"E_NOT_FOUND","message":"this deployment ships no Clipper build"`},
		{"api first", "", "/v1/clipper.zip", http.StatusNotFound, `{"error":{"code":"E_NOT_FOUND"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestStation(t, func(o *Options) { o.ClipperDir = tc.dir })
			r := ts.call("GET", tc.path, "", nil)
			assert.Equal(t, tc.status, r.status)
			assert.Contains(t, r.body[:min(len(r.body), len(tc.body))], tc.body)
		})
	}
	ts := newTestStation(t, nil)
	res, err := http.Get(ts.url + "/clipper.zip")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, `attachment; filename="monkeyllm-clipper.zip"`, res.Header.Get("Content-Disposition"))
	assert.NotEmpty(t, res.Header.Get("Content-Security-Policy"), "the Station's headers cover it too")
	req, _ := http.NewRequest("GET", ts.url+"/clipper.zip", nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotModified, res.StatusCode)
}
