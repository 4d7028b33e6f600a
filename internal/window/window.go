// SPDX-License-Identifier: Apache-2.0

// Package window reads the time windows of C.13: since/until bounds in
// YYYY, YYYY-MM or YYYY-MM-DD form expanded to their period, over the
// created or updated date, applied in SQL on the indexed column.
package window

import (
	"fmt"
	"strings"
	"time"

	"github.com/monkeyllm/vine/envelope"
)

// Fields accepted by date_field.
const (
	Created = "created"
	Updated = "updated"
)

// Window is a normalized window. The zero value (with Field set) is "no
// window": absent bounds change nothing, byte for byte.
type Window struct {
	Since string // YYYY-MM-DD or ""
	Until string // YYYY-MM-DD or ""
	Field string // "created" or "updated"
}

// Echo is the window as responses echo it: full dates or null.
type Echo struct {
	Since     *string `json:"since"`
	Until     *string `json:"until"`
	DateField string  `json:"date_field"`
}

// Parse validates and expands the bounds. dateField "" means created; it
// is checked even without bounds. Refusals are E_SCHEMA naming the
// parameter and the accepted forms.
func Parse(since, until, dateField string) (Window, error) {
	w := Window{Field: Created}
	switch strings.TrimSpace(dateField) {
	case "", Created:
	case Updated:
		w.Field = Updated
	default:
		return w, envelope.New(envelope.Schema,
			fmt.Sprintf("parameter 'date_field' got %q, expected one of created, updated", dateField),
			"windows read the passport's created or updated date")
	}
	var err error
	if w.Since, err = expand("since", since, false); err != nil {
		return w, err
	}
	if w.Until, err = expand("until", until, true); err != nil {
		return w, err
	}
	if w.Since != "" && w.Until != "" && w.Since > w.Until {
		return w, envelope.New(envelope.Schema,
			fmt.Sprintf("window is empty: since %s is after until %s", w.Since, w.Until),
			"swap the bounds or drop one")
	}
	return w, nil
}

// expand turns a bound into a full date: the first day of its period for
// since, the last day for until.
func expand(name, raw string, last bool) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", nil
	}
	var t time.Time
	var err error
	switch len(s) {
	case 4:
		t, err = time.Parse("2006", s)
		if err == nil && last {
			t = t.AddDate(1, 0, -1)
		}
	case 7:
		t, err = time.Parse("2006-01", s)
		if err == nil && last {
			t = t.AddDate(0, 1, -1)
		}
	case 10:
		t, err = time.Parse(time.DateOnly, s)
	default:
		err = fmt.Errorf("shape")
	}
	if err != nil {
		return "", envelope.New(envelope.Schema,
			fmt.Sprintf("parameter '%s' got %q, expected a date as YYYY, YYYY-MM or YYYY-MM-DD", name, raw),
			"for example since: \"2026-08\" means from 2026-08-01, until: \"2026\" means through 2026-12-31")
	}
	return t.Format(time.DateOnly), nil
}

// Active reports whether any bound is set.
func (w Window) Active() bool { return w.Since != "" || w.Until != "" }

// Echo renders the normalized window for a response.
func (w Window) Echo() Echo {
	e := Echo{DateField: w.Field}
	if w.Since != "" {
		s := w.Since
		e.Since = &s
	}
	if w.Until != "" {
		u := w.Until
		e.Until = &u
	}
	return e
}

// SQL is the normative predicate over column prefix+field (prefix names a
// table alias such as "n."; it must be trusted text) with its arguments:
// a bare range comparison on the indexed column, the upper bound exclusive
// one day past until so datetimes inside the last day stay in. An inactive
// window yields "1" and no arguments.
func (w Window) SQL(prefix string) (string, []any) {
	if !w.Active() {
		return "1", nil
	}
	col := prefix + w.Field
	conds := []string{col + " != ''", col + " IS NOT NULL"}
	var args []any
	if w.Since != "" {
		conds = append(conds, col+" >= ?")
		args = append(args, w.Since)
	}
	if w.Until != "" {
		conds = append(conds, col+" < ?")
		args = append(args, dayAfter(w.Until))
	}
	return "(" + strings.Join(conds, " AND ") + ")", args
}

// Contains is the in-memory twin of SQL over a stored date value; tests
// keep the two in agreement.
func (w Window) Contains(date string) bool {
	if !w.Active() {
		return true
	}
	if date == "" {
		return false
	}
	if w.Since != "" && date < w.Since {
		return false
	}
	if w.Until != "" && date >= dayAfter(w.Until) {
		return false
	}
	return true
}

func dayAfter(d string) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return t.AddDate(0, 0, 1).Format(time.DateOnly)
}
