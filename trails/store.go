// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/monkeyllm/vine/internal/sqlitefile"
)

// DefaultDeposit is the heat one deposit adds (Part D).
const DefaultDeposit = 0.1

// SessionWeight is how much session heat counts beside persistent heat.
const SessionWeight = 0.5

// chunk bounds IN lists: one statement per chunk, never one per node.
const chunk = 400

// Store is the heat table of one forest. It is safe for concurrent use.
type Store struct {
	db      *sql.DB
	reads   sync.Map  // IN-list size -> *sql.Stmt: hot reads never re-prepare
	hotRows *sql.Stmt // the heat rows above zero of a scope, up to a limit

	// copy is every heat row in memory, good while the file's mark
	// stands (see heatcopy.go); reads without one query as before.
	watch *sqlitefile.Watch
	copy  sqlitefile.Memo[*heatCopy]
	miss  heatMisses
}

// Open opens (creating when needed) the heat store at path.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sqlitefile.Open(path, "", nil)
	if err != nil {
		return nil, err
	}
	const schema = `CREATE TABLE IF NOT EXISTS heat(
		scope TEXT NOT NULL DEFAULT '',
		node_id TEXT NOT NULL,
		heat REAL NOT NULL DEFAULT 0,
		updated REAL NOT NULL,
		PRIMARY KEY(scope, node_id))`
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("trails: create heat table: %w", err)
	}
	// LIMIT ?+0: a bare LIMIT parameter makes SQLite re-prepare the
	// statement whenever the limit changes (see catalog.RankExpr).
	hotRows, err := db.PrepareContext(ctx, "SELECT json_group_object(node_id, heat) FROM "+
		"(SELECT node_id, heat FROM heat WHERE scope = ? AND heat > 0 LIMIT ?+0)")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("trails: prepare heat reads: %w", err)
	}
	return &Store{db: db, hotRows: hotRows, watch: sqlitefile.NewWatch(path)}, nil
}

// Close releases the store.
func (s *Store) Close() error {
	s.reads.Range(func(_, st any) bool { st.(*sql.Stmt).Close(); return true })
	return errors.Join(s.hotRows.Close(), s.db.Close(), s.watch.Close())
}

// DB is the underlying database: an escape hatch whose schema is not a
// stable API. Callers use the typed methods (Heat, Deposit, ClearScope, …).
func (s *Store) DB() *sql.DB { return s.db }

// Heat reads min(1, persistent + 0.5·session) for ids, rounded to four
// decimals, with one statement per chunk reading both scopes. Absent ids
// are cold and absent from the map. session "" reads persistent heat only.
func (s *Store) Heat(ctx context.Context, ids []string, session string) (map[string]float64, error) {
	if len(ids) == 0 {
		return map[string]float64{}, nil
	}
	return s.heatAt(ctx, s.current(ctx), ids, session)
}

// heatAt is Heat from the copy c, or by query when c is nil.
func (s *Store) heatAt(ctx context.Context, c *heatCopy, ids []string, session string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	var persistent, sessional map[string]float64
	if c != nil {
		persistent, sessional = c.scopes[""], c.scopes[session]
	} else {
		var err error
		if persistent, sessional, err = s.read(ctx, session, ids); err != nil {
			return nil, err
		}
	}
	if session == "" {
		sessional = nil // as the query reads it: persistent heat only
	}
	for _, id := range ids {
		h := persistent[id] + SessionWeight*sessional[id]
		if h > 0 {
			out[id] = round4(math.Min(1, h))
		}
	}
	return out, nil
}

// read returns the persistent heat of ids and, when session is not "",
// their heat in that session. A read is one statement per chunk for both
// scopes: a move's whole catalog read is about one statement, so a
// second one per scope cost nearly as much as the rest of it.
func (s *Store) read(ctx context.Context, session string, ids []string) (persistent, sessional map[string]float64, err error) {
	persistent, sessional = map[string]float64{}, map[string]float64{}
	for part := range slices.Chunk(ids, chunk) {
		args := make([]any, 0, len(part)+2)
		args = append(args, "", session)
		for _, id := range part {
			args = append(args, id)
		}
		stmt, err := s.readStmt(ctx, len(part))
		if err != nil {
			return nil, nil, err
		}
		if err := scanHeat(ctx, stmt, args, session, persistent, sessional); err != nil {
			return nil, nil, err
		}
	}
	return persistent, sessional, nil
}

// scanHeat runs one read and sorts its rows by scope.
func scanHeat(ctx context.Context, stmt *sql.Stmt, args []any, session string, persistent, sessional map[string]float64) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var scope, id string
		var h float64
		if err := rows.Scan(&scope, &id, &h); err != nil {
			return err
		}
		switch {
		case scope == "":
			persistent[id] = h
		case scope == session:
			sessional[id] = h
		}
	}
	return rows.Err()
}

