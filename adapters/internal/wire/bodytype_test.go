// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine"
)

func TestCheckBodyType(t *testing.T) {
	tests := []struct {
		name, method, ctype, origin, body string
		want                              string // "" passes; else in the message
	}{
		{"json", "POST", "application/json", "", `{}`, ""},
		{"json with charset", "POST", "application/json; charset=utf-8", "", `{}`, ""},
		{"json upper case", "POST", "Application/JSON; Charset=UTF-8", "", `{}`, ""},
		{"json from a browser", "POST", "application/json", "http://localhost", `{}`, ""},
		{"empty, no type, no origin", "POST", "", "", ``, ""},
		{"empty, no type, with origin", "POST", "", "http://localhost", ``, "no Content-Type was sent; expected application/json"},
		{"body, no type", "POST", "", "", `{}`, "no Content-Type was sent"},
		{"text/plain", "POST", "text/plain", "", `{}`, `Content-Type is "text/plain"; expected application/json`},
		{"form", "POST", "application/x-www-form-urlencoded", "", `a=1`, `"application/x-www-form-urlencoded"`},
		{"multipart", "POST", "multipart/form-data; boundary=x", "", `--x--`, `"multipart/form-data; boundary=x"`},
		{"other charset", "POST", "application/json; charset=latin1", "", `{}`, "JSON is UTF-8"},
		{"json suffix", "POST", "application/merge-patch+json", "", `{}`, "merge-patch"},
		{"unparsable", "POST", "application/json; =", "", `{}`, "expected application/json"},
		{"put", "PUT", "text/plain", "", `{}`, "text/plain"},
		{"patch", "PATCH", "text/plain", "", `{}`, "text/plain"},
		{"delete", "DELETE", "text/plain", "", `x`, "text/plain"},
		{"empty delete from a page", "DELETE", "", "http://localhost", ``, ""},
		{"delete with a body, no type", "DELETE", "", "http://localhost", `{}`, "no Content-Type was sent"},
		{"get ignores the type", "GET", "text/plain", "", ``, ""},
		{"head ignores the type", "HEAD", "", "http://localhost", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/v1/x", strings.NewReader(tt.body))
			if tt.ctype != "" {
				r.Header.Set("Content-Type", tt.ctype)
			}
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			e := CheckBodyType(r)
			if tt.want == "" {
				assert.Nil(t, e)
				return
			}
			if assert.NotNil(t, e) {
				assert.Equal(t, vine.ESchema, e.Code)
				assert.Contains(t, e.Message, tt.want)
				assert.Contains(t, e.Hint, "Content-Type: application/json")
			}
		})
	}
	assert.Equal(t, http.StatusUnsupportedMediaType, BodyTypeStatus)
}

func TestCheckIsWhatGuardDoes(t *testing.T) {
	h := NewHosts([]string{"localhost:8800"})
	r := httptest.NewRequest(http.MethodGet, "/v1/me", nil)
	r.Host = "localhost:8800"
	status, e := h.Check(r)
	assert.Zero(t, status)
	assert.Nil(t, e)
	r.Header.Set("Origin", "http://evil.example")
	status, e = h.Check(r)
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, vine.EForbidden, e.Code)
	r.Host = "evil.example"
	status, e = h.Check(r)
	assert.Equal(t, http.StatusMisdirectedRequest, status, "Host is judged first")
	assert.Equal(t, HostNotAllowed, e.Code)
}
