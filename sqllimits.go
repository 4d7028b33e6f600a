// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"errors"
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"github.com/monkeyllm/vine/envelope"
)

// Defaults of the SQL memory limits on a query or tend connection. A
// statement is the caller's text and a dataset is a file anyone may have
// built, so neither may decide how much memory the engine spends:
// randomblob(1e9), printf('%.*c', 1e9, 'x') or a view doing the same
// answer E_QUERY_INVALID naming the limit, well within the deadline.
const (
	// DefaultSQLMaxLength is the largest string or blob one statement may
	// build or read (SQLITE_LIMIT_LENGTH): far above any cell a dataset
	// is made for, and small enough that a few copies of one stay cheap.
	DefaultSQLMaxLength = 16 << 20
	// DefaultSQLMaxMemory is the SQLite heap one connection may hold
	// (sqlite3_hard_heap_limit64): room for values at the length limit
	// several times over, next to a page cache and sorter that spill to
	// temporary files long before it.
	DefaultSQLMaxMemory = 64 << 20
	// DefaultQueryMaxResultBytes bounds the cell bytes query copies out of
	// SQLite for one answer. The 2000-token budget shows at most a few
	// kilobytes, so a row past this could never be shown anyway.
	DefaultQueryMaxResultBytes = 1 << 20
)

// sqlLimits are the memory limits of one query or tend connection; a zero
// field means its default.
type sqlLimits struct {
	length int   // SQLITE_LIMIT_LENGTH, bytes
	memory int64 // hard heap limit, bytes
	result int64 // cell bytes copied into one query answer
}

func newSQLLimits(o Options) sqlLimits {
	return sqlLimits{length: o.SQLMaxLength, memory: o.SQLMaxMemory, result: o.QueryMaxResultBytes}
}

func (l sqlLimits) maxLength() int { return orDefault(l.length, DefaultSQLMaxLength) }

func (l sqlLimits) maxMemory() int64 { return orDefault(l.memory, DefaultSQLMaxMemory) }

func (l sqlLimits) maxResult() int64 { return orDefault(l.result, DefaultQueryMaxResultBytes) }

func orDefault[T int | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// apply sets the limits on a freshly opened payload connection. Each
// connection of the driver is its own wasm instance, so the heap limit,
// process-wide in SQLite, is per connection here.
func (l sqlLimits) apply(conn *sqlite3.Conn) {
	conn.Limit(sqlite3.LIMIT_LENGTH, l.maxLength())
	conn.HardHeapLimit(l.maxMemory())
}

// errSQLMemory marks a statement stopped by the SQL memory limit.
var errSQLMemory = errors.New("vine: SQL memory limit reached")

// driverOOM is the value ncruces/go-sqlite3 panics with on SQLITE_NOMEM.
const driverOOM = "sqlite3: out of memory"

// withinMemory runs fn, SQLite work on conn, and turns the driver's
// out-of-memory panic into errSQLMemory. The driver panics on
// SQLITE_NOMEM, reading it as the host failing; under the hard heap limit
// it is the statement's doing, and the caller's to narrow. Any other
// panic is a defect and goes on up.
func withinMemory(conn *sqlite3.Conn, fn func() error) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if e, ok := r.(error); !ok || e.Error() != driverOOM {
			panic(r)
		}
		conn.HardHeapLimit(0) // let the cleanup (rollback, close) allocate
		err = errSQLMemory
	}()
	return fn()
}

// sqlLimitRefusal answers a statement that ran into a memory limit
// (C.5.2: it passed the guard and SQLite refused it, so E_QUERY_INVALID:
// a narrower statement will run), or nil for any other error.
func sqlLimitRefusal(op string, err error, l sqlLimits) error {
	unchanged := ""
	if op == "tend" {
		unchanged = "; the payload is unchanged"
	}
	switch {
	case errors.Is(err, errSQLMemory):
		return envelope.New(envelope.QueryInvalid,
			fmt.Sprintf("%s: the statement needed more than the %s SQL memory limit and was stopped%s",
				op, sizeText(l.maxMemory()), unchanged),
			"narrow it: filter with WHERE, aggregate, select fewer columns, avoid building large strings "+
				"(printf widths, group_concat, ||), and bound any recursive CTE").
			With("limit", "sql_max_memory")
	case errors.Is(err, sqlite3.TOOBIG):
		return envelope.New(envelope.QueryInvalid,
			fmt.Sprintf("SQL error: %s (the SQL length limit is %s per string or blob)%s",
				sqliteMessage(err), sizeText(int64(l.maxLength())), unchanged),
			"build smaller values: randomblob, zeroblob, printf widths, group_concat and || may not pass the "+
				"limit; read a large cell with length() or substr()").
			With("limit", "sql_max_length")
	}
	return nil
}

// resultTooLarge answers a query whose answer would copy more cell bytes
// out of SQLite than the result-size limit allows.
func resultTooLarge(row int, l sqlLimits) error {
	return envelope.New(envelope.QueryInvalid,
		fmt.Sprintf("query: row %d takes the result past the %s result-size limit", row, sizeText(l.maxResult())),
		"select fewer or narrower columns (length(col), substr(col, 1, 200)) or aggregate: "+
			"the 2000-token budget could never show a row this large").
		With("limit", "query_max_result_bytes")
}

// cellBytes is what copying a result cell out of SQLite costs: the text's
// bytes (read in place, not copied), eight for a number, nothing for a
// blob (described, never shipped) or a null.
func cellBytes(st *sqlite3.Stmt, i int) int64 {
	switch st.ColumnType(i) {
	case sqlite3.TEXT:
		return int64(len(st.ColumnRawText(i)))
	case sqlite3.INTEGER, sqlite3.FLOAT:
		return 8
	}
	return 0
}

// sizeText renders a byte count for messages: "16 MiB", "1536 bytes".
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
