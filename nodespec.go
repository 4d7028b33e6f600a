// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/jsonerr"
)

// NodeSpec is what plant takes (C.7): a node's passport, its parent index
// and its body. Extra holds any other frontmatter keys, written after the
// known ones in the order given (e.g. the Gardener's source_path).
type NodeSpec struct {
	ID          string
	Type        string
	Title       string
	Summary     string
	Parent      string
	Body        string
	Tags        []string
	Links       []Link
	Confidence  *float64 // nil means 1.0
	Source      string   // "" means agent
	Payload     string
	PayloadType string
	PayloadHash string
	EntityKind  string
	Aliases     []string
	Origin      string
	Lang        string
	Extra       []forest.Field

	// Schema and Rows give birth to a dataset's SQLite payload (C.7.1).
	Schema []TableSpec
	Rows   map[string][][]any
	// rowsGiven records that the caller sent rows, even empty ones.
	rowsGiven bool
}

// Link is one declared edge of a NodeSpec. Extra keeps other keys of the
// link entry (discovered_by, note, ...) in order.
type Link struct {
	Rel        string
	Target     string
	Confidence *float64
	Extra      []forest.Field
}

// knownSpecKeys are NodeSpec keys that are not frontmatter extras.
var knownSpecKeys = []string{"id", "type", "title", "summary", "parent", "body", "tags", "links",
	"confidence", "source", "payload", "payload_type", "payload_hash", "entity_kind", "aliases",
	"origin", "lang", "schema", "rows", "created", "updated"}

// decodeNodeSpec reads one wire node object. field names the parameter
// path for messages ("node" or "node[3]"). Shape errors are E_SCHEMA
// naming the field; nothing is coerced.
func decodeNodeSpec(field string, raw json.RawMessage) (NodeSpec, error) {
	var spec NodeSpec
	members, err := orderedObject(raw)
	if err != nil {
		return spec, envelope.New(envelope.Schema,
			fmt.Sprintf("plant: parameter '%s' expects object, got %s", field, arrived(raw)),
			"a node is an object with id, type, title, summary, parent and optional body, tags, links, ...")
	}
	str := func(key string, dst *string) error {
		v, ok := lookup(members, key)
		if !ok || isNull(v) {
			return nil
		}
		s, err := asString(v)
		if err != nil {
			return shapeErr(field, key, "string", v)
		}
		*dst = s
		return nil
	}
	for key, dst := range map[string]*string{"id": &spec.ID, "type": &spec.Type, "title": &spec.Title,
		"summary": &spec.Summary, "parent": &spec.Parent, "body": &spec.Body, "source": &spec.Source,
		"payload": &spec.Payload, "payload_type": &spec.PayloadType, "payload_hash": &spec.PayloadHash,
		"entity_kind": &spec.EntityKind, "origin": &spec.Origin, "lang": &spec.Lang} {
		if err := str(key, dst); err != nil {
			return spec, err
		}
	}
	for _, key := range []string{"id", "type", "title", "summary", "parent"} {
		if v, ok := lookup(members, key); !ok || isNull(v) {
			return spec, envelope.New(envelope.Schema,
				fmt.Sprintf("plant: %s.%s is required (string)", field, key),
				"a node needs id, type, title, summary and parent (the id's parent index)")
		}
	}
	if err := decodeSpecLists(field, members, &spec); err != nil {
		return spec, err
	}
	if err := decodeDatasetSpec(field, members, &spec); err != nil {
		return spec, err
	}
	for _, m := range members {
		if !slices.Contains(knownSpecKeys, m.key) && !isNull(m.raw) {
			spec.Extra = append(spec.Extra, forest.Field{Key: m.key, Value: jsonValue(m.raw)})
		}
	}
	return spec, nil
}

func decodeSpecLists(field string, members []member, spec *NodeSpec) error {
	for key, dst := range map[string]*[]string{"tags": &spec.Tags, "aliases": &spec.Aliases} {
		if v, ok := lookup(members, key); ok && !isNull(v) {
			list, err := asList(v, asString)
			if err != nil {
				return shapeErr(field, key, "string[]", v)
			}
			*dst = list
		}
	}
	if v, ok := lookup(members, "confidence"); ok && !isNull(v) {
		f, err := asNumber(v)
		if err != nil {
			return shapeErr(field, "confidence", "number", v)
		}
		spec.Confidence = &f
	}
	if v, ok := lookup(members, "links"); ok && !isNull(v) {
		var items []json.RawMessage
		if jsonerr.Kind(v) != "list" || json.Unmarshal(v, &items) != nil {
			return shapeErr(field, "links", "object[]", v)
		}
		for i, it := range items {
			l, err := decodeLink(fmt.Sprintf("%s.links.%d", field, i), it)
			if err != nil {
				return err
			}
			spec.Links = append(spec.Links, l)
		}
	}
	return nil
}

