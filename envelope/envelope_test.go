// SPDX-License-Identifier: Apache-2.0

package envelope

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarshalOrderAndHint(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"no hint", New(NotFound, "no such node: a/b", ""),
			`{"code":"E_NOT_FOUND","message":"no such node: a/b"}`},
		{"hint", New(Schema, "bad k", "k is an integer"),
			`{"code":"E_SCHEMA","message":"bad k","hint":"k is an integer"}`},
		{"data after hint, in order", New(Moved, "moved: a", "follow moved_to").With("moved_to", "b/a").With("n", 2),
			`{"code":"E_MOVED","message":"moved: a","hint":"follow moved_to","moved_to":"b/a","n":2}`},
		{"data never shadows code", New(Locked, "held", "").With("code", "X").With("message", "Y"),
			`{"code":"E_LOCKED","message":"held"}`},
		{"no html escaping", New(Schema, "expected <id>", ""),
			`{"code":"E_SCHEMA","message":"expected <id>"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.err.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
			assert.Equal(t, `{"error":`+tt.want+`}`, string(tt.err.Body()))
		})
	}
}

func TestWithReplacesExistingKey(t *testing.T) {
	e := New(Anchored, "x", "").With("anchor_count", 1).With("anchor_count", 3)
	v, ok := e.Get("anchor_count")
	require.True(t, ok)
	assert.Equal(t, 3, v)
	assert.Len(t, e.Data, 1)
}

func TestHTTPStatus(t *testing.T) {
	want := map[Code]int{
		NotFound: 404, Moved: 404, Schema: 400, Frontmatter: 400, QueryInvalid: 400,
		ReadOnly: 403, QueryForbidden: 403, Forbidden: 403, Timeout: 504,
		Locked: 409, Anchored: 409, Internal: 500, Code("E_OTHER"): http.StatusBadRequest,
	}
	for code, status := range want {
		assert.Equal(t, status, code.HTTPStatus(), code)
	}
	assert.Len(t, Codes, 12)
}

func TestFromAndCodeOf(t *testing.T) {
	orig := New(NotFound, "gone", "")
	wrapped := fmt.Errorf("look: %w", orig)
	assert.Same(t, orig, From("look", wrapped))
	assert.Equal(t, NotFound, CodeOf(wrapped))
	assert.Equal(t, Code(""), CodeOf(errors.New("plain")))
	assert.Nil(t, From("look", nil))

	internal := From("scan", &customErr{"secret /srv/path detail"})
	assert.Equal(t, Internal, internal.Code)
	assert.NotContains(t, internal.Message, "secret")
	assert.Contains(t, internal.Message, "scan")
	assert.Contains(t, internal.Message, "customErr")
}

type customErr struct{ s string }

func (c *customErr) Error() string { return c.s }

// TestDetailKeepsTheCause: the wire never sees what From turned into
// E_INTERNAL, while the log the hint points at can still print it.
func TestDetailKeepsTheCause(t *testing.T) {
	cause := &customErr{"stat /srv/forest/x.md: file name too long"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"internal built from an error", From("plant", cause), cause.s},
		{"internal wrapped again", fmt.Errorf("outer: %w", From("plant", cause)), cause.s},
		{"a refusal is its own detail", New(NotFound, "gone", ""), "E_NOT_FOUND: gone"},
		{"a plain error", errors.New("plain"), "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Detail(tt.err))
		})
	}
	e := From("plant", cause)
	assert.ErrorIs(t, e, cause, "errors.Is sees the cause")
	assert.NotContains(t, string(e.Body()), "srv", "the cause never reaches the wire")
	assert.Nil(t, New(Internal, "x", "").Unwrap())
}
