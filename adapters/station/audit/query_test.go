// SPDX-License-Identifier: Apache-2.0

package audit_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/station/audit"
)

// seed is a trail across three forests and the deployment, oldest
// first; each row is named by its args' n.
func seed(t *testing.T) *audit.Log {
	t.Helper()
	l, _, _ := newLog(t, nil)
	day := func(m, d int) time.Time { return time.Date(2026, time.Month(m), d, 10, 0, 0, 0, time.UTC) }
	rows := []record.Call{
		{Time: day(8, 1), Principal: "ana", Forest: "acme", Primitive: "look", Result: record.OK},
		{Time: day(8, 2), Principal: "ana", Forest: "acme", Primitive: "answer", Result: record.OK, CostUSD: ptr(0.01)},
		{Time: day(8, 3), Principal: "bob", Forest: "acme", Primitive: "answer", Result: record.Cache, CostUSD: ptr(0.01)},
		{Time: day(8, 4), Principal: "bob", Forest: "acme", Primitive: "plant", Result: record.Error, ErrorCode: "E_FORBIDDEN"},
		{Time: day(8, 5), Principal: "eve", Forest: "beta", Primitive: "look", Result: record.OK},
		{Time: day(8, 6), Principal: "eve", Forest: "beta", Primitive: "model.listen_stt", Result: record.OK, CostUSD: ptr(0.5), Via: record.Via("listen")},
		{Time: day(8, 7), Principal: "root", Forest: "-", Primitive: "auth.login", Result: record.Refused},
		{Time: day(8, 8), Principal: "zed", Forest: "acme2", Primitive: "ext.clip.save", Result: record.OK, Via: record.Via("clip")},
		{Time: day(9, 1), Principal: "ana", Forest: "acme", Primitive: "look", Result: record.OK},
		{Time: day(9, 2), Principal: "eve", Forest: "beta", Primitive: "look", Result: record.OK},
	}
	for i, c := range rows {
		c.Args = record.Args{"n": string(rune('0' + i + 1))}
		if i == 9 {
			c.Args = record.Args{"n": "10"}
		}
		l.Record(context.Background(), c)
	}
	require.NoError(t, l.Flush(context.Background()))
	return l
}

// TestQuery reads one trail through scopes and filters: the scope is
// applied before anything else, so no entry, total or facet of a forest
// the caller does not administer ever shows, and a short page is short
// only because the filtered set is.
func TestQuery(t *testing.T) {
	l := seed(t)
	owner := audit.Scope{Owner: true}
	acme := audit.Scope{Forests: []string{"acme"}}
	cases := []struct {
		name    string
		scope   audit.Scope
		filter  audit.Filter
		entries []string // args n, newest first
		totals  audit.Totals
		facets  *audit.Facets // checked when set
	}{
		{"owner sees all", owner, audit.Filter{}, []string{"10", "9", "8", "7", "6", "5", "4", "3", "2", "1"},
			audit.Totals{Calls: 10, Errors: 2, SpentUSD: ptr(0.51), AvoidedUSD: ptr(0.01)},
			&audit.Facets{Principals: []string{"ana", "bob", "eve", "root", "zed"}, Forests: []string{"-", "acme", "acme2", "beta"},
				Primitives: []string{"answer", "auth.login", "ext.clip.save", "look", "model.listen_stt", "plant"},
				Results:    []string{"cache", "error", "ok", "refused"}, Vias: []string{"ext:clip", "ext:listen"}}},
		{"forest admin sees its forest only", acme, audit.Filter{}, []string{"9", "4", "3", "2", "1"},
			audit.Totals{Calls: 5, Errors: 1, SpentUSD: ptr(0.01), AvoidedUSD: ptr(0.01)},
			&audit.Facets{Principals: []string{"ana", "bob"}, Forests: []string{"acme"},
				Primitives: []string{"answer", "look", "plant"}, Results: []string{"cache", "error", "ok"}, Vias: []string{}}},
		{"a filter on another forest leaks nothing", acme, audit.Filter{Forest: "beta"}, nil,
			audit.Totals{}, nil},
		{"a principal seen elsewhere only leaks nothing", acme, audit.Filter{Principal: "eve"}, nil, audit.Totals{}, nil},
		{"no deployment rows for a forest admin", audit.Scope{Forests: []string{"acme", "-"}}, audit.Filter{Forest: "-"}, nil, audit.Totals{}, nil},
		{"the short page is cut after the scope", acme, audit.Filter{Limit: 2}, []string{"9", "4"},
			audit.Totals{Calls: 5, Errors: 1, SpentUSD: ptr(0.01), AvoidedUSD: ptr(0.01)}, nil},
		{"two forests", audit.Scope{Forests: []string{"acme", "beta"}}, audit.Filter{Limit: 3}, []string{"10", "9", "6"},
			audit.Totals{Calls: 8, Errors: 1, SpentUSD: ptr(0.51), AvoidedUSD: ptr(0.01)}, nil},
		{"no reach, no rows", audit.Scope{}, audit.Filter{}, nil, audit.Totals{},
			&audit.Facets{Principals: []string{}, Forests: []string{}, Primitives: []string{}, Results: []string{}, Vias: []string{}}},
		{"errors: error and refused rows", owner, audit.Filter{Errors: true}, []string{"7", "4"}, audit.Totals{Calls: 2, Errors: 2}, nil},
		{"result cache: avoided only", owner, audit.Filter{Result: record.Cache}, []string{"3"},
			audit.Totals{Calls: 1, AvoidedUSD: ptr(0.01)}, nil},
		{"primitive", owner, audit.Filter{Primitive: "answer"}, []string{"3", "2"},
			audit.Totals{Calls: 2, SpentUSD: ptr(0.01), AvoidedUSD: ptr(0.01)}, nil},
		{"via: the rows an extension acted in", owner, audit.Filter{Via: "ext:listen"}, []string{"6"},
			audit.Totals{Calls: 1, SpentUSD: ptr(0.5)}, nil},
		{"via is an exact name, not a prefix", owner, audit.Filter{Via: "ext:cli"}, nil, audit.Totals{}, nil},
		{"via inside the scope", acme, audit.Filter{Via: "ext:clip"}, nil, audit.Totals{}, nil},
		{"principal and forest", owner, audit.Filter{Principal: "ana", Forest: "acme"}, []string{"9", "2", "1"},
			audit.Totals{Calls: 3, SpentUSD: ptr(0.01)}, nil},
		{"since a month", owner, audit.Filter{Since: "2026-09"}, []string{"10", "9"}, audit.Totals{Calls: 2}, nil},
		{"until a day is inclusive", owner, audit.Filter{Until: "2026-08-03"}, []string{"3", "2", "1"},
			audit.Totals{Calls: 3, SpentUSD: ptr(0.01), AvoidedUSD: ptr(0.01)}, nil},
		{"a window inside the scope", acme, audit.Filter{Since: "2026-08-02", Until: "2026-08-31"}, []string{"4", "3", "2"},
			audit.Totals{Calls: 3, Errors: 1, SpentUSD: ptr(0.01), AvoidedUSD: ptr(0.01)}, nil},
		{"prefix of a forest id is not the forest", audit.Scope{Forests: []string{"acme2"}}, audit.Filter{}, []string{"8"},
			audit.Totals{Calls: 1}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page, err := l.Query(context.Background(), c.scope, c.filter)
			require.NoError(t, err)
			var got []string
			for _, e := range page.Entries {
				var a map[string]string
				require.NoError(t, jsonUnmarshal(e.Args, &a))
				got = append(got, a["n"])
				if !c.scope.Owner {
					assert.Contains(t, c.scope.Forests, e.Forest)
					assert.NotEqual(t, record.NoForest, e.Forest)
				}
			}
			assert.Equal(t, c.entries, got)
			assert.NotNil(t, page.Entries, "entries is a list, never null")
			assert.Equal(t, c.totals, page.Totals)
			if c.facets != nil {
				assert.Equal(t, *c.facets, page.Filters)
			}
			if !c.scope.Owner {
				for _, f := range page.Filters.Forests {
					assert.Contains(t, c.scope.Forests, f, "facets stay in scope")
					assert.NotEqual(t, record.NoForest, f)
				}
			}
		})
	}
}

