// SPDX-License-Identifier: Apache-2.0

package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ncruces/go-sqlite3/driver"

	"github.com/monkeyllm/vine/envelope"
)

// Create gives birth to a payload at path: it must not exist (never
// overwrite), the tables are created in declared order and rows inserted
// with bound parameters, never as SQL text. On any failure the file is
// removed and the refusal is E_SCHEMA "dataset birth failed: <reason>".
func Create(ctx context.Context, path string, tables []Table, rows map[string][][]any) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return envelope.New(envelope.Schema, "plant: payload already exists: "+filepath.Base(path),
				"a dataset birth never overwrites; name another payload or plant without schema to reference it")
		}
		return err
	}
	f.Close()
	if err := fill(ctx, path, tables, rows); err != nil {
		Remove(path)
		var e *envelope.Error
		if errors.As(err, &e) {
			return e
		}
		return envelope.New(envelope.Schema, "plant: dataset birth failed: "+sqliteReason(err),
			"check the rows against the declared types and keys")
	}
	return nil
}

func fill(ctx context.Context, path string, tables []Table, rows map[string][][]any) error {
	db, err := driver.Open("file:" + filepath.ToSlash(path) + "?_pragma=journal_mode(delete)")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, DDL(t)); err != nil {
			return err
		}
		if err := insertRows(ctx, tx, t, rows[t.Name]); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func insertRows(ctx context.Context, tx *sql.Tx, t Table, list [][]any) error {
	if len(list) == 0 {
		return nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(t.Columns)), ",")
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+t.Name+" VALUES ("+marks+")")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, row := range list {
		if _, err := stmt.ExecContext(ctx, row...); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes a payload and the journal files SQLite may leave.
func Remove(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

// sqliteReason strips the driver's prefix so the message names SQLite's
// own reason.
func sqliteReason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "sqlite3: "); i >= 0 {
		msg = msg[i+len("sqlite3: "):]
	}
	return fmt.Sprint(msg)
}
