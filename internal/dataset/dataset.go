// SPDX-License-Identifier: Apache-2.0

// Package dataset creates and describes the SQLite payloads of dataset
// nodes: schema validation for plant's declarative birth (the model never
// writes DDL), the creation of the file with parameterized rows, and the
// generated "Query manual" and "Sample rows" sections every dataset
// passport carries (G.2.3).
package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// Column is one declared column.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"` // TEXT, INTEGER, REAL or BLOB (upper-case once validated)
}

// Table is one declared table, columns in order.
type Table struct {
	Name       string   `json:"name"`
	Columns    []Column `json:"columns"`
	PrimaryKey []string `json:"primary_key,omitempty"`
}

// Limits of a declarative schema (C.7.1); adopted schemas skip the counts.
const (
	MaxTables  = 10
	MaxColumns = 50
)

var (
	nameRE     = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,63}$`)
	validTypes = []string{"TEXT", "INTEGER", "REAL", "BLOB"}
)

// ValidateSchema checks a declared schema in the order of C.7.1 and
// upper-cases the types in place. adopted (trusted ingest) drops only the
// two counts. Every refusal is E_SCHEMA naming the table or column.
func ValidateSchema(tables []Table, adopted bool) error {
	if len(tables) == 0 {
		return schemaErr("schema declares no table", "declare at least one table with its columns")
	}
	if len(tables) > MaxTables && !adopted {
		return schemaErr(fmt.Sprintf("schema declares %d tables, at most %d", len(tables), MaxTables),
			"split the data into several datasets")
	}
	for ti := range tables {
		if err := validateTable(&tables[ti], adopted); err != nil {
			return err
		}
	}
	return nil
}

func validateTable(t *Table, adopted bool) error {
	if !nameRE.MatchString(t.Name) {
		return schemaErr(fmt.Sprintf("table name %q must match ^[a-z_][a-z0-9_]{0,63}$", t.Name),
			"use lower-case letters, digits and underscores")
	}
	if len(t.Columns) == 0 {
		return schemaErr(fmt.Sprintf("table %s declares no column", t.Name), "declare at least one column")
	}
	if len(t.Columns) > MaxColumns && !adopted {
		return schemaErr(fmt.Sprintf("table %s declares %d columns, at most %d", t.Name, len(t.Columns), MaxColumns),
			"split the table")
	}
	for ci := range t.Columns {
		c := &t.Columns[ci]
		if !nameRE.MatchString(c.Name) {
			return schemaErr(fmt.Sprintf("column %s.%s must match ^[a-z_][a-z0-9_]{0,63}$", t.Name, c.Name),
				"use lower-case letters, digits and underscores")
		}
		typ := strings.ToUpper(strings.TrimSpace(c.Type))
		if !slices.Contains(validTypes, typ) {
			return schemaErr(fmt.Sprintf("column %s.%s has type %q, expected one of TEXT, INTEGER, REAL, BLOB", t.Name, c.Name, c.Type), "")
		}
		c.Type = typ
	}
	for _, pk := range t.PrimaryKey {
		if !slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Name == pk }) {
			return schemaErr(fmt.Sprintf("primary_key of %s names %q, which is not a declared column", t.Name, pk), "")
		}
	}
	return nil
}

// ValidateRows checks rows against the schema: every key a declared
// table, every row exactly as wide as its table.
func ValidateRows(tables []Table, rows map[string][][]any) error {
	for name, list := range rows {
		i := slices.IndexFunc(tables, func(t Table) bool { return t.Name == name })
		if i < 0 {
			return schemaErr(fmt.Sprintf("rows name table %q, which the schema does not declare", name), "")
		}
		for r, row := range list {
			if len(row) != len(tables[i].Columns) {
				return schemaErr(fmt.Sprintf("rows.%s[%d] has %d values, table %s has %d columns",
					name, r, len(row), name, len(tables[i].Columns)), "one value per column, in declared order")
			}
		}
	}
	return nil
}

// DDL is the CREATE TABLE statement of a validated table. Names passed
// the regex, so no quoting is needed; a reserved word fails at birth.
func DDL(t Table) string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name + " " + c.Type
	}
	if len(t.PrimaryKey) > 0 {
		cols = append(cols, "PRIMARY KEY ("+strings.Join(t.PrimaryKey, ", ")+")")
	}
	return "CREATE TABLE " + t.Name + " (" + strings.Join(cols, ", ") + ")"
}

// HashFile is the sha256 hex of a file's bytes (payload_hash).
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func schemaErr(msg, hint string) error {
	return envelope.New(envelope.Schema, "plant: "+msg, hint)
}

// ErrBirth marks a failure while creating a payload; the message carries
// SQLite's reason.
var ErrBirth = errors.New("dataset birth failed")
