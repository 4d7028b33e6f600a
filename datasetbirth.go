// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/dataset"
	"github.com/monkeyllm/vine/internal/jsonerr"
)

// TableSpec declares one table of a dataset born by plant (C.7.1).
type TableSpec = dataset.Table

// ColumnSpec is one column of a TableSpec: a name and one of TEXT,
// INTEGER, REAL, BLOB.
type ColumnSpec = dataset.Column

// birth is a payload a plan will create before writing its passport.
type birth struct {
	node *forest.Node
	spec NodeSpec
	path string
}

// decodeDatasetSpec reads schema {table: {columns: {name: TYPE}, primary_key:
// [...]}} and rows {table: [[...], ...]} keeping declared order.
func decodeDatasetSpec(field string, members []member, spec *NodeSpec) error {
	if raw, ok := lookup(members, "schema"); ok && !isNull(raw) {
		tables, err := orderedObject(raw)
		if err != nil {
			return shapeErr(field, "schema", "object {table: {columns, primary_key}}", raw)
		}
		for _, t := range tables {
			table, err := decodeTable(field, t)
			if err != nil {
				return err
			}
			spec.Schema = append(spec.Schema, table)
		}
	}
	if raw, ok := lookup(members, "rows"); ok && !isNull(raw) {
		var rows map[string][][]any
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if jsonerr.Kind(raw) != "object" || dec.Decode(&rows) != nil {
			return shapeErr(field, "rows", "object {table: [[values...], ...]}", raw)
		}
		for t, list := range rows {
			for _, row := range list {
				for i, v := range row {
					row[i] = sqlValue(v)
				}
			}
			rows[t] = list
		}
		spec.Rows, spec.rowsGiven = rows, true
	}
	return nil
}

func decodeTable(field string, t member) (TableSpec, error) {
	table := TableSpec{Name: t.key}
	parts, err := orderedObject(t.raw)
	if err != nil {
		return table, shapeErr(field, "schema."+t.key, "object {columns, primary_key}", t.raw)
	}
	for _, p := range parts {
		switch p.key {
		case "columns":
			cols, err := orderedObject(p.raw)
			if err != nil {
				return table, shapeErr(field, "schema."+t.key+".columns", "object {column: TYPE}", p.raw)
			}
			for _, c := range cols {
				typ, err := asString(c.raw)
				if err != nil {
					return table, shapeErr(field, "schema."+t.key+".columns."+c.key, "string", c.raw)
				}
				table.Columns = append(table.Columns, ColumnSpec{Name: c.key, Type: typ})
			}
		case "primary_key":
			pk, err := asList(p.raw, asString)
			if err != nil {
				return table, shapeErr(field, "schema."+t.key+".primary_key", "string[]", p.raw)
			}
			table.PrimaryKey = pk
		default:
			return table, envelope.New(envelope.Schema,
				fmt.Sprintf("plant: %s.schema.%s has unknown key '%s'", field, t.key, p.key),
				"a table declares columns and optionally primary_key")
		}
	}
	return table, nil
}

// sqlValue turns a decoded JSON value into a bound SQLite value: numbers
// stay integers when they are, everything else binds as text.
func sqlValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case nil, string, bool:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// checkDatasetSpec runs C.7.1's checks and applies the payload defaults to
// nothing yet: defaults land when the node is rendered (datasetDefaults).
func (v *Vine) checkDatasetSpec(spec NodeSpec, adopted bool) error {
	if spec.rowsGiven && len(spec.Schema) == 0 {
		return envelope.New(envelope.Schema, "plant: rows need a schema", "declare the tables in schema, then give rows")
	}
	if spec.Type != "dataset" {
		return envelope.New(envelope.Schema, "plant: schema is only for type dataset, got type "+spec.Type, "")
	}
	if err := dataset.ValidateSchema(spec.Schema, adopted); err != nil {
		return err
	}
	if err := dataset.ValidateRows(spec.Schema, spec.Rows); err != nil {
		return err
	}
	if _, err := payloadName(spec); err != nil {
		return err
	}
	if spec.PayloadType != "" && spec.PayloadType != "sqlite" {
		return envelope.New(envelope.Schema, "plant: a born dataset's payload_type must be sqlite, got "+spec.PayloadType, "")
	}
	return nil
}

