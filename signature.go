// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/jsonerr"
	"github.com/monkeyllm/vine/internal/jsonlimit"
)

// DefaultJSONDepth is how deep a call's JSON arguments may nest unless
// Options.JSONDepth says otherwise. Arguments nest a few levels (rows,
// links, a schema); input nested deeper is refused E_SCHEMA before it is
// decoded, because decoding and re-encoding deep input costs memory per
// level, quadratically where a value is re-decoded or indented per level.
const DefaultJSONDepth = jsonlimit.DefaultDepth

// ParamType is a wire type of the signature table (C.12).
type ParamType string

// The wire types. Nothing is coerced: an integer parameter refuses "3",
// 3.0 and true alike.
const (
	TString        ParamType = "string"
	TInteger       ParamType = "integer"
	TNumber        ParamType = "number"
	TBoolean       ParamType = "boolean"
	TObject        ParamType = "object"
	TStringList    ParamType = "string[]"
	TObjectList    ParamType = "object[]"
	TStringOrList  ParamType = "string|string[]"
	TObjectOrList  ParamType = "object|object[]"
	TBoolOrInteger ParamType = "boolean|integer"
)

// Param is one parameter of a primitive.
type Param struct {
	Name     string    `json:"name"`
	Type     ParamType `json:"type"`
	Required bool      `json:"required,omitempty"`
	Default  any       `json:"default,omitempty"`
	Enum     []string  `json:"enum,omitempty"`
	Doc      string    `json:"doc,omitempty"`
}

// Signature is the wire contract of one primitive: its parameters, its
// token budget, and hints for transports (MCP tool annotations).
type Signature struct {
	Name        string  `json:"name"`
	Doc         string  `json:"doc"`
	Budget      int     `json:"budget,omitempty"`
	Params      []Param `json:"params"`
	ReadOnly    bool    `json:"read_only"`
	Destructive bool    `json:"destructive,omitempty"`
	Idempotent  bool    `json:"idempotent,omitempty"`
}

// Param returns the named parameter.
func (s Signature) Param(name string) (Param, bool) {
	i := slices.IndexFunc(s.Params, func(p Param) bool { return p.Name == name })
	if i < 0 {
		return Param{}, false
	}
	return s.Params[i], true
}

func (s Signature) paramNames() string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// Args are a call's arguments after validation against a Signature:
// absent and null parameters are both absent, every present value has its
// declared type. Values are string, int64, float64, bool,
// map[string]json.RawMessage (objects), []string, or []map[string]json.RawMessage.
type Args struct {
	sig  Signature
	vals map[string]any
	raws map[string]json.RawMessage
}

// DecodeArgs validates raw JSON arguments against sig (C.12): a non-object,
// an unknown parameter, a missing or null required parameter, or a value of
// the wrong type answers E_SCHEMA naming the parameter, what arrived and
// what was expected. Empty input means no arguments. Arguments nesting
// deeper than DefaultJSONDepth are refused E_SCHEMA before anything is
// decoded.
func DecodeArgs(sig Signature, raw []byte) (Args, error) {
	return decodeArgs(sig, raw, DefaultJSONDepth)
}