// readStmt is the prepared heat read of two scopes (persistent and a
// session, or persistent twice) for an IN list of n ids.
func (s *Store) readStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if st, ok := s.reads.Load(n); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.db.PrepareContext(ctx, "SELECT scope, node_id, heat FROM heat WHERE scope IN (?, ?) AND node_id IN ("+placeholders(n)+")")
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.reads.LoadOrStore(n, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// Hot returns every id with heat above zero, as Heat would read it, when
// there are at most limit rows of heat for the persistent and session
// scopes together; ok is false when there are more. A reader ranking
// thousands of neighbours by heat, nearly all of them cold, asks for the
// few hot ones instead of the heat of each.
func (s *Store) Hot(ctx context.Context, session string, limit int) (hot map[string]float64, ok bool, err error) {
	return s.hotAt(ctx, s.current(ctx), session, limit)
}

// hotAt is Hot from the copy c, or by query when c is nil.
func (s *Store) hotAt(ctx context.Context, c *heatCopy, session string, limit int) (hot map[string]float64, ok bool, err error) {
	if c != nil {
		hot, ok = c.hot(session, limit)
		return hot, ok, nil
	}
	persistent, err := s.scopeRows(ctx, "", limit+1)
	if err != nil || len(persistent) > limit {
		return nil, false, err
	}
	sessional := map[string]float64{}
	if session != "" {
		if sessional, err = s.scopeRows(ctx, session, limit+1-len(persistent)); err != nil {
			return nil, false, err
		}
		if len(persistent)+len(sessional) > limit {
			return nil, false, nil
		}
	}
	hot = map[string]float64{}
	for _, rows := range []map[string]float64{persistent, sessional} {
		for id := range rows {
			if h := round4(math.Min(1, persistent[id]+SessionWeight*sessional[id])); h > 0 {
				hot[id] = h
			}
		}
	}
	return hot, true, nil
}

// scopeRows reads up to limit rows of heat above zero in scope.
func (s *Store) scopeRows(ctx context.Context, scope string, limit int) (map[string]float64, error) {
	var raw string
	if err := s.hotRows.QueryRowContext(ctx, scope, limit).Scan(&raw); err != nil {
		return nil, err
	}
	out := map[string]float64{}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("trails: heat rows: %w", err)
	}
	return out, nil
}

// Deposit adds amount to each id's heat in scope ("" = persistent),
// capped at 1, stamping updated = now, in one transaction.
func (s *Store) Deposit(ctx context.Context, scope string, ids []string, amount float64, now time.Time) error {
	if len(ids) == 0 || amount <= 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := depositTx(ctx, tx, scope, ids, amount, epochSeconds(now)); err != nil {
		return err
	}
	return tx.Commit()
}

// depositTx is Deposit inside tx, stamped at stamp (epoch seconds).
func depositTx(ctx context.Context, tx *sql.Tx, scope string, ids []string, amount, stamp float64) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO heat(scope, node_id, heat, updated) VALUES (?, ?, min(?, 1.0), ?)
		ON CONFLICT(scope, node_id) DO UPDATE SET heat = min(heat + excluded.heat, 1.0), updated = excluded.updated`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range dedupe(ids) {
		if _, err := stmt.ExecContext(ctx, scope, id, amount, stamp); err != nil {
			return err
		}
	}
	return nil
}

// Rekey moves every scope's heat of oldID to newID (transplant), keeping
// the hotter row when newID already has one.
func (s *Store) Rekey(ctx context.Context, oldID, newID string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO heat(scope, node_id, heat, updated)
		SELECT scope, ?, heat, updated FROM heat WHERE node_id = ? AND true
		ON CONFLICT(scope, node_id) DO UPDATE SET heat = max(heat, excluded.heat), updated = max(updated, excluded.updated)`,
		newID, oldID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM heat WHERE node_id = ?", oldID); err != nil {
		return err
	}
	if topic, _, err := tables(ctx, tx); err != nil {
		return err
	} else if topic {
		if _, err := tx.ExecContext(ctx, `INSERT INTO heat_ctx(node_id, bucket, heat, updated)
			SELECT ?, bucket, heat, updated FROM heat_ctx WHERE node_id = ? AND true
			ON CONFLICT(node_id, bucket) DO UPDATE SET heat = max(heat, excluded.heat), updated = max(updated, excluded.updated)`,
			newID, oldID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM heat_ctx WHERE node_id = ?", oldID); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// ClearScope deletes every heat row of scope ("" = persistent heat, its
// topic heat included): what a caller that ran its own session does to
// drop that session's trails without closing the handle's.
func (s *Store) ClearScope(ctx context.Context, scope string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("trails: clear scope: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM heat WHERE scope = ?", scope); err != nil {
		return fmt.Errorf("trails: clear scope: %w", err)
	}
	if scope == "" {
		if topic, _, err := tables(ctx, tx); err != nil {
			return fmt.Errorf("trails: clear scope: %w", err)
		} else if topic {
			if _, err := tx.ExecContext(ctx, "DELETE FROM heat_ctx"); err != nil {
				return fmt.Errorf("trails: clear scope: %w", err)
			}
		}
	}
	return tx.Commit()
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