// payloadName is the payload a birth creates: the explicit bare name
// ending .db, or <last id segment>.db.
func payloadName(spec NodeSpec) (string, error) {
	if spec.Payload == "" {
		return path.Base(spec.ID) + ".db", nil
	}
	if strings.ContainsAny(spec.Payload, `/\`) || !strings.HasSuffix(spec.Payload, ".db") || spec.Payload == ".db" {
		return "", envelope.New(envelope.Schema,
			"plant: a born dataset's payload must be a bare file name ending .db, got "+spec.Payload,
			"omit payload to use <last id segment>.db")
	}
	return spec.Payload, nil
}

// checkPayloadBirth refuses a birth whose payload file already exists
// (never overwrite); a read-only check, safe in a rehearsal.
func (v *Vine) checkPayloadBirth(spec NodeSpec) error {
	if len(spec.Schema) == 0 {
		return nil
	}
	name, err := payloadName(spec)
	if err != nil {
		return err
	}
	p, err := v.root.File(path.Join(path.Dir(spec.ID), name))
	if err != nil {
		return envelope.New(envelope.Schema, "plant: payload escapes the forest: "+name, "")
	}
	if _, err := os.Lstat(p); err == nil {
		return envelope.New(envelope.Schema, "plant: payload already exists: "+name,
			"a birth never overwrites; plant without schema to reference an existing payload")
	}
	return nil
}

// prepareBirth sets the payload keys and the generated sections on a
// dataset node about to be born.
func prepareBirth(n *forest.Node, spec NodeSpec) {
	name, _ := payloadName(spec)
	n.Front.Set("payload", name)
	n.Front.Set("payload_type", "sqlite")
	if _, _, ok := forest.FindSection(n.Body, "Query manual"); ok {
		return // a caller-written manual is kept verbatim
	}
	infos := make([]dataset.TableInfo, len(spec.Schema))
	for i, t := range spec.Schema {
		rows := spec.Rows[t.Name]
		infos[i] = dataset.TableInfo{Name: t.Name, Columns: t.Columns, Rows: len(rows), Known: true,
			Sample: rows[:min(len(rows), dataset.SampleRows)]}
	}
	n.Body = strings.TrimRight(n.Body, "\n") + "\n\n" + dataset.Sections(infos)
}

// bear creates the payload of a staged birth and records its hash last in
// the passport (§2.7).
func (v *Vine) bear(ctx context.Context, b *birth) error {
	name, err := payloadName(b.spec)
	if err != nil {
		return err
	}
	p, err := v.root.File(path.Join(path.Dir(b.spec.ID), name))
	if err != nil {
		return err
	}
	if err := dataset.Create(ctx, p, b.spec.Schema, b.spec.Rows); err != nil {
		return err
	}
	b.path = p
	hash, err := dataset.HashFile(p)
	if err != nil {
		dataset.Remove(p)
		b.path = ""
		return err
	}
	b.node.Front.Delete("payload_hash")
	b.node.Front.Set("payload_hash", hash)
	return nil
}

// unbear removes every payload this plan created: a failed write leaves
// no orphan payload.
func (v *Vine) unbear(births []*birth) error {
	var errs []error
	for _, b := range births {
		if b.path != "" {
			dataset.Remove(b.path)
			if _, err := os.Stat(b.path); err == nil {
				errs = append(errs, fmt.Errorf("vine: could not remove payload %s", path.Base(b.path)))
			}
			b.path = ""
		}
	}
	return errors.Join(errs...)
}
