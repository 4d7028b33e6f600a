// SPDX-License-Identifier: Apache-2.0

// Package quota keeps what each extension may spend on models, per
// forest (spec 11 §6 Quota, L.7 r6): a ceiling in US dollars per hour,
// day or month, and what was spent and how many calls were made in the
// current window.
//
// The host checks before the provider call an extension makes
// ([Store.Admit]) and records after it with the call's cost
// ([Store.Charge]). A window is named by its string (YYYY-MM,
// YYYY-MM-DD, YYYY-MM-DDTHH, UTC); a row whose stored window is not the
// current one reads as empty (rollover on read) and is reset by the next
// charge, so nothing sweeps the table. Calls are metered whether or not
// a ceiling is set.
//
// Only dollars count against a ceiling: a call the provider publishes
// no price for is counted in calls and costs nothing, so an extension
// using only unpriced models never reaches a ceiling. A ceiling of 0
// refuses every call.
//
// The table lives in the host registry's file beside the registry's own
// and is migrated additively. A Store is safe for concurrent use.
package quota

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/monkeyllm/vine/adapters/station/internal/migration"
	"github.com/monkeyllm/vine/envelope"
)

// The periods a ceiling is set for.
const (
	Hour  = "hour"
	Day   = "day"
	Month = "month"
)

// DefaultPeriod is the period of a ceiling set without one.
const DefaultPeriod = Month

// Periods lists the accepted periods, shortest first.
var Periods = []string{Hour, Day, Month}

const createTable = `CREATE TABLE IF NOT EXISTS extension_quota (
	ext         TEXT NOT NULL,
	forest      TEXT NOT NULL,
	ceiling_usd REAL,
	period      TEXT NOT NULL DEFAULT 'month',
	window_key  TEXT NOT NULL DEFAULT '',
	spent_usd   REAL NOT NULL DEFAULT 0,
	calls       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (ext, forest)
)`

// State is the quota of one extension on one forest in the current
// window: the answer of GET /v1/admin/extensions/quota and the facts of
// an E_EXT_QUOTA refusal.
type State struct {
	Ext    string `json:"ext"`
	Forest string `json:"forest"`
	Period string `json:"period"`
	// Window names the current window (2026-12, 2026-12-05,
	// 2026-12-05T08).
	Window string `json:"window"`
	// Spent is the dollars recorded in Window, rounded to a millionth.
	Spent float64 `json:"spent"`
	Calls int64   `json:"calls"`
	// Ceiling is the dollars allowed per window; nil when none is set
	// (metered, never refused). Remaining is what is left of it.
	Ceiling   *float64 `json:"ceiling"`
	Remaining *float64 `json:"remaining"`
	// Resets is when the next window begins (RFC 3339, UTC).
	Resets string `json:"resets"`

	resets time.Time
}

// RetryAfter is how long until the window rolls over, in whole seconds
// (at least 1): the Retry-After of a refusal.
func (s State) RetryAfter(now time.Time) int {
	return max(1, int(math.Ceil(s.resets.Sub(now).Seconds())))
}

// Options configure a Store.
type Options struct {
	// Now is the clock that decides the window; nil is time.Now.
	Now func() time.Time
}

// Store is the extension_quota table of one registry file.
type Store struct {
	db  *sql.DB
	now func() time.Time
	mu  sync.Mutex // a charge's read-modify-write
}

// Open migrates the table in db (additive) and returns its Store.
func Open(ctx context.Context, db *sql.DB, opt *Options) (*Store, error) {
	s := &Store{db: db, now: time.Now}
	if opt != nil && opt.Now != nil {
		s.now = opt.Now
	}
	if err := migration.Run(ctx, db, migration.Plan{Create: []string{createTable}}); err != nil {
		return nil, fmt.Errorf("quota: migrate: %w", err)
	}
	return s, nil
}

// CheckPeriod validates a period; "" is DefaultPeriod.
func CheckPeriod(period string) (string, error) {
	switch period {
	case "":
		return DefaultPeriod, nil
	case Hour, Day, Month:
		return period, nil
	}
	return "", envelope.New(envelope.Schema, fmt.Sprintf("quota: 'period' got %q, expected hour, day or month", period),
		"the default is month")
}

// Window is the window of period holding t (UTC), and when the next
// one begins.
func Window(period string, t time.Time) (string, time.Time) {
	t = t.UTC()
	switch period {
	case Hour:
		start := t.Truncate(time.Hour)
		return start.Format("2006-01-02T15"), start.Add(time.Hour)
	case Day:
		start := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return start.Format("2006-01-02"), start.AddDate(0, 0, 1)
	}
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start.Format("2006-01"), start.AddDate(0, 1, 0)
}

// row is a stored row as read.
type row struct {
	ceiling sql.NullFloat64
	period  string
	window  string
	spent   float64
	calls   int64
}

