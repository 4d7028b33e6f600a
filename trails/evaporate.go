// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Dust is the persistent heat below which evaporation deletes a row
// instead of keeping it (H.1): the table stays proportional to what is
// warm.
const Dust = 0.01

// EvaporationStep is the clock precision of evaporation. A row deposited
// or evaporated less than a step ago is left for a later pass; its decay is
// deferred, never lost, because the row keeps its old stamp. This is what
// makes a second pass right after a first one change nothing, even on a
// wall clock that moved a few milliseconds in between.
const EvaporationStep = time.Second

// Evaporation counts what one Evaporate pass did (H.1).
type Evaporation struct {
	Decayed              int `json:"decayed"`
	Removed              int `json:"removed"`
	StaleSessionsCleared int `json:"stale_sessions_cleared"`
	// TopicDecayed and TopicRemoved count the topic heat rows (issue 34)
	// the same rule decayed and removed; absent where there are none, so
	// a forest without topic heat reports as before.
	TopicDecayed int `json:"topic_decayed,omitempty"`
	TopicRemoved int `json:"topic_removed,omitempty"`
}

// HeatStats summarizes the persistent heat: the row count, and the
// largest and mean heat rounded to four decimals (0 when empty).
type HeatStats struct {
	Rows int     `json:"rows"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// The decay is applied, not re-derived: each surviving row is multiplied
// by 0.5^(Δt/half-life) and re-stamped, so its stamp always says when the
// heat it holds was true. ?1 is now, ?2 the step, ?3 the half-life (all in
// seconds) and ?4 the dust threshold; the session sweep takes now and the
// time-to-live in seconds.
const (
	evaporateDust = `DELETE FROM heat WHERE scope = '' AND updated <= ?1 - ?2
		AND heat * pow(0.5, (?1 - updated) / ?3) < ?4`
	evaporateDecay = `UPDATE heat SET heat = heat * pow(0.5, (?1 - updated) / ?3), updated = ?1
		WHERE scope = '' AND updated <= ?1 - ?2`
	evaporateSessions = `DELETE FROM heat WHERE scope != '' AND updated < ?1 - ?2`

	// Topic heat decays by the same rule as the node heat it shadows, so
	// a conditioned reading never outlives the unconditioned one.
	evaporateTopicDust = `DELETE FROM heat_ctx WHERE updated <= ?1 - ?2
		AND heat * pow(0.5, (?1 - updated) / ?3) < ?4`
	evaporateTopicDecay = `UPDATE heat_ctx SET heat = heat * pow(0.5, (?1 - updated) / ?3), updated = ?1
		WHERE updated <= ?1 - ?2`
)

// Evaporate lets persistent heat decay with the given half-life, as of now
// (H.1). Rows that fall under Dust are deleted; the others keep their
// decayed heat and are stamped now. Rows stamped after now, or less than
// EvaporationStep before it, are untouched. Session rows (scope other
// than "") older than sessionTTL are deleted: they are the leftovers of
// hunts that never closed. The pass is one transaction: a concurrent
// deposit lands wholly before or wholly after it.
func (s *Store) Evaporate(ctx context.Context, now time.Time, halfLife, sessionTTL time.Duration) (Evaporation, error) {
	if halfLife <= 0 {
		return Evaporation{}, fmt.Errorf("trails: evaporate: half-life must be positive, got %s", halfLife)
	}
	if sessionTTL < 0 {
		return Evaporation{}, fmt.Errorf("trails: evaporate: session time-to-live must not be negative, got %s", sessionTTL)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Evaporation{}, err
	}
	defer tx.Rollback()
	at := epochSeconds(now)
	step, hl := EvaporationStep.Seconds(), halfLife.Seconds()
	var ev Evaporation
	type statement struct {
		sql   string
		args  []any
		count *int
	}
	sts := []statement{
		{evaporateDust, []any{at, step, hl, Dust}, &ev.Removed},
		{evaporateDecay, []any{at, step, hl}, &ev.Decayed},
		{evaporateSessions, []any{at, sessionTTL.Seconds()}, &ev.StaleSessionsCleared},
	}
	topic, _, err := tables(ctx, tx)
	if err != nil {
		return Evaporation{}, fmt.Errorf("trails: evaporate: %w", err)
	}
	if topic {
		sts = append(sts, statement{evaporateTopicDust, []any{at, step, hl, Dust}, &ev.TopicRemoved},
			statement{evaporateTopicDecay, []any{at, step, hl}, &ev.TopicDecayed})
	}
	for _, st := range sts {
		n, err := execCount(ctx, tx, st.sql, st.args)
		if err != nil {
			return Evaporation{}, fmt.Errorf("trails: evaporate: %w", err)
		}
		*st.count = n
	}
	if err := tx.Commit(); err != nil {
		return Evaporation{}, fmt.Errorf("trails: evaporate: %w", err)
	}
	return ev, nil
}

// execCount runs one statement with the positional arguments it uses and
// returns the rows it changed.
func execCount(ctx context.Context, tx *sql.Tx, query string, args []any) (int, error) {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// Stats summarizes the persistent heat. Session heat is never part of it:
// it belongs to one hunt and must not be observable from outside.
func (s *Store) Stats(ctx context.Context) (HeatStats, error) {
	var (
		st       HeatStats
		top, avg sql.NullFloat64
	)
	err := s.db.QueryRowContext(ctx, `SELECT count(*), max(heat), avg(heat) FROM heat WHERE scope = ''`).
		Scan(&st.Rows, &top, &avg)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return HeatStats{}, fmt.Errorf("trails: heat stats: %w", err)
	}
	st.Max, st.Mean = round4(top.Float64), round4(avg.Float64)
	return st, nil
}

// epochSeconds is the heat table's time: epoch seconds as a real, as
// Deposit stamps it.
func epochSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
