// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The topic heat lives in two tables the original does not know:
// heat_ctx (node, bucket) → heat, persistent only (a session is one hunt,
// its own topic already), and settings, whose heat_mode row is the
// forest's choice of reading. Both are created by the first write that
// needs them, never by Open or a read, so a trails.db written by the
// original opens and reads byte for byte as before; once created, the
// original ignores them.
const (
	topicSchema = `CREATE TABLE IF NOT EXISTS heat_ctx(
		node_id TEXT NOT NULL,
		bucket INTEGER NOT NULL,
		heat REAL NOT NULL DEFAULT 0,
		updated REAL NOT NULL,
		PRIMARY KEY(node_id, bucket))`
	settingsSchema = `CREATE TABLE IF NOT EXISTS settings(key TEXT PRIMARY KEY, value TEXT NOT NULL)`
	heatModeKey    = "heat_mode"
)

// querier is what a read needs of a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// tables reports which of the additive tables exist.
func tables(ctx context.Context, q querier) (topic, settings bool, err error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('heat_ctx', 'settings')`)
	if err != nil {
		return false, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return false, false, err
		}
		topic = topic || name == "heat_ctx"
		settings = settings || name == "settings"
	}
	return topic, settings, rows.Err()
}

// DepositTopic is Deposit of persistent heat that also lays amount on
// each of topic's buckets for each id, capped at 1 per bucket, in the
// same transaction: the node heat unconditioned reads see, and the
// topic heat conditioned reads see, move together. An empty topic is a
// plain Deposit.
func (s *Store) DepositTopic(ctx context.Context, ids []string, topic Topic, amount float64, now time.Time) error {
	if len(topic) == 0 {
		return s.Deposit(ctx, "", ids, amount, now)
	}
	if len(ids) == 0 || amount <= 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stamp := epochSeconds(now)
	if err := depositTx(ctx, tx, "", ids, amount, stamp); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, topicSchema); err != nil {
		return fmt.Errorf("trails: create topic heat table: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO heat_ctx(node_id, bucket, heat, updated) VALUES (?, ?, min(?, 1.0), ?)
		ON CONFLICT(node_id, bucket) DO UPDATE SET heat = min(heat + excluded.heat, 1.0), updated = excluded.updated`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range dedupe(ids) {
		for _, b := range topic {
			if _, err := stmt.ExecContext(ctx, id, int(b), amount, stamp); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// Mode is the forest's heat mode: Unconditioned unless SetMode chose
// otherwise. A value this engine does not know reads as Unconditioned.
func (s *Store) Mode(ctx context.Context) (HeatMode, error) {
	if c := s.current(ctx); c != nil {
		return c.mode, nil
	}
	return readMode(ctx, s.db)
}

func readMode(ctx context.Context, q querier) (HeatMode, error) {
	_, settings, err := tables(ctx, q)
	if err != nil || !settings {
		return Unconditioned, err
	}
	var v string
	err = q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, heatModeKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return Unconditioned, nil
	}
	if err != nil {
		return Unconditioned, fmt.Errorf("trails: read heat mode: %w", err)
	}
	if m, err := ParseHeatMode(v); err == nil {
		return m, nil
	}
	return Unconditioned, nil
}

// SetMode records the forest's heat mode. Switching loses nothing: topic
// heat is laid in both modes, so either reading is ready at any time.
func (s *Store) SetMode(ctx context.Context, m HeatMode) error {
	if _, err := ParseHeatMode(string(m)); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, settingsSchema); err != nil {
		return fmt.Errorf("trails: create settings table: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, heatModeKey, string(m)); err != nil {
		return fmt.Errorf("trails: set heat mode: %w", err)
	}
	return tx.Commit()
}

// HeatOn reads heat conditioned on topic: a node's persistent heat is
// the mean of its topic heat over topic's buckets, so a question sharing
// every term with the hunts that warmed it reads what Heat reads, one
// sharing half of them half of it, and an unrelated one nothing. Heat
// laid without a topic (by Deposit, or by the original) lifts no topic.
// Session heat is added as Heat adds it. An empty topic reads Heat.
func (s *Store) HeatOn(ctx context.Context, ids []string, session string, topic Topic) (map[string]float64, error) {
	if len(ids) == 0 {
		return map[string]float64{}, nil
	}
	if len(topic) == 0 {
		return s.heatAt(ctx, s.current(ctx), ids, session)
	}
	return s.heatOnAt(ctx, s.current(ctx), ids, session, topic)
}

// HeatFor reads heat as the forest's mode says: HeatOn topic when it is
// Conditioned, Heat otherwise. It is the read ranking calls: one look at
// the file's mark answers the mode and the heat together.
func (s *Store) HeatFor(ctx context.Context, ids []string, session string, topic Topic) (map[string]float64, error) {
	if len(ids) == 0 {
		return map[string]float64{}, nil
	}
	c := s.current(ctx)
	if len(topic) > 0 && s.modeAt(ctx, c) == Conditioned {
		return s.heatOnAt(ctx, c, ids, session, topic)
	}
	return s.heatAt(ctx, c, ids, session)
}

// HotFor is Hot or HotOn as the forest's mode says (see HeatFor).
func (s *Store) HotFor(ctx context.Context, session string, topic Topic, limit int) (hot map[string]float64, ok bool, err error) {
	c := s.current(ctx)
	if len(topic) > 0 && s.modeAt(ctx, c) == Conditioned {
		if c == nil {
			return nil, false, nil
		}
		hot, ok = c.hotOn(session, topic, limit)
		return hot, ok, nil
	}
	return s.hotAt(ctx, c, session, limit)
}

// modeAt is the mode from the copy c or, without one, by query; a failed
// read is the default.
func (s *Store) modeAt(ctx context.Context, c *heatCopy) HeatMode {
	if c != nil {
		return c.mode
	}
	m, _ := readMode(ctx, s.db)
	return m
}

// heatOnAt is HeatOn of a non-empty topic from the copy c, or by query
// when c is nil.
func (s *Store) heatOnAt(ctx context.Context, c *heatCopy, ids []string, session string, topic Topic) (map[string]float64, error) {
	if c != nil { // the hot path: no map in between
		var sessional map[string]float64
		if session != "" {
			sessional = c.scopes[session]
		}
		out := make(map[string]float64, len(ids))
		for _, id := range ids {
			if h := c.topicHeat(id, topic) + SessionWeight*sessional[id]; h > 0 {
				out[id] = round4(math.Min(1, h))
			}
		}
		return out, nil
	}
	persistent, err := s.readTopic(ctx, ids, topic)
	if err != nil {
		return nil, err
	}
	var sessional map[string]float64
	if session != "" {
		if _, sessional, err = s.read(ctx, session, ids); err != nil {
			return nil, err
		}
	}
	out := make(map[string]float64, len(ids))
	for _, id := range ids {
		if h := persistent[id] + SessionWeight*sessional[id]; h > 0 {
			out[id] = round4(math.Min(1, h))
		}
	}
	return out, nil
}

// HotOn is Hot conditioned on topic, answered from the in-memory copy
// only: without one ok is false and the caller reads HeatOn of its ids.
func (s *Store) HotOn(ctx context.Context, session string, topic Topic, limit int) (hot map[string]float64, ok bool, err error) {
	c := s.current(ctx)
	if len(topic) == 0 {
		return s.hotAt(ctx, c, session, limit)
	}
	if c == nil {
		return nil, false, nil
	}
	hot, ok = c.hotOn(session, topic, limit)
	return hot, ok, nil
}

// readTopic is the conditioned persistent heat of ids by query, for a
// store too large to copy.
func (s *Store) readTopic(ctx context.Context, ids []string, topic Topic) (map[string]float64, error) {
	out := map[string]float64{}
	has, _, err := tables(ctx, s.db)
	if err != nil || !has {
		return out, err
	}
	buckets := make([]string, len(topic))
	for i, b := range topic {
		buckets[i] = strconv.Itoa(int(b))
	}
	for part := range slices.Chunk(ids, chunk) {
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		// The buckets are integers this package made: inlined, they
		// cannot inject, and the statement needs no second IN list of
		// parameters.
		rows, err := s.db.QueryContext(ctx, "SELECT node_id, sum(heat) FROM heat_ctx WHERE node_id IN ("+
			placeholders(len(part))+") AND bucket IN ("+strings.Join(buckets, ",")+") GROUP BY node_id", args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var sum float64
			if err := rows.Scan(&id, &sum); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = sum / float64(len(topic))
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	return out, nil
}
