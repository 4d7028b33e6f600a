// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/adapters/station/quota"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/internal/exttest"
)

func (c *testClock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// auditRow is an audit entry as a test reads it.
type auditRow struct {
	Principal string         `json:"principal"`
	Forest    string         `json:"forest"`
	Primitive string         `json:"primitive"`
	Args      map[string]any `json:"args"`
	Result    string         `json:"result"`
	ErrorCode string         `json:"error_code"`
	ModelMS   *float64       `json:"model_ms"`
	CostUSD   *float64       `json:"cost_usd"`
	Via       string         `json:"via"`
}

func (ts *testStation) trail(key, query string) []auditRow {
	ts.t.Helper()
	require.NoError(ts.t, ts.s.audit.Flush(context.Background()))
	r := ts.call("GET", "/v1/admin/audit?limit=500"+query, key, nil)
	require.Equal(ts.t, http.StatusOK, r.status, r.body)
	var page struct{ Entries []auditRow }
	require.NoError(ts.t, json.Unmarshal([]byte(r.body), &page))
	return page.Entries
}

// TestExtensionQuota is F.177 and F.178: an extension's model calls are
// priced from the provider's listing and audited for the person served,
// with via, cost and model_ms; a ceiling set by a governor (never a
// forest admin alone) refuses the call once spent, before the provider
// is called — 429 with Retry-After at the rollover, audited with via —
// and the next window admits.
func TestExtensionQuota(t *testing.T) {
	tree := exttest.Tree(t, "github.com/monkeyllm/vine/adapters/station/testdata/extpeek")
	home, err := install.Open(filepath.Join(t.TempDir(), "ext-home"))
	require.NoError(t, err)
	clock := &testClock{t: time.Now().UTC()}
	ts := newTestStation(t, func(o *Options) {
		o.Extensions, o.Now, o.AllowPrivateDestinations = home, clock.now, true
	})
	owner := ts.owner()
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/forests", owner, map[string]any{"id": "second", "title": "Second"}).status)
	inst := ts.call("POST", "/v1/admin/extensions", owner, map[string]any{"action": "install", "source": tree, "acknowledge": true, "enable_on": forestID})
	require.Equal(t, http.StatusCreated, inst.status, inst.body)
	fran := ts.call("POST", "/v1/admin/people", owner, map[string]any{"principal": "fran", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin", "read"}}})
	require.Equal(t, http.StatusOK, fran.status, fran.body)
	franKey := fran.str("api_key")

	srv := llamacpptest.NewServer(llamacpptest.Reply("Spent wisely."))
	srv.Model = "tiny"
	srv.Pricing = map[string]string{"prompt": "0.001", "completion": "0.002"}
	srv.Usage = func(llamacpptest.Request, string) (int, int) { return 10, 5 } // $0.02 a call
	t.Cleanup(srv.Close)
	require.Equal(t, http.StatusOK, ts.call("POST", "/v1/admin/providers", owner, map[string]any{"name": "lab", "endpoint": srv.URL + "/v1"}).status)
	bind := ts.call("POST", "/v1/admin/models", owner, map[string]any{"forest": forestID, "role": "peek_chat", "provider": "lab", "model": "tiny"})
	require.Equal(t, http.StatusOK, bind.status, bind.body)

	set := func(key string, body map[string]any) reply {
		return ts.call("POST", "/v1/admin/extensions/quota", key, body)
	}
	denied := set(franKey, map[string]any{"ext": "peek", "forest": forestID, "ceiling": 100})
	assert.Equal(t, http.StatusForbidden, denied.status, denied.body)
	assert.Contains(t, denied.body, "needs authority over the whole deployment")
	bad := set(owner, map[string]any{"ext": "peek", "forest": forestID, "ceiling": 1, "period": "week"})
	assert.Equal(t, http.StatusBadRequest, bad.status)
	assert.Contains(t, bad.body, `'period'`)
	assert.Contains(t, set(owner, map[string]any{"ext": "peek", "forest": forestID}).body, `'ceiling'`)
	assert.Equal(t, http.StatusNotFound, set(owner, map[string]any{"ext": "ghost", "forest": forestID, "ceiling": 1}).status)
	ok := set(owner, map[string]any{"ext": "peek", "forest": forestID, "ceiling": 0.03, "period": "hour"})
	require.Equal(t, http.StatusOK, ok.status, ok.body)
	assert.Equal(t, "hour", ok.json["period"])

	spend := func() reply {
		return ts.call("POST", "/v1/ext/peek/spend?forest="+forestID, franKey, map[string]any{"q": "go"})
	}
	for range 2 { // $0.00, then $0.02: both under the $0.03 ceiling when checked
		r := spend()
		require.Equal(t, http.StatusOK, r.status, r.body)
		assert.Contains(t, r.body, "Spent wisely.")
	}
	calls := len(srv.Requests())
	refused := spend()
	require.Equal(t, http.StatusTooManyRequests, refused.status, refused.body)
	_, rollover := quota.Window(quota.Hour, clock.now())
	wantAfter := int(math.Ceil(rollover.Sub(clock.now()).Seconds()))
	assert.Equal(t, strconv.Itoa(max(1, wantAfter)), refused.header("Retry-After"))
	var env struct{ Error map[string]any }
	require.NoError(t, json.Unmarshal([]byte(refused.body), &env))
	assert.Equal(t, "E_EXT_QUOTA", env.Error["code"])
	for k, v := range map[string]any{"ext": "peek", "forest": forestID, "period": "hour", "spent": 0.04, "calls": 2.0, "ceiling": 0.03, "remaining": 0.0} {
		assert.Equal(t, v, env.Error[k], k)
	}
	assert.NotEmpty(t, env.Error["window"])
	assert.Equal(t, calls, len(srv.Requests()), "refused before the provider is called")

	st := ts.call("GET", "/v1/admin/extensions/quota?ext=peek&forest="+forestID, franKey, nil)
	require.Equal(t, http.StatusOK, st.status, st.body)
	assert.Equal(t, 0.04, st.json["spent"])
	assert.Equal(t, 2.0, st.json["calls"])
	assert.Equal(t, http.StatusForbidden, ts.call("GET", "/v1/admin/extensions/quota?ext=peek&forest=second", franKey, nil).status)

	rows := ts.trail(owner, "&via=ext:peek")
	var priced, refusals, routes, installs int
	for _, e := range rows {
		assert.Equal(t, "ext:peek", e.Via)
		switch {
		case e.Primitive == "model.peek_chat" && e.ErrorCode == "E_EXT_QUOTA":
			refusals++
			assert.Equal(t, "fran", e.Principal, "principal stays whoever asked")
		case e.Primitive == "model.peek_chat":
			priced++
			assert.Equal(t, "fran", e.Principal)
			require.NotNil(t, e.CostUSD)
			assert.InDelta(t, 0.02, *e.CostUSD, 1e-9, "tokens at the listed price")
			assert.NotNil(t, e.ModelMS)
			assert.NotContains(t, e.Args, "via", "via is its own column, not an argument")
		case e.Primitive == "ext.peek.spend":
			routes++
		case e.Primitive == "extension.install":
			installs++
			assert.Equal(t, "-", e.Forest)
			assert.Equal(t, "olga", e.Principal)
		}
	}
	assert.Equal(t, []int{2, 1, 3, 1}, []int{priced, refusals, routes, installs})
	for _, e := range ts.trail(owner, "&primitive=extension.quota") {
		assert.Empty(t, e.Via, "setting a ceiling is not an extension acting")
	}

	clock.set(rollover)
	next := spend()
	assert.Equal(t, http.StatusOK, next.status, "the next window admits: %s", next.body)
	st = ts.call("GET", "/v1/admin/extensions/quota?ext=peek&forest="+forestID, owner, nil)
	assert.Equal(t, 0.02, st.json["spent"])
	assert.Equal(t, 1.0, st.json["calls"])
}
