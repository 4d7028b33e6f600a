// SPDX-License-Identifier: Apache-2.0

package jsonlimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		depth, token int
		limit        string // "" for no refusal
		offset       int64
	}{
		{"flat object", `{"a": 1, "b": [true, null]}`, 2, 0, "", 0},
		{"at the depth limit", `[[[]]]`, 3, 0, "", 0},
		{"one past the depth limit", `[[[[]]]]`, 3, 0, "depth", 3},
		{"brackets inside strings do not nest", `["[[[[[[", "{{{{"]`, 1, 0, "", 0},
		{"escaped quote stays inside the string", `["\"[[[[", 1]`, 1, 0, "", 0},
		{"escaped backslash ends the escape", `["\\", [[1]]]`, 2, 0, "depth", 8},
		{"string at the token limit", `"abcd"`, 0, 4, "", 0},
		{"string past the token limit", `"abcde"`, 0, 4, "token", 5},
		{"escapes count as written", `"\n\n\n"`, 0, 5, "token", 6},
		{"bare number past the token limit", `[123456]`, 0, 5, "token", 6},
		{"tokens reset at separators", `[1234, 1234, 1234]`, 0, 4, "", 0},
		{"no bounds", strings.Repeat("[", 1000), 0, 0, "", 0},
		{"stray closers do not go negative", `]]]][[`, 2, 0, "", 0},
		{"malformed within limits passes", `{"a" 1 ]`, 4, 4, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.in), tt.depth, tt.token)
			if tt.limit == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a %s refusal", err, tt.limit)
			}
			if e.Limit != tt.limit || e.Offset != tt.offset {
				t.Fatalf("got %s at %d, want %s at %d", e.Limit, e.Offset, tt.limit, tt.offset)
			}
			if !strings.Contains(e.Error(), "limit of") {
				t.Fatalf("message does not name the limit: %s", e.Error())
			}
		})
	}
}

func TestScannerStaysRefused(t *testing.T) {
	s := Scanner{MaxDepth: 1}
	if _, err := s.Write([]byte("[[")); err == nil {
		t.Fatal("want a refusal")
	}
	if n, err := s.Write([]byte("]")); err == nil || n != 0 {
		t.Fatalf("a refused scanner accepted more: %d, %v", n, err)
	}
}

func TestCheckReaderStreams(t *testing.T) {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if err := CheckReader(strings.NewReader(deep), 100, 0); err != nil {
		t.Fatal(err)
	}
	err := CheckReader(strings.NewReader(deep), 99, 0)
	var e *Error
	if !errors.As(err, &e) || e.Offset != 99 {
		t.Fatalf("got %v, want depth at byte 99", err)
	}
}

// FuzzScanner: any bytes, split anywhere, give the verdict of one whole
// write; on valid JSON the deepest nesting seen is the decoded value's.
func FuzzScanner(f *testing.F) {
	f.Add([]byte(`{"a": [1, {"b": "]]"}], "c": "\\\""}`), 3)
	f.Add([]byte(`[[[[[]]]]]`), 2)
	f.Add([]byte(`"\\\\\"[["`), 1)
	f.Add([]byte(`]{[}`), 0)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		whole := Scanner{MaxDepth: 4, MaxToken: 8}
		_, wholeErr := whole.Write(data)
		parts := Scanner{MaxDepth: 4, MaxToken: 8}
		cut := 0
		if len(data) > 0 {
			cut = (split%len(data) + len(data)) % len(data)
		}
		_, partsErr := parts.Write(data[:cut])
		if partsErr == nil {
			_, partsErr = parts.Write(data[cut:])
		}
		if (wholeErr == nil) != (partsErr == nil) || (wholeErr != nil && wholeErr.Error() != partsErr.Error()) {
			t.Fatalf("split at %d changed the verdict: %v vs %v", cut, wholeErr, partsErr)
		}
		if !json.Valid(data) {
			return
		}
		free := Scanner{}
		if _, err := free.Write(data); err != nil {
			t.Fatalf("no bounds, yet refused: %v", err)
		}
		if got, want := free.deepest, tokenDepth(t, data); got != want {
			t.Fatalf("deepest %d, encoding/json's tokens nest %d", got, want)
		}
	})
}

// tokenDepth is how deep encoding/json's tokens of valid data nest (its
// tokens, not a decoded value: a repeated key drops the earlier value).
func tokenDepth(t *testing.T, data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // 1E700 is valid JSON, not a float64
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return deepest
		}
		if err != nil {
			t.Fatalf("valid JSON, yet %v", err)
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			deepest = max(deepest, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}