// decodeArgs is DecodeArgs with the nesting bound of the caller's Vine.
func decodeArgs(sig Signature, raw []byte, depth int) (Args, error) {
	args := Args{sig: sig, vals: map[string]any{}, raws: map[string]json.RawMessage{}}
	if depth <= 0 {
		depth = DefaultJSONDepth
	}
	if err := jsonlimit.Check(raw, depth, 0); err != nil {
		return args, envelope.New(envelope.Schema, fmt.Sprintf("%s: arguments refused: %v", sig.Name, err),
			"arguments nest a few levels; send deeply nested data as a string or a file")
	}
	var obj map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return args, notAnObject(sig, raw)
		}
	}
	for _, name := range sortedKeys(obj) {
		if _, ok := sig.Param(name); !ok {
			return args, envelope.New(envelope.Schema,
				fmt.Sprintf("%s: unknown parameter '%s'", sig.Name, name),
				"accepted parameters: "+sig.paramNames())
		}
	}
	for _, p := range sig.Params {
		rv, present := obj[p.Name]
		isNull := present && bytes.Equal(bytes.TrimSpace(rv), []byte("null"))
		if !present || isNull {
			if p.Required {
				return args, missing(sig, p, isNull)
			}
			continue
		}
		v, err := decodeValue(p, rv)
		if err != nil {
			return args, envelope.New(envelope.Schema,
				fmt.Sprintf("%s: parameter '%s' expects %s, got %s", sig.Name, p.Name, p.Type, arrived(rv)),
				"")
		}
		if len(p.Enum) > 0 {
			if s, ok := v.(string); ok && !slices.Contains(p.Enum, s) {
				return args, envelope.New(envelope.Schema,
					fmt.Sprintf("%s: parameter '%s' got %q, expected one of %s", sig.Name, p.Name, s, strings.Join(p.Enum, ", ")),
					"")
			}
		}
		args.vals[p.Name] = v
		args.raws[p.Name] = rv
	}
	return args, nil
}

// notAnObject refuses arguments that are not one JSON object: malformed
// text by where it breaks (a decoder's own error would name Go types, and
// kindOf would call `{"query":` an object), a valid value by its kind.
func notAnObject(sig Signature, raw []byte) error {
	hint := "pass an object of named parameters: " + sig.paramNames()
	if err := jsonerr.Check(raw); err != nil {
		return envelope.New(envelope.Schema, sig.Name+": "+err.Error(), hint)
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("%s: arguments must be a JSON object, got %s", sig.Name, arrived(raw)), hint)
}

func missing(sig Signature, p Param, isNull bool) error {
	if isNull {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("%s: required parameter '%s' (%s) is null", sig.Name, p.Name, p.Type),
			"null means missing; pass a "+string(p.Type))
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("%s: missing required parameter '%s' (%s)", sig.Name, p.Name, p.Type),
		"accepted parameters: "+sig.paramNames())
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decodeValue checks raw against p's type; errNoMatch means a mismatch.
func decodeValue(p Param, raw json.RawMessage) (any, error) {
	switch p.Type {
	case TString:
		return asString(raw)
	case TInteger:
		return asInteger(raw)
	case TNumber:
		return asNumber(raw)
	case TBoolean:
		return asBool(raw)
	case TObject:
		return asObject(raw)
	case TStringList:
		return asList(raw, asString)
	case TObjectList:
		return asList(raw, asObject)
	case TStringOrList:
		if s, err := asString(raw); err == nil {
			return s, nil
		}
		return asList(raw, asString)
	case TObjectOrList:
		if o, err := asObject(raw); err == nil {
			return o, nil
		}
		return asList(raw, asObject)
	case TBoolOrInteger:
		if b, err := asBool(raw); err == nil {
			return b, nil
		}
		return asInteger(raw)
	}
	return nil, errNoMatch
}

var errNoMatch = fmt.Errorf("type mismatch")

func asString(raw json.RawMessage) (string, error) {
	if s, ok := plainString(raw); ok {
		return s, nil
	}
	var s string
	if jsonerr.Kind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		return "", errNoMatch
	}
	return s, nil
}

// plainString reads a JSON string of printable ASCII without escapes,
// the form nearly every id and option arrives in, without a decoder: it
// decodes to its bytes. Anything else is left to json.Unmarshal.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' || c > 0x7e {
			return "", false
		}
	}
	return string(body), true
}

func asInteger(raw json.RawMessage) (int64, error) {
	if jsonerr.Kind(raw) != "integer" {
		return 0, errNoMatch
	}
	var n int64
	if json.Unmarshal(raw, &n) != nil {
		return 0, errNoMatch
	}
	return n, nil
}

func asNumber(raw json.RawMessage) (float64, error) {
	if k := jsonerr.Kind(raw); k != "integer" && k != "number" {
		return 0, errNoMatch
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0, errNoMatch
	}
	return f, nil
}

