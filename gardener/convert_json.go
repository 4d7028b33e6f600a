// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/jsonlimit"
)

// jsonConverter turns a non-empty array of flat objects into a dataset
// and any other JSON value into a document that shows it pretty-printed.
type jsonConverter struct{ lim Limits }

func (jsonConverter) Extensions() []string { return []string{".json"} }

func (c jsonConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	lim := c.lim.orDefault()
	if err := scanJSONFile(path, lim); err != nil {
		return nil, limitRefusal("json", path, err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := decodeJSON(stripBOM(validUTF8(raw)))
	if err != nil {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("json %s is not valid JSON: %v", filepath.Base(path), err),
			"fix the file so it parses, or remove it from the source folder")
	}
	title := stemTitle(path)
	if t, ok := jsonTable(sqlName(stem(path)), v); ok {
		return tablesConversion(title, []rawTable{t}), nil
	}
	w := &jsonWriter{max: lim.DocumentBytes}
	fmt.Fprintf(&w.b, "# %s\n\n```json\n", title)
	w.value(v, "")
	w.b.WriteString("\n```\n")
	if w.b.Len() > w.max {
		return nil, limitRefusal("json", path, &LimitError{Limit: "DocumentBytes", Max: int64(w.max),
			What: "pretty-printed document size"})
	}
	return &Conversion{Kind: KindMarkdown, Title: title, Markdown: w.b.String()}, nil
}

// scanJSONFile streams the file through a jsonlimit scan before anything
// decodes it: nesting past the depth limit, and a string or number past
// the line limit (it renders on one line), are refused at the byte that
// crosses them.
func scanJSONFile(path string, lim Limits) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	err = jsonlimit.CheckReader(f, lim.JSONDepth, lim.LineBytes)
	var je *jsonlimit.Error
	switch {
	case !errors.As(err, &je):
		return err
	case je.Limit == "depth":
		return &LimitError{Limit: "JSONDepth", Max: int64(je.Max),
			What: fmt.Sprintf("nesting depth at byte %d", je.Offset)}
	}
	return &LimitError{Limit: "LineBytes", Max: int64(je.Max),
		What: fmt.Sprintf("string or number at byte %d", je.Offset)}
}

// jsonObject keeps an object's keys in document order, which a Go map
// cannot: the header of a tabular file is the first-seen key order.
type jsonObject struct {
	keys   []string
	values map[string]any
}

// decodeJSON decodes exactly one JSON value. Objects become *jsonObject,
// numbers stay json.Number so their literal survives.
func decodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := &jsonObject{values: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string) // the decoder only yields string keys here
			val, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := obj.values[key]; !dup {
				obj.keys = append(obj.keys, key)
			}
			obj.values[key] = val // the last duplicate wins, as in most readers
		}
		_, err := dec.Token()
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			val, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, val)
		}
		_, err := dec.Token()
		return arr, err
	}
	return tok, nil
}

// jsonTable reads v as a table when it is a non-empty array of objects
// whose values are all scalars and that name at least one key.
func jsonTable(name string, v any) (rawTable, bool) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return rawTable{}, false
	}
	var header []string
	index := map[string]int{}
	for _, item := range arr {
		obj, ok := item.(*jsonObject)
		if !ok {
			return rawTable{}, false
		}
		for _, k := range obj.keys {
			switch obj.values[k].(type) {
			case *jsonObject, []any:
				return rawTable{}, false
			}
			if _, seen := index[k]; !seen {
				index[k] = len(header)
				header = append(header, k)
			}
		}
	}
	if len(header) == 0 {
		return rawTable{}, false
	}
	records := make([][]any, len(arr))
	for i, item := range arr {
		obj := item.(*jsonObject)
		rec := make([]any, len(header))
		for k, val := range obj.values {
			rec[index[k]] = jsonCell(val)
		}
		records[i] = rec
	}
	return rawTable{name: name, header: header, records: records}, true
}

// jsonCell maps a scalar to a tabular cell. An integer literal is int64;
// one with a fraction or exponent is a native float (never INTEGER); an
// integer too wide for int64 keeps its digits as text.
func jsonCell(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v // nil, bool or string
	}
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		return s
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// jsonWriter pretty-prints a decoded value and stops once the text is
// longer than max: each line carries its indent, so a value a few
// kilobytes long can print to far more than that.
type jsonWriter struct {
	b   strings.Builder
	max int
}

// value pretty-prints v unless the text is already past max.
func (w *jsonWriter) value(v any, indent string) {
	if w.b.Len() > w.max {
		return
	}
	writeJSON(w, v, indent)
}

// writeJSON pretty-prints v with a two-space indent, keys in document
// order, number literals verbatim and non-ASCII kept: the document shows
// the file, not a re-encoding of it.
func writeJSON(w *jsonWriter, v any, indent string) {
	b := &w.b
	switch v := v.(type) {
	case *jsonObject:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(indent + "  ")
			writeJSONString(b, k)
			b.WriteString(": ")
			w.value(v.values[k], indent+"  ")
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, item := range v {
			b.WriteString(indent + "  ")
			w.value(item, indent+"  ")
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		writeJSONString(b, v)
	case json.Number:
		b.WriteString(string(v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	}
}

// writeJSONString quotes s escaping only what JSON requires; unlike
// encoding/json it leaves <, > and & alone.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