func (s *Store) read(ctx context.Context, ext, forest string) (row, error) {
	r := row{period: DefaultPeriod}
	err := s.db.QueryRowContext(ctx, `SELECT ceiling_usd, period, window_key, spent_usd, calls FROM extension_quota
		WHERE ext = ? AND forest = ?`, ext, forest).Scan(&r.ceiling, &r.period, &r.window, &r.spent, &r.calls)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil
	}
	return r, err
}

// state is r as of now: a past window reads as empty.
func (r row) state(ext, forest string, now time.Time) State {
	w, resets := Window(r.period, now)
	st := State{Ext: ext, Forest: forest, Period: r.period, Window: w, Resets: resets.Format(time.RFC3339), resets: resets}
	if r.window == w {
		st.Spent, st.Calls = round(r.spent), r.calls
	}
	if r.ceiling.Valid {
		c := r.ceiling.Float64
		left := round(math.Max(0, c-st.Spent))
		st.Ceiling, st.Remaining = &c, &left
	}
	return st
}

func round(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// Get is the quota of ext on forest now. An extension never charged
// there reads with no ceiling, nothing spent, the default period.
func (s *Store) Get(ctx context.Context, ext, forest string) (State, error) {
	r, err := s.read(ctx, ext, forest)
	if err != nil {
		return State{}, err
	}
	return r.state(ext, forest, s.now()), nil
}

// Set stores ext's ceiling on forest in dollars per period ("" is
// DefaultPeriod). A negative or non-finite ceiling, or another period,
// is E_SCHEMA naming it. A period different from the stored one starts
// a new window (the old window's string no longer matches).
func (s *Store) Set(ctx context.Context, ext, forest string, ceiling float64, period string) (State, error) {
	period, err := CheckPeriod(period)
	if err != nil {
		return State{}, err
	}
	if ceiling < 0 || math.IsNaN(ceiling) || math.IsInf(ceiling, 0) {
		return State{}, envelope.New(envelope.Schema, "quota: 'ceiling' got "+strconv.FormatFloat(ceiling, 'g', -1, 64)+", expected dollars of at least 0",
			"0 refuses every model call of the extension on that forest")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO extension_quota (ext, forest, ceiling_usd, period) VALUES (?, ?, ?, ?)
		ON CONFLICT (ext, forest) DO UPDATE SET ceiling_usd = excluded.ceiling_usd, period = excluded.period`,
		ext, forest, ceiling, period); err != nil {
		return State{}, err
	}
	return s.Get(ctx, ext, forest)
}

// Admit is checked before the provider call ext makes on forest: the
// state when the call may go, E_EXT_QUOTA (an *envelope.Error carrying
// ext, forest, period, spent, calls, window, ceiling, remaining and
// retry_after) when the window's ceiling is spent. The state is
// answered with the refusal too, for its Retry-After.
func (s *Store) Admit(ctx context.Context, ext, forest string) (State, error) {
	st, err := s.Get(ctx, ext, forest)
	if err != nil {
		return st, err
	}
	if st.Ceiling == nil || st.Spent < *st.Ceiling {
		return st, nil
	}
	return st, Refusal(st, s.now())
}

// Refusal is the E_EXT_QUOTA envelope of an exhausted st.
func Refusal(st State, now time.Time) *envelope.Error {
	return envelope.New(envelope.ExtQuota,
		fmt.Sprintf("extension %s has spent its ceiling of $%g per %s on forest %s", st.Ext, *st.Ceiling, st.Period, st.Forest),
		fmt.Sprintf("the window %s rolls over at %s; an administrator of the whole deployment may raise the ceiling (POST /v1/admin/extensions/quota)", st.Window, st.Resets)).
		With("ext", st.Ext).With("forest", st.Forest).With("period", st.Period).With("spent", st.Spent).
		With("calls", st.Calls).With("window", st.Window).With("ceiling", *st.Ceiling).With("remaining", *st.Remaining).
		With("retry_after", st.RetryAfter(now))
}

// Charge records one call of ext on forest after it ran, with its cost
// in dollars (nil: unpriced, counted but free), in the window current
// now; a row of a past window starts over.
func (s *Store) Charge(ctx context.Context, ext, forest string, usd *float64) (State, error) {
	cost := 0.0
	if usd != nil && *usd > 0 && !math.IsInf(*usd, 0) {
		cost = *usd
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.read(ctx, ext, forest)
	if err != nil {
		return State{}, err
	}
	w, _ := Window(r.period, s.now())
	if r.window != w {
		r.window, r.spent, r.calls = w, 0, 0
	}
	r.spent += cost
	r.calls++
	if _, err := s.db.ExecContext(ctx, `INSERT INTO extension_quota (ext, forest, period, window_key, spent_usd, calls)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (ext, forest) DO UPDATE SET window_key = excluded.window_key,
		spent_usd = excluded.spent_usd, calls = excluded.calls`, ext, forest, r.period, r.window, r.spent, r.calls); err != nil {
		return State{}, err
	}
	return r.state(ext, forest, s.now()), nil
}
