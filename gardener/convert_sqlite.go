// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/envelope"
)

// sqliteMagic is the 16-byte header every SQLite 3 database starts with.
const sqliteMagic = "SQLite format 3\x00"

// sampleRows is how many rows per table a payload conversion reads for
// the sample map (G.2.3 rule 5).
const sampleRows = 3

// sqliteConverter adopts a SQLite database as the payload itself
// (G.2.2): it reads the structure, three rows and the row count of each
// table, never the data. The pipeline copies the file.
type sqliteConverter struct{}

func (sqliteConverter) Extensions() []string { return []string{".db", ".sqlite", ".sqlite3"} }

func (sqliteConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	name := filepath.Base(path)
	ok, err := hasSQLiteHeader(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("not a SQLite database: %s does not start with the header 'SQLite format 3'", name),
			"an encrypted or truncated database reads the same way; export it to a plain SQLite file")
	}
	conv, err := readSQLiteMap(ctx, path)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("SQLite database %s could not be read: %v", name, err),
			"check that the file is a complete, unencrypted SQLite 3 database")
	}
	if len(conv.Tables) == 0 {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("database has no tables: %s holds no readable table (views and sqlite_ tables do not count)", name),
			"a dataset needs at least one table")
	}
	conv.Title = stemTitle(path)
	return conv, nil
}

func hasSQLiteHeader(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil {
		return false, nil // shorter than the header: not a database
	}
	return string(head) == sqliteMagic, nil
}

// readSQLiteMap opens the database read-only and describes its tables in
// name order. Each table is read on its own: one that cannot be read (a
// virtual table whose module is not here) costs only itself.
func readSQLiteMap(ctx context.Context, path string) (*Conversion, error) {
	conn, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	old := conn.SetInterrupt(ctx)
	defer conn.SetInterrupt(old)

	names, err := tableNames(conn)
	if err != nil {
		return nil, err
	}
	conv := &Conversion{
		Kind:    KindPayload,
		Schema:  map[string]map[string]string{},
		Columns: map[string][]string{},
		Samples: map[string][][]any{},
		Counts:  map[string]int64{},
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cols, types, err := tableColumns(conn, name)
		if err != nil || len(cols) == 0 {
			continue
		}
		conv.Tables = append(conv.Tables, name)
		conv.Columns[name] = cols
		conv.Schema[name] = types
		// A failed sample or count leaves the table listed with no rows
		// shown and its count unknown; the map says so rather than lying.
		if rows, err := sampleTable(conn, name); err == nil {
			conv.Samples[name] = rows
		} else {
			conv.Samples[name] = [][]any{}
		}
		if n, err := countTable(conn, name); err == nil {
			conv.Counts[name] = n
		}
	}
	return conv, ctx.Err()
}

// openReadOnly opens a foreign database for reading only. Defensive mode
// and an untrusted schema keep its views and triggers from doing
// anything but being read.
func openReadOnly(path string) (*sqlite3.Conn, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	uri := "file:" + (&url.URL{Path: p}).EscapedPath() + "?mode=ro"
	conn, err := sqlite3.OpenFlags(uri, sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		op sqlite3.DBConfig
		on bool
	}{{sqlite3.DBCONFIG_DEFENSIVE, true}, {sqlite3.DBCONFIG_TRUSTED_SCHEMA, false}} {
		if _, err := conn.Config(c.op, c.on); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

func tableNames(conn *sqlite3.Conn) ([]string, error) {
	st, _, err := conn.Prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var names []string
	for st.Step() {
		names = append(names, st.ColumnText(0))
	}
	return names, st.Err()
}

// tableColumns lists the columns with their declared types verbatim
// (an undeclared type is "").
func tableColumns(conn *sqlite3.Conn, table string) ([]string, map[string]string, error) {
	st, _, err := conn.Prepare(`SELECT name, type FROM pragma_table_info(?)`)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	if err := st.BindText(1, table); err != nil {
		return nil, nil, err
	}
	var cols []string
	types := map[string]string{}
	for st.Step() {
		col := st.ColumnText(0)
		cols = append(cols, col)
		types[col] = st.ColumnText(1)
	}
	return cols, types, st.Err()
}

func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// sampleTable reads the first rows as stored (no ORDER BY: the map shows
// what is there, cheaply). Text that is not UTF-8 is kept as bytes.
func sampleTable(conn *sqlite3.Conn, table string) ([][]any, error) {
	st, _, err := conn.Prepare(fmt.Sprintf("SELECT * FROM %s LIMIT %d", quoteIdent(table), sampleRows))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows := [][]any{}
	for st.Step() {
		row := make([]any, st.ColumnCount())
		for i := range row {
			row[i] = columnValue(st, i)
		}
		rows = append(rows, row)
	}
	return rows, st.Err()
}

func columnValue(st *sqlite3.Stmt, i int) any {
	switch st.ColumnType(i) {
	case sqlite3.INTEGER:
		return st.ColumnInt64(i)
	case sqlite3.FLOAT:
		return st.ColumnFloat(i)
	case sqlite3.TEXT:
		raw := st.ColumnRawText(i)
		if utf8.Valid(raw) {
			return string(raw)
		}
		return append([]byte{}, raw...)
	case sqlite3.BLOB:
		return append([]byte{}, st.ColumnRawBlob(i)...)
	}
	return nil
}

func countTable(conn *sqlite3.Conn, table string) (int64, error) {
	st, _, err := conn.Prepare("SELECT COUNT(*) FROM " + quoteIdent(table))
	if err != nil {
		return 0, err
	}
	defer st.Close()
	if !st.Step() {
		return 0, st.Err()
	}
	return st.ColumnInt64(0), nil
}
