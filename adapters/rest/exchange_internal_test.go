// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEndAfterAPanic: a handler's panic is logged as a 500, nothing is
// written in its name, and the panic goes on to net/http.
func TestEndAfterAPanic(t *testing.T) {
	var log bytes.Buffer
	s := &Server{access: slog.New(slog.NewTextHandler(&log, nil))}
	rec := httptest.NewRecorder()
	w, r := begin(rec, httptest.NewRequest(http.MethodGet, "/v1/me", nil))
	assert.PanicsWithValue(t, "boom", func() {
		defer s.end(w, r)
		panic("boom")
	})
	assert.Empty(t, rec.Result().Header.Get("Server-Timing"), "no 200 sent for a handler that died")
	assert.Contains(t, log.String(), "status=500")
}
