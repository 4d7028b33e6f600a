// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
)

// NewFrontmatter returns a frontmatter holding fields in the given order.
// Values are normalized as Set does; a repeated key keeps its first
// position and its last value, as a YAML mapping read by the reference
// does.
func NewFrontmatter(fields ...Field) *Frontmatter {
	f := &Frontmatter{fields: make([]Field, 0, len(fields))}
	for _, fd := range fields {
		f.Set(fd.Key, fd.Value)
	}
	return f
}

// Len is the number of keys. A nil frontmatter has none.
func (f *Frontmatter) Len() int {
	if f == nil {
		return 0
	}
	return len(f.fields)
}

// Keys lists the keys in file order.
func (f *Frontmatter) Keys() []string {
	if f == nil {
		return nil
	}
	keys := make([]string, len(f.fields))
	for i, fd := range f.fields {
		keys[i] = fd.Key
	}
	return keys
}

// Fields returns the fields in order. The slice is a copy; nested lists
// and mappings are shared with f (use Clone for a deep copy).
func (f *Frontmatter) Fields() []Field {
	if f == nil {
		return nil
	}
	return slices.Clone(f.fields)
}

// Get returns the value stored under key and whether the key is present.
// A key present with a YAML null yields (nil, true).
func (f *Frontmatter) Get(key string) (any, bool) {
	if i := f.index(key); i >= 0 {
		return f.fields[i].Value, true
	}
	return nil, false
}

// Has reports whether key is present, even with a null value.
func (f *Frontmatter) Has(key string) bool { return f.index(key) >= 0 }

// String returns the value under key as text: a string as is, a number
// or boolean formatted the way the YAML writer renders it. It is "" when
// the key is absent, null, a list or a mapping — readers are lenient and
// treat a value of the wrong shape as absent.
func (f *Frontmatter) String(key string) string {
	v, _ := f.Get(key)
	s, _ := scalarText(v)
	return s
}

// Set replaces the value of key in place, or appends key at the end when
// it is new, so rewrites keep the file's order (spec §2.7). v is
// normalized to string, bool, int64, float64, nil, []any or *Frontmatter;
// other types are converted (integers widen, maps become ordered
// mappings with sorted keys, unknown types are formatted with fmt).
func (f *Frontmatter) Set(key string, v any) {
	v = normalizeValue(v)
	if i := f.index(key); i >= 0 {
		f.fields[i].Value = v
		return
	}
	f.fields = append(f.fields, Field{Key: key, Value: v})
}

// Delete removes key and reports whether it was present.
func (f *Frontmatter) Delete(key string) bool {
	i := f.index(key)
	if i < 0 {
		return false
	}
	f.fields = slices.Delete(f.fields, i, i+1)
	return true
}

// Clone returns a deep copy: nested lists and mappings are copied too, so
// editing the clone never reaches f. A nil frontmatter clones to nil.
func (f *Frontmatter) Clone() *Frontmatter {
	if f == nil {
		return nil
	}
	c := &Frontmatter{fields: make([]Field, len(f.fields))}
	for i, fd := range f.fields {
		c.fields[i] = Field{Key: fd.Key, Value: cloneValue(fd.Value)}
	}
	return c
}

func (f *Frontmatter) index(key string) int {
	if f == nil {
		return -1
	}
	for i := range f.fields {
		if f.fields[i].Key == key {
			return i
		}
	}
	return -1
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	case *Frontmatter:
		return t.Clone()
	default:
		return v
	}
}

// scalarText renders a scalar value as text; ok is false for nil, lists
// and mappings.
func scalarText(v any) (s string, ok bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case float64:
		return formatFloat(t), true
	}
	return "", false
}

// normalizeValue maps any Go or decoded-YAML value onto the frontmatter's
// closed set of value types. Strings are made valid UTF-8 because YAML
// cannot carry raw bytes: an invalid byte would otherwise fail the next
// read of the file.
func normalizeValue(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case string:
		return validUTF8(t)
	case bool:
		return t
	case int64:
		return t
	case float64:
		return t
	case int:
		return int64(t)
	case int8:
		return int64(t)
	case int16:
		return int64(t)
	case int32:
		return int64(t)
	case uint8:
		return int64(t)
	case uint16:
		return int64(t)
	case uint32:
		return int64(t)
	case uint:
		return normalizeUint(uint64(t))
	case uint64:
		return normalizeUint(t)
	case float32:
		return float64(t)
	case *Frontmatter:
		if t == nil {
			return nil
		}
		return normalizeMapping(t.fields)
	case Frontmatter:
		return normalizeMapping(t.fields)
	case yaml.MapSlice:
		fields := make([]Field, len(t))
		for i, it := range t {
			fields[i] = Field{Key: keyText(it.Key), Value: it.Value}
		}
		return normalizeMapping(fields)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalizeValue(e)
		}
		return out
	case []string:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = validUTF8(e)
		}
		return out
	case time.Time:
		return formatTime(t)
	case []byte:
		return bytesText(t)
	case fmt.Stringer:
		return validUTF8(t.String())
	}
	return normalizeReflect(v)
}

// normalizeUint keeps integers that fit int64; larger ones become their
// decimal text, which the writer quotes, so they survive unchanged.
func normalizeUint(u uint64) any {
	if u > math.MaxInt64 {
		return strconv.FormatUint(u, 10)
	}
	return int64(u)
}

// normalizeMapping builds a nested mapping; a repeated key keeps its first
// position and its last value.
func normalizeMapping(fields []Field) *Frontmatter {
	f := &Frontmatter{fields: make([]Field, 0, len(fields))}
	for _, fd := range fields {
		f.Set(validUTF8(fd.Key), fd.Value)
	}
	return f
}

// normalizeReflect handles slices and maps of any element type. Go maps
// have no order, so their keys are sorted to keep output deterministic.
func normalizeReflect(v any) any {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalizeValue(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		fields := make([]Field, 0, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			fields = append(fields, Field{Key: keyText(iter.Key().Interface()), Value: iter.Value().Interface()})
		}
		slices.SortFunc(fields, func(a, b Field) int { return strings.Compare(a.Key, b.Key) })
		return normalizeMapping(fields)
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		return normalizeValue(rv.Elem().Interface())
	case reflect.String:
		return validUTF8(rv.String())
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return normalizeUint(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	return validUTF8(fmt.Sprint(v))
}

// keyText turns a decoded mapping key into the string the frontmatter
// stores; YAML allows scalar keys of any type.
func keyText(k any) string {
	switch t := k.(type) {
	case string:
		return validUTF8(t)
	case nil:
		return "null"
	}
	if s, ok := scalarText(normalizeValue(k)); ok {
		return s
	}
	return validUTF8(fmt.Sprint(k))
}

// formatTime keeps a date a date: midnight UTC values come from a YAML
// date, anything else from a full timestamp.
func formatTime(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 && t.Location() == time.UTC {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

// bytesText renders a YAML !!binary value: as text when it is UTF-8, else
// as the base64 the file spelled it with.
func bytesText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