func TestQueryRefusesABadFilter(t *testing.T) {
	l := seed(t)
	for _, f := range []audit.Filter{{Result: "bananas"}, {Since: "2026-13"}, {Since: "2026-09", Until: "2026-08"}, {Via: "clip"}, {Via: "ext:"}} {
		_, err := l.Query(context.Background(), audit.Scope{Owner: true}, f)
		assert.Equal(t, vine.ESchema, vine.CodeOf(err), "%+v", f)
	}
	page, err := l.Query(context.Background(), audit.Scope{Owner: true}, audit.Filter{Limit: 10000})
	require.NoError(t, err)
	assert.Len(t, page.Entries, 10, "a limit past the most is the most")
}

func TestParseQuery(t *testing.T) {
	cases := []struct {
		query string
		want  audit.Filter
		err   string // the refusal's message, when refused
	}{
		{"", audit.Filter{}, ""},
		{"limit=20&principal=ana&forest=acme&primitive=look&result=ok&errors=true&since=2026&until=2026-08-31&via=ext:clip",
			audit.Filter{Limit: 20, Principal: "ana", Forest: "acme", Primitive: "look", Result: record.OK, Errors: true,
				Since: "2026", Until: "2026-08-31", Via: "ext:clip"}, ""},
		{"via=clip", audit.Filter{}, `audit: parameter 'via' got "clip", expected ext:<id>`},
		{"errors=0&principal=", audit.Filter{}, ""},
		{"limit=900", audit.Filter{Limit: 900}, ""},
		{"page=2", audit.Filter{}, "audit: unknown query parameter 'page'"},
		{"forest=a&forest=b", audit.Filter{}, "audit: query parameter 'forest' is given more than once"},
		{"limit=0", audit.Filter{}, `audit: parameter 'limit' got "0", expected an integer of at least 1`},
		{"limit=ten", audit.Filter{}, `audit: parameter 'limit' got "ten", expected an integer of at least 1`},
		{"errors=yes", audit.Filter{}, `audit: parameter 'errors' got "yes", expected true or false`},
		{"result=done", audit.Filter{}, `audit: parameter 'result' got "done", expected one of ok, error, cache, refused`},
		{"since=2026-02-30", audit.Filter{}, "*"},
		{"since=yesterday", audit.Filter{}, "*"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			q, err := url.ParseQuery(c.query)
			require.NoError(t, err)
			f, err := audit.ParseQuery(q)
			if c.err == "" {
				require.NoError(t, err)
				assert.Equal(t, c.want, f)
				return
			}
			require.Error(t, err)
			e := vine.AsError("audit", err)
			assert.Equal(t, vine.ESchema, e.Code)
			if c.err != "*" {
				assert.Equal(t, c.err, e.Message)
			}
		})
	}
}
