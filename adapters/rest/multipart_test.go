// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// form builds a multipart body: fields, then one part per file.
func form(t *testing.T, fields map[string]string, files map[string]string) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		require.NoError(t, mw.WriteField(k, v))
	}
	for name, text := range files {
		fw, err := mw.CreateFormFile("file", name)
		require.NoError(t, err)
		fw.Write([]byte(text))
	}
	require.NoError(t, mw.Close())
	return mw.FormDataContentType(), &b
}

func upload(st *station, header, key, ct string, body *bytes.Buffer) reply {
	r := httpRequest(http.MethodPost, "/v1/forests/mare-alta/ingest")
	r.Header.Set("Content-Type", ct)
	if header != "" {
		r.Header.Set(header, key)
	}
	r.Body, r.ContentLength = ioBody(body.String()), int64(body.Len())
	return serve(st, r)
}

func TestMultipartUpload(t *testing.T) {
	st := newStation(t, nil)
	ct, body := form(t, map[string]string{"dest": "operations", "wait": "true"}, map[string]string{
		"tide-log.md":  "# Tide log\n\nThe spring tide reached the harbour wall.\n",
		"crew-list.md": "# Crew list\n\nThe harbour crew for the season.\n",
	})
	r := upload(st, "Authorization", "Bearer "+keyFull, ct, body)
	require.Equal(t, http.StatusOK, r.status, r.body)
	j := jobOf(t, r)
	assert.Equal(t, "done", j["state"])
	assert.Len(t, j["report"].(map[string]any)["planted"], 2)

	ct, body = form(t, nil, map[string]string{"a.md": "# A\n\nAn a.\n"})
	started := upload(st, "X-API-Key", keyFull, ct, body)
	require.Equal(t, http.StatusAccepted, started.status, started.body)
	assert.NotEmpty(t, started.header.Get("Location"))
}

func TestMultipartNeedsAKeyHeader(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.Keys = nil })
	ct, body := form(t, map[string]string{"dest": "operations"}, map[string]string{"a.md": "# A\n\nAn a.\n"})
	testforest.Unchanged(t, st.dir, func() {
		e := envelope(t, upload(st, "", "", ct, body), http.StatusUnsupportedMediaType, vine.ESchema)
		assert.Contains(t, e["message"], "multipart/form-data", "a form a page could post is still refused")
	})
	ct, body = form(t, map[string]string{"dest": "operations", "wait": "true"}, map[string]string{"a.md": "# A\n\nAn a.\n"})
	assert.Equal(t, http.StatusOK, upload(st, "X-API-Key", "any", ct, body).status, "an open server asks for the header, not a key")

	ct, body = form(t, map[string]string{"bogus": "1"}, map[string]string{"a.md": "x"})
	e := envelope(t, upload(st, "X-API-Key", "any", ct, body), http.StatusBadRequest, vine.ESchema)
	assert.Contains(t, e["message"], `unknown form field "bogus"`)

	ct, body = form(t, map[string]string{"wait": "soon"}, map[string]string{"a.md": "x"})
	e = envelope(t, upload(st, "X-API-Key", "any", ct, body), http.StatusBadRequest, vine.ESchema)
	assert.Contains(t, e["message"], "wait")

	r := httpRequest(http.MethodPost, "/v1/forests/mare-alta/look")
	r.Header.Set("Content-Type", ct)
	r.Header.Set("X-API-Key", "any")
	r.Body = ioBody(body.String())
	envelope(t, serve(st, r), http.StatusUnsupportedMediaType, vine.ESchema)
	assert.True(t, strings.HasPrefix(ct, "multipart/form-data"), "only ingest takes a form")
}