func asBool(raw json.RawMessage) (bool, error) {
	var b bool
	if jsonerr.Kind(raw) != "boolean" || json.Unmarshal(raw, &b) != nil {
		return false, errNoMatch
	}
	return b, nil
}

func asObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var o map[string]json.RawMessage
	if jsonerr.Kind(raw) != "object" || json.Unmarshal(raw, &o) != nil {
		return nil, errNoMatch
	}
	return o, nil
}

func asList[T any](raw json.RawMessage, elem func(json.RawMessage) (T, error)) ([]T, error) {
	var items []json.RawMessage
	if jsonerr.Kind(raw) != "list" || json.Unmarshal(raw, &items) != nil {
		return nil, errNoMatch
	}
	out := make([]T, 0, len(items))
	for _, it := range items {
		v, err := elem(it)
		if err != nil {
			return nil, errNoMatch
		}
		out = append(out, v)
	}
	return out, nil
}

// arrived describes a value for a refusal message: its kind, and for lists
// "empty list" or "list of <kinds>" (sorted).
func arrived(raw json.RawMessage) string {
	k := jsonerr.Kind(raw)
	if k != "list" {
		return k
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return "list"
	}
	if len(items) == 0 {
		return "empty list"
	}
	seen := map[string]bool{}
	var kinds []string
	for _, it := range items {
		if k := jsonerr.Kind(it); !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return "list of " + strings.Join(kinds, "/")
}

// Has reports whether the parameter was given (not absent, not null).
func (a Args) Has(name string) bool { _, ok := a.vals[name]; return ok }

// String returns a string parameter, or its default, or "".
func (a Args) String(name string) string {
	if v, ok := a.vals[name].(string); ok {
		return v
	}
	if p, ok := a.sig.Param(name); ok {
		if d, ok := p.Default.(string); ok {
			return d
		}
	}
	return ""
}

// Int returns an integer parameter, or its default, or 0.
func (a Args) Int(name string) int {
	if v, ok := a.vals[name].(int64); ok {
		return int(v)
	}
	if p, ok := a.sig.Param(name); ok {
		if d, ok := p.Default.(int); ok {
			return d
		}
	}
	return 0
}

// Bool returns a boolean parameter, or its default, or false.
func (a Args) Bool(name string) bool {
	if v, ok := a.vals[name].(bool); ok {
		return v
	}
	if p, ok := a.sig.Param(name); ok {
		if d, ok := p.Default.(bool); ok {
			return d
		}
	}
	return false
}

// Float returns a number parameter, or its default, or 0.
func (a Args) Float(name string) float64 {
	if v, ok := a.vals[name].(float64); ok {
		return v
	}
	if p, ok := a.sig.Param(name); ok {
		switch d := p.Default.(type) {
		case float64:
			return d
		case int:
			return float64(d)
		}
	}
	return 0
}

// Strings returns a string[] parameter; for string|string[] a single
// string comes back as a one-element list (use IsList to tell them apart).
func (a Args) Strings(name string) []string {
	switch v := a.vals[name].(type) {
	case []string:
		return v
	case string:
		return []string{v}
	}
	return nil
}

// IsList reports whether a one-or-many parameter arrived as a list.
func (a Args) IsList(name string) bool {
	switch a.vals[name].(type) {
	case []string, []map[string]json.RawMessage:
		return true
	}
	return false
}

// Object returns an object parameter's members undecoded.
func (a Args) Object(name string) map[string]json.RawMessage {
	v, _ := a.vals[name].(map[string]json.RawMessage)
	return v
}

// Value returns the decoded value of a parameter as stored.
func (a Args) Value(name string) (any, bool) {
	v, ok := a.vals[name]
	return v, ok
}

// Raw returns a present parameter's JSON exactly as it arrived, for
// values whose key order matters (objects decoded in document order).
func (a Args) Raw(name string) json.RawMessage { return a.raws[name] }

// RawItems splits a present list parameter into its raw elements.
func (a Args) RawItems(name string) []json.RawMessage {
	var items []json.RawMessage
	if json.Unmarshal(a.raws[name], &items) != nil {
		return nil
	}
	return items
}
