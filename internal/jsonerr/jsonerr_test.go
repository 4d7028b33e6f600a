// SPDX-License-Identifier: Apache-2.0

package jsonerr

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"query":`, "invalid JSON at offset 9: unexpected end of input"},
		{``, "invalid JSON at offset 0: unexpected end of input"},
		{`  `, "invalid JSON at offset 2: unexpected end of input"},
		{`not json`, "invalid JSON at offset 1: invalid character 'o' in literal null (expecting 'u')"},
		{`{} x`, "invalid JSON at offset 3: invalid character 'x' after top-level value"},
		{`{"a" 1}`, "invalid JSON at offset 5: invalid character '1' after object key"},
		{`[1,]`, "invalid JSON at offset 3: invalid character ']' looking for beginning of value"},
		{"{\"a\":\"\x01\"}", `invalid JSON at offset 6: invalid character '\x01' in string literal`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			err := Check([]byte(tt.in))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var e *Error
			require.True(t, errors.As(err, &e))
			assert.LessOrEqual(t, e.Offset, int64(len(tt.in)))
		})
	}
	for _, ok := range []string{`{}`, ` [1, 2] `, `"s"`, `null`, `3`} {
		assert.NoError(t, Check([]byte(ok)), ok)
	}
}

// FuzzCheck: Check agrees with json.Valid, and its offset lies within the
// input.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":`, `[1,]`, "\xff", `{} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		if json.Valid(data) != (err == nil) {
			t.Fatalf("Check(%q) = %v, Valid = %v", data, err, json.Valid(data))
		}
		var e *Error
		if errors.As(err, &e) && (e.Offset < 0 || e.Offset > int64(len(data))) {
			t.Fatalf("offset %d outside %d bytes", e.Offset, len(data))
		}
	})
}
