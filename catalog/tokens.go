// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// Tokenizer splits text into the terms nodes_fts holds for it: SQLite's
// own tokenizer, declared as the index declares it, run over a private
// in-memory database. It is the reference an in-memory copy of the index
// falls back to for text its own tokenizer does not cover (anything but
// ASCII), so both hold the same terms. Safe for concurrent use; Close
// releases the database.
type Tokenizer struct {
	mu   sync.Mutex
	conn *sqlite3.Conn
	ins  *sqlite3.Stmt
	sel  *sqlite3.Stmt
	err  error
}

// tokenizerDDL is the scratch index the tokenizer fills: one column with
// the tokenizer of nodes_fts, and the vocabulary table listing each token
// with its document and position.
const tokenizerDDL = `CREATE VIRTUAL TABLE t USING fts5(x, tokenize='` + ftsTokenize + `');
CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`

// Tokens returns the terms of each text, in order: what nodes_fts would
// index for a column holding it.
func (t *Tokenizer) Tokens(texts []string) ([][]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.open(); err != nil {
		return nil, err
	}
	if err := t.conn.Exec("BEGIN"); err != nil {
		return nil, err
	}
	defer t.conn.Exec("ROLLBACK") // the scratch rows are never kept
	for i, s := range texts {
		t.ins.BindInt(1, i+1)
		t.ins.BindText(2, s)
		if err := t.ins.Exec(); err != nil {
			return nil, fmt.Errorf("catalog: tokenize: %w", err)
		}
	}
	type inst struct {
		doc, off int
		term     string
	}
	var all []inst
	for t.sel.Step() {
		all = append(all, inst{t.sel.ColumnInt(0), t.sel.ColumnInt(1), t.sel.ColumnText(2)})
	}
	if err := t.sel.Reset(); err != nil {
		return nil, fmt.Errorf("catalog: tokenize: %w", err)
	}
	slices.SortFunc(all, func(a, b inst) int { return cmp.Or(cmp.Compare(a.doc, b.doc), cmp.Compare(a.off, b.off)) })
	out := make([][]string, len(texts))
	for _, x := range all {
		out[x.doc-1] = append(out[x.doc-1], x.term)
	}
	return out, nil
}

func (t *Tokenizer) open() error {
	if t.conn != nil || t.err != nil {
		return t.err
	}
	t.err = t.init()
	return t.err
}

func (t *Tokenizer) init() error {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return fmt.Errorf("catalog: tokenizer: %w", err)
	}
	t.conn = conn
	if err := fts5.Register(conn); err != nil {
		return fmt.Errorf("catalog: tokenizer: %w", err)
	}
	if err := conn.Exec(tokenizerDDL); err != nil {
		return fmt.Errorf("catalog: tokenizer: %w", err)
	}
	if t.ins, _, err = conn.Prepare("INSERT INTO t(rowid, x) VALUES (?, ?)"); err != nil {
		return fmt.Errorf("catalog: tokenizer: %w", err)
	}
	if t.sel, _, err = conn.Prepare("SELECT doc, offset, term FROM v"); err != nil {
		return fmt.Errorf("catalog: tokenizer: %w", err)
	}
	return nil
}

// Close releases the tokenizer's database.
func (t *Tokenizer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn == nil {
		return nil
	}
	for _, st := range []*sqlite3.Stmt{t.ins, t.sel} {
		if st != nil {
			st.Close()
		}
	}
	err := t.conn.Close()
	t.conn, t.err = nil, fmt.Errorf("catalog: tokenizer closed")
	return err
}
