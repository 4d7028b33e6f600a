// SPDX-License-Identifier: Apache-2.0

// Package wire is what the transport adapters (MCP, REST) share about
// putting the engine on the wire: tool input schemas derived from the one
// signature table, tool descriptions, the compact result encoding, the
// forests listing, and the guards of an HTTP mount (the Host and Origin
// allow-list, the JSON body type). Deriving these in one place is
// what keeps the surfaces contract-identical.
package wire

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/monkeyllm/vine"
)

// ForestParam is the name of the argument that picks a forest on surfaces
// that carry it in the arguments (MCP). It is set aside before the engine
// validates the rest against the signature table.
const ForestParam = "forest"

// ForestArg says how a surface carries the forest a call is for.
type ForestArg int

const (
	// ForestNone: the forest is not an argument (REST names it in the path).
	ForestNone ForestArg = iota
	// ForestOptional: one forest is served; the argument may name it.
	ForestOptional
	// ForestRequired: a directory of forests is served; every call names one.
	ForestRequired
)

// InputSchema derives the JSON Schema (draft 2020-12) of a primitive's
// arguments from its signature: one property per parameter in table order,
// with its wire type, default, enum and doc, the required ones listed, and
// no other properties accepted. The engine's validator stays the authority;
// the schema tells a client what that validator accepts.
func InputSchema(sig vine.Signature, forest ForestArg) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, // renders as false
		Required:             []string{},
	}
	if forest != ForestNone {
		s.Properties[ForestParam] = &jsonschema.Schema{Type: "string", Description: forestDoc(forest)}
		s.PropertyOrder = append(s.PropertyOrder, ForestParam)
		if forest == ForestRequired {
			s.Required = append(s.Required, ForestParam)
		}
	}
	for _, p := range sig.Params {
		s.Properties[p.Name] = ParamSchema(p)
		s.PropertyOrder = append(s.PropertyOrder, p.Name)
		if p.Required {
			s.Required = append(s.Required, p.Name)
		}
	}
	return s
}

func forestDoc(forest ForestArg) string {
	if forest == ForestRequired {
		return "the forest to use: an id from forests()"
	}
	return "the served forest's id; may be omitted (one forest is served)"
}

// ParamSchema is the schema of one parameter. A one-or-many type
// (string|string[], ...) becomes anyOf its two shapes.
func ParamSchema(p vine.Param) *jsonschema.Schema {
	s := typeSchema(p.Type)
	s.Description = p.Doc
	if p.Default != nil {
		if b, err := json.Marshal(p.Default); err == nil {
			s.Default = b
		}
	}
	for _, e := range p.Enum {
		s.Enum = append(s.Enum, e)
	}
	return s
}

func typeSchema(t vine.ParamType) *jsonschema.Schema {
	list := func(elem string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: elem}}
	}
	either := func(a, b *jsonschema.Schema) *jsonschema.Schema {
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{a, b}}
	}
	switch t {
	case vine.TStringList:
		return list("string")
	case vine.TObjectList:
		return list("object")
	case vine.TStringOrList:
		return either(&jsonschema.Schema{Type: "string"}, list("string"))
	case vine.TObjectOrList:
		return either(&jsonschema.Schema{Type: "object"}, list("object"))
	case vine.TBoolOrInteger:
		return either(&jsonschema.Schema{Type: "boolean"}, &jsonschema.Schema{Type: "integer"})
	}
	// string, integer, number, boolean, object: the wire word is the JSON
	// Schema type.
	return &jsonschema.Schema{Type: string(t)}
}
