// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Edge lists are read as one JSON value that SQLite aggregates, not a row
// per edge: through database/sql each row costs more than SQLite takes to
// find it, and a hub has thousands of in-edges (1,800 rows took 4.5 ms at
// 100,000 nodes).

// triple is one [text, text, number] element of an aggregated edge list.
type triple struct {
	a, b string
	n    float64
}

// decodeTriples parses [[a, b, n], ...]; nil when empty. Elements without
// escapes are split directly; anything else goes through encoding/json,
// so both agree.
func decodeTriples(s string) ([]triple, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	if out, ok := plainTriples(s); ok {
		return out, nil
	}
	var raw [][3]any
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, err
	}
	out := make([]triple, len(raw))
	for i, e := range raw {
		a, ok1 := e[0].(string)
		b, ok2 := e[1].(string)
		n, ok3 := e[2].(float64)
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("element %d: want [text, text, number], got %v", i, e)
		}
		out[i] = triple{a, b, n}
	}
	return out, nil
}

// plainTriples is the fast path of decodeTriples, for SQLite's compact
// rendering (no white space) of strings without escapes; ok is false for
// anything else.
func plainTriples(s string) ([]triple, bool) {
	if strings.IndexByte(s, '\\') >= 0 || !strings.HasPrefix(s, "[[") || !strings.HasSuffix(s, "]]") {
		return nil, false
	}
	out := make([]triple, 0, strings.Count(s, "],[")+1)
	for _, elem := range strings.Split(s[2:len(s)-2], "],[") {
		a, rest, ok := plainString(elem)
		if !ok || !strings.HasPrefix(rest, ",") {
			return nil, false
		}
		b, rest, ok := plainString(rest[1:])
		if !ok || !strings.HasPrefix(rest, ",") {
			return nil, false
		}
		n, err := strconv.ParseFloat(rest[1:], 64)
		if err != nil || !json.Valid([]byte(rest[1:])) {
			return nil, false
		}
		out = append(out, triple{a, b, n})
	}
	return out, true
}

// plainString reads a leading JSON string without escapes or control
// characters and returns it with the rest of s.
func plainString(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", "", false
	}
	str := s[1 : 1+end]
	if strings.ContainsFunc(str, func(r rune) bool { return r < 0x20 || r == 0xFFFD }) {
		return "", "", false
	}
	return str, s[2+end:], true
}
