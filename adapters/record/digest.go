// SPDX-License-Identifier: Apache-2.0

package record

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxKept is the longest stringified argument a digest keeps; a longer
// one is replaced by "<N chars>".
const MaxKept = 80

// maxArgs bounds the arguments a digest names: a caller sending
// thousands of made-up parameters (refused, but still recorded) does not
// get a row of thousands.
const maxArgs = 32

// moreKey names the count of arguments past maxArgs.
const moreKey = "…"

// withheld are arguments that carry a node's body, a document or a
// secret: recorded by size only, however short (spec 09 §9: never
// bodies, snippets, secrets, key material).
var withheld = map[string]bool{
	"node": true, "patch": true, "files": true, // plant, graft, ingest: bodies
	"body": true, "text": true, "b64": true, "markdown": true, "content": true,
	"password": true, "api_key": true, "key": true, "secret": true, "token": true,
}

// withheldFor are arguments withheld for one primitive only: tend's SQL
// carries the row values it writes, which are a dataset's body, while
// query's SQL is kept (short) so the trail reconstructs what was asked.
var withheldFor = map[string][]string{"tend": {"sql"}}

// Args is an argument digest: argument name → its stringified value,
// clipped. It renders as a JSON object with sorted keys.
type Args map[string]string

// String renders a as compact JSON, keys sorted, "<" and ">" unescaped
// (the digest is stored and read as text, never put in HTML).
func (a Args) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(mapKeys(a)) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, k)
		b.WriteByte(':')
		writeString(&b, a[k])
	}
	b.WriteByte('}')
	return b.String()
}

// MarshalJSON renders a as String does.
func (a Args) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

// With returns a copy of a with key set to value, clipped: what a surface
// adds beside the caller's arguments (ingest's job, a store hit's
// cache_key).
func (a Args) With(key, value string) Args {
	out := make(Args, len(a)+1)
	for k, v := range a {
		out[k] = v
	}
	out[Clip(key)] = Clip(value)
	return out
}

// Clip keeps s when it is at most MaxKept characters (runes), else
// answers "<N chars>".
func Clip(s string) string {
	if n := utf8.RuneCountInString(s); n > MaxKept {
		return "<" + strconv.Itoa(n) + " chars>"
	}
	return s
}

// Digest is the argument digest of a call to primitive whose arguments
// are the JSON object raw (spec 09 §9): each top-level argument
// stringified (a string as itself, anything else as compact JSON) and
// clipped; an argument carrying a body or a secret becomes "<N chars>"
// whatever its length; a null argument is absent, as on the wire. Empty
// raw, or raw that is not a JSON object, digests to no arguments: such a
// call was refused before it had any.
func Digest(primitive string, raw []byte) Args {
	var obj map[string]json.RawMessage
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil {
		return Args{}
	}
	return digestObject(primitive, obj)
}

// DigestValues is the digest of arguments a host already holds as Go
// values (a governance act's target and label): each marshalled and
// clipped as Digest does; a value that does not marshal is dropped.
func DigestValues(primitive string, args map[string]any) Args {
	obj := make(map[string]json.RawMessage, len(args))
	for k, v := range args {
		if b, err := json.Marshal(v); err == nil {
			obj[k] = b
		}
	}
	return digestObject(primitive, obj)
}

func digestObject(primitive string, obj map[string]json.RawMessage) Args {
	out := Args{}
	keys := slices.Sorted(mapKeys(obj))
	for i, k := range keys {
		if i == maxArgs {
			out[moreKey] = "<" + strconv.Itoa(len(keys)-maxArgs) + " more>"
			break
		}
		v := bytes.TrimSpace(obj[k])
		if string(v) == "null" {
			continue
		}
		s := stringify(v)
		if withheld[k] || slices.Contains(withheldFor[primitive], k) {
			s = "<" + strconv.Itoa(utf8.RuneCountInString(s)) + " chars>"
		}
		out[Clip(k)] = Clip(s)
	}
	return out
}

// stringify is a JSON value as text: a string unquoted, anything else
// compacted.
func stringify(v json.RawMessage) string {
	if len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// commitFields caches, per result type, the index of its top-level
// field serialized as "commit" (-1 when it has none).
var commitFields sync.Map // reflect.Type → int

// CommitOf is the commit a result carries: the value of its top-level
// "commit" field (a string, or a non-nil *string), as the wire shows it;
// "" when it has none. A surface fills Call.CommitSHA with it, without
// knowing each primitive's result type.
func CommitOf(result any) string {
	v := reflect.ValueOf(result)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	i := commitField(v.Type())
	if i < 0 {
		return ""
	}
	f := v.Field(i)
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return ""
		}
		f = f.Elem()
	}
	return f.String()
}

func commitField(t reflect.Type) int {
	if i, ok := commitFields.Load(t); ok {
		return i.(int)
	}
	idx := -1
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.IsExported() && name == "commit" && ft.Kind() == reflect.String {
			idx = i
			break
		}
	}
	commitFields.Store(t, idx)
	return idx
}
