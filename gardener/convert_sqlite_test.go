// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

// buildSQLite writes a database with two tables of data, an empty one, a
// view, an AUTOINCREMENT sequence and a virtual table whose module does
// not exist, so reading it fails on its own.
func buildSQLite(t testing.TB, path string) {
	t.Helper()
	conn, err := sqlite3.Open(path)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.Exec(`
		CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, sku varchar(20), price NUMERIC(10,2), note BLOB, extra);
		INSERT INTO orders (sku, price, note, extra) VALUES
			('A-101', 10.5, x'0102', NULL),
			('B-202', 3, NULL, CAST(x'ff41' AS TEXT));
		CREATE TABLE customers (name TEXT NOT NULL, city TEXT);
		INSERT INTO customers VALUES ('Ana','Porto'),('Rui','Lisboa'),('Eva','Faro'),('Ivo','Braga'),('Lia','Évora');
		CREATE TABLE zz_empty (k TEXT);
		CREATE VIEW big_orders AS SELECT * FROM orders WHERE price > 5;
		PRAGMA writable_schema = ON;
		INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql)
			VALUES ('table', 'broken', 'broken', 0, 'CREATE VIRTUAL TABLE broken USING nosuchmodule(x)');
		PRAGMA writable_schema = OFF;`))
}

func TestSQLiteConverter(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "shop-data.sqlite3")
	buildSQLite(t, p)
	before := testforest.TreeDigest(t, dir)

	conv, err := convertFile(t, sqliteConverter{}, p)
	require.NoError(t, err)
	assert.Equal(t, KindPayload, conv.Kind)
	assert.Equal(t, "shop data", conv.Title)
	assert.Equal(t, []string{"customers", "orders", "zz_empty"}, conv.Tables,
		"name order; views, sqlite_ tables and the unreadable virtual table left out")
	assert.Equal(t, []string{"id", "sku", "price", "note", "extra"}, conv.Columns["orders"])
	assert.Equal(t, map[string]string{"id": "INTEGER", "sku": "varchar(20)", "price": "NUMERIC(10,2)", "note": "BLOB", "extra": ""},
		conv.Schema["orders"], "declared types verbatim")
	assert.Equal(t, [][]any{
		{int64(1), "A-101", 10.5, []byte{1, 2}, nil},
		{int64(2), "B-202", int64(3), nil, []byte{0xff, 'A'}},
	}, conv.Samples["orders"], "text that is not UTF-8 is kept as bytes")
	assert.Len(t, conv.Samples["customers"], 3, "at most three sample rows")
	assert.Equal(t, []any{"Ana", "Porto"}, conv.Samples["customers"][0])
	assert.Equal(t, [][]any{}, conv.Samples["zz_empty"])
	assert.Equal(t, map[string]int64{"customers": 5, "orders": 2, "zz_empty": 0}, conv.Counts)
	assert.Nil(t, conv.Rows, "a payload is copied, never re-inserted")

	assert.Equal(t, before, testforest.TreeDigest(t, dir), "the source is opened read-only and left byte-identical")
	for _, side := range []string{"-journal", "-wal", "-shm"} {
		assert.NoFileExists(t, p+side)
	}
}

func TestSQLiteConverterRefusals(t *testing.T) {
	dir := t.TempDir()
	notDB := writeSource(t, dir, "notes.db", []byte("SQLite format 2\x00 and then some bytes"))
	_, err := convertFile(t, sqliteConverter{}, notDB)
	e := requireSchema(t, err, "not a SQLite database", "notes.db")
	assert.Contains(t, e.Hint, "encrypted")

	short := writeSource(t, dir, "tiny.sqlite", []byte("SQL"))
	_, err = convertFile(t, sqliteConverter{}, short)
	requireSchema(t, err, "not a SQLite database", "tiny.sqlite")

	onlyView := filepath.Join(dir, "views.db")
	conn, err := sqlite3.Open(onlyView)
	require.NoError(t, err)
	require.NoError(t, conn.Exec(`CREATE VIEW v AS SELECT 1 AS one`))
	require.NoError(t, conn.Close())
	before := testforest.TreeDigest(t, dir)
	_, err = convertFile(t, sqliteConverter{}, onlyView)
	requireSchema(t, err, "database has no tables", "views.db")
	assert.Equal(t, before, testforest.TreeDigest(t, dir))

	corrupt := writeSource(t, dir, "corrupt.db", append([]byte(sqliteMagic), make([]byte, 200)...))
	_, err = convertFile(t, sqliteConverter{}, corrupt)
	requireSchema(t, err, "corrupt.db")

	_, err = convertFile(t, sqliteConverter{}, filepath.Join(dir, "absent.db"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestSQLiteConverterCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.db")
	buildSQLite(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := sqliteConverter{}.Convert(ctx, p)
	assert.ErrorIs(t, err, context.Canceled)
}