func decodeLink(path string, raw json.RawMessage) (Link, error) {
	var l Link
	members, err := orderedObject(raw)
	if err != nil {
		return l, envelope.New(envelope.Schema, fmt.Sprintf("plant: %s expects object {rel, target}, got %s", path, arrived(raw)), "")
	}
	for _, m := range members {
		switch m.key {
		case "rel", "target":
			s, err := asString(m.raw)
			if err != nil {
				return l, envelope.New(envelope.Schema, fmt.Sprintf("plant: %s.%s expects string, got %s", path, m.key, arrived(m.raw)), "")
			}
			if m.key == "rel" {
				l.Rel = s
			} else {
				l.Target = s
			}
		case "confidence":
			f, err := asNumber(m.raw)
			if err != nil {
				return l, envelope.New(envelope.Schema, fmt.Sprintf("plant: %s.confidence expects number, got %s", path, arrived(m.raw)), "")
			}
			l.Confidence = &f
		default:
			if !isNull(m.raw) {
				l.Extra = append(l.Extra, forest.Field{Key: m.key, Value: jsonValue(m.raw)})
			}
		}
	}
	return l, nil
}

func shapeErr(field, key, want string, got json.RawMessage) error {
	return envelope.New(envelope.Schema,
		fmt.Sprintf("plant: %s.%s expects %s, got %s", field, key, want, arrived(got)), "")
}

// member is one key of a JSON object in document order.
type member struct {
	key string
	raw json.RawMessage
}

// orderedObject decodes a JSON object keeping key order: tables, columns
// and frontmatter extras are positional, and a Go map would lose that.
// A repeated key keeps its last value at its first position.
func orderedObject(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(out, func(m member) bool { return m.key == key }); i >= 0 {
			out[i].raw = v
			continue
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

func lookup(members []member, key string) (json.RawMessage, bool) {
	for _, m := range members {
		if m.key == key {
			return m.raw, true
		}
	}
	return nil, false
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// jsonValue converts a JSON value to the frontmatter value space: string,
// bool, int64, float64, nil, []any, *forest.Frontmatter (objects keep
// their key order).
func jsonValue(raw json.RawMessage) any {
	switch jsonerr.Kind(raw) {
	case "string":
		s, _ := asString(raw)
		return s
	case "integer":
		if n, err := asInteger(raw); err == nil {
			return n
		}
		f, _ := asNumber(raw)
		return f
	case "number":
		f, _ := asNumber(raw)
		return f
	case "boolean":
		b, _ := asBool(raw)
		return b
	case "list":
		var items []json.RawMessage
		_ = json.Unmarshal(raw, &items)
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = jsonValue(it)
		}
		return out
	case "object":
		members, _ := orderedObject(raw)
		fm := forest.NewFrontmatter()
		for _, m := range members {
			fm.Set(m.key, jsonValue(m.raw))
		}
		return fm
	}
	return nil
}

// frontmatter renders the spec in the plant key order of §2.7: id, type,
// title, summary, created, updated, then the optional keys when present,
// source always, then extras in the given order.
func (s NodeSpec) frontmatter(today string) *forest.Frontmatter {
	fm := forest.NewFrontmatter(
		forest.Field{Key: "id", Value: s.ID},
		forest.Field{Key: "type", Value: s.Type},
		forest.Field{Key: "title", Value: s.Title},
		forest.Field{Key: "summary", Value: s.Summary},
		forest.Field{Key: "created", Value: today},
		forest.Field{Key: "updated", Value: today},
	)
	if len(s.Tags) > 0 {
		fm.Set("tags", anyList(s.Tags))
	}
	if len(s.Links) > 0 {
		links := make([]any, len(s.Links))
		for i, l := range s.Links {
			entry := forest.NewFrontmatter(forest.Field{Key: "rel", Value: l.Rel}, forest.Field{Key: "target", Value: l.Target})
			if l.Confidence != nil {
				entry.Set("confidence", *l.Confidence)
			}
			for _, f := range l.Extra {
				entry.Set(f.Key, f.Value)
			}
			links[i] = entry
		}
		fm.Set("links", links)
	}
	if s.Confidence != nil && *s.Confidence != 1.0 {
		fm.Set("confidence", *s.Confidence)
	}
	source := s.Source
	if source == "" {
		source = "agent"
	}
	fm.Set("source", source)
	for _, kv := range [][2]string{{"payload", s.Payload}, {"payload_type", s.PayloadType},
		{"payload_hash", s.PayloadHash}, {"entity_kind", s.EntityKind}} {
		if kv[1] != "" {
			fm.Set(kv[0], kv[1])
		}
	}
	if len(s.Aliases) > 0 {
		fm.Set("aliases", anyList(s.Aliases))
	}
	for _, kv := range [][2]string{{"origin", s.Origin}, {"lang", s.Lang}} {
		if kv[1] != "" {
			fm.Set(kv[0], kv[1])
		}
	}
	for _, f := range s.Extra {
		if f.Value != nil && !fm.Has(f.Key) {
			fm.Set(f.Key, f.Value)
		}
	}
	return fm
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// body applies the plant body rule: trimmed; empty becomes "# <title>";
// a body not starting with a heading gets "# <title>" and a blank line.
func (s NodeSpec) body() string {
	b := strings.TrimSpace(s.Body)
	switch {
	case b == "":
		return "# " + s.Title
	case !strings.HasPrefix(b, "#"):
		return "# " + s.Title + "\n\n" + b
	}
	return b
}
