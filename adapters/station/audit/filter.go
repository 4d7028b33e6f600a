// SPDX-License-Identifier: Apache-2.0

package audit

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/window"
)

// Limits of a page.
const (
	DefaultLimit = 100
	MaxLimit     = 500
)

// Filter narrows the rows of a Query, after the scope. The zero value is
// the newest DefaultLimit rows.
type Filter struct {
	// Limit bounds the page: zero or less means DefaultLimit, more than
	// MaxLimit means MaxLimit.
	Limit int
	// Principal, Forest, Primitive and Result keep the rows equal to
	// each one set.
	Principal, Forest, Primitive string
	Result                       record.Result
	// Via keeps the rows an extension acted in ("ext:<id>", as
	// record.Via builds it); rows without one never match.
	Via string
	// Errors keeps error rows only: result error or refused, or an error
	// code set.
	Errors bool
	// Since and Until are C.13 bounds (YYYY, YYYY-MM or YYYY-MM-DD,
	// expanded to their period: Since its first day, Until its last,
	// inclusive), read against the row's ts.
	Since, Until string
}

// params are the query parameters of GET /v1/admin/audit, in the order
// the refusal of an unknown one lists them.
var params = []string{"limit", "principal", "forest", "primitive", "result", "via", "errors", "since", "until"}

// results are the values a row's result takes.
var results = []record.Result{record.OK, record.Error, record.Cache, record.Refused}

// ParseQuery reads the query string of GET /v1/admin/audit into a
// Filter. An unknown parameter, one given twice, or a value of the wrong
// shape is E_SCHEMA naming it (spec 09 §9), never ignored; an empty value
// is an absent parameter.
func ParseQuery(q url.Values) (Filter, error) {
	var f Filter
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(params, k) {
			return f, envelope.New(envelope.Schema, fmt.Sprintf("audit: unknown query parameter '%s'", k),
				"This route accepts: "+strings.Join(params, ", ")+".")
		}
		if len(q[k]) > 1 {
			return f, envelope.New(envelope.Schema, fmt.Sprintf("audit: query parameter '%s' is given more than once", k),
				"give each parameter once")
		}
	}
	f.Principal, f.Forest, f.Primitive = q.Get("principal"), q.Get("forest"), q.Get("primitive")
	f.Result, f.Since, f.Until = record.Result(q.Get("result")), q.Get("since"), q.Get("until")
	f.Via = q.Get("via")
	var err error
	if f.Limit, err = parseLimit(q.Get("limit")); err != nil {
		return f, err
	}
	if f.Errors, err = parseBool("errors", q.Get("errors")); err != nil {
		return f, err
	}
	if _, err := f.check(); err != nil {
		return f, err
	}
	return f, nil
}

func parseLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, envelope.New(envelope.Schema, fmt.Sprintf("audit: parameter 'limit' got %q, expected an integer of at least 1", s),
			fmt.Sprintf("the default is %d, the most %d", DefaultLimit, MaxLimit))
	}
	return n, nil
}

func parseBool(name, s string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, envelope.New(envelope.Schema, fmt.Sprintf("audit: parameter '%s' got %q, expected true or false", name, s),
		name+"=true keeps the error rows only")
}

// span is a Filter's window as the SQL reads it: ts from since
// (inclusive) to before (exclusive, the day after until).
type span struct{ since, before string }

// check validates what a Filter built in code may still get wrong (the
// result value, the bounds) and expands the bounds.
func (f Filter) check() (span, error) {
	if f.Result != "" && !slices.Contains(results, f.Result) {
		return span{}, envelope.New(envelope.Schema, fmt.Sprintf("audit: parameter 'result' got %q, expected one of ok, error, cache, refused", f.Result),
			"errors=true keeps every error row, whatever its result")
	}
	if f.Via != "" && (!strings.HasPrefix(f.Via, record.ViaPrefix) || f.Via == record.ViaPrefix) {
		return span{}, envelope.New(envelope.Schema, fmt.Sprintf("audit: parameter 'via' got %q, expected ext:<id>", f.Via),
			"via names the extension that acted, as the rows show it (ext:whisper)")
	}
	w, err := window.Parse(f.Since, f.Until, "")
	if err != nil {
		return span{}, err
	}
	s := span{since: w.Since}
	if w.Until != "" {
		day, _ := time.Parse("2006-01-02", w.Until) // Parse produced it
		s.before = day.AddDate(0, 0, 1).Format("2006-01-02")
	}
	return s, nil
}

// limit is the page size f asks for, within bounds.
func (f Filter) limit() int {
	switch {
	case f.Limit <= 0:
		return DefaultLimit
	case f.Limit > MaxLimit:
		return MaxLimit
	}
	return f.Limit
}
