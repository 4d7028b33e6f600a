// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"bytes"
	"encoding/json"
)

// maxObjectStarts bounds how many opening braces firstObject tries, so a
// reply full of stray braces costs linear time, not quadratic.
const maxObjectStarts = 32

// firstObject returns the first balanced {…} block of a reply that is a
// JSON object (J.10.5: models wrap their one object in prose or code
// fences), or nil. Braces inside JSON strings do not count.
func firstObject(text string) map[string]json.RawMessage {
	s := []byte(text)
	tries := 0
	for i := 0; i < len(s) && tries < maxObjectStarts; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		end := balanced(s[i:])
		if end < 0 {
			continue // an unclosed brace may still hold a whole object
		}
		var obj map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(s[i : i+end]))
		if dec.Decode(&obj) == nil && obj != nil {
			return obj
		}
	}
	return nil
}

// balanced returns the length of the brace-balanced block at the start of
// s (which begins with '{'), skipping braces inside strings, or -1.
func balanced(s []byte) int {
	depth, inString, escaped := 0, false, false
	for i, c := range s {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// ToolCall reads a model reply the way a walk does (J.10.5): the first
// balanced JSON object in it, as {"tool": name, "args": {...}}. Args is
// "{}" when absent or null. ok is false when the reply holds no object
// naming a tool: prose, or a reply cut before its object closed.
func ToolCall(reply string) (tool string, args json.RawMessage, ok bool) {
	obj := firstObject(reply)
	if obj == nil || json.Unmarshal(obj["tool"], &tool) != nil || tool == "" {
		return "", nil, false
	}
	args = obj["args"]
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		args = json.RawMessage("{}")
	}
	return tool, args, true
}
