// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"fmt"
	"github.com/monkeyllm/vine/internal/testforest"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/rest"
)

// Ids the scoped key cannot see, and ids that do not exist.
var (
	hiddenIDs      = []string{"people/lucia-andrade", "projects/lighthouse/budget", "library/harbour-handbook"}
	absentID       = "concepts/no-such-node"
	hiddenBranches = []string{"people/_index", "projects/lighthouse/_index", "people"}
	absentBranch   = "nowhere/_index"
)

// TestOutOfScopeIsAbsent checks the existence oracle (spec 08 §7.4 r1) on
// every surface: a hidden id answers byte for byte as an absent one, the
// only difference being the id the caller sent.
func TestOutOfScopeIsAbsent(t *testing.T) {
	st := newStation(t, nil)
	byID := []struct{ tool, args string }{
		{"look", `{"id":"%s"}`},
		{"look", `{"id":["%s","concepts/tide"]}`},
		{"move", `{"id":"%s"}`},
		{"pick", `{"id":"%s"}`},
		{"pick", `{"id":["%s","concepts/tide"]}`},
		{"history", `{"id":"%s"}`},
		{"query", `{"id":"%s","sql":"SELECT 1"}`},
		{"tend", `{"id":"%s","sql":"DELETE FROM x"}`},
		{"graft", `{"id":"%s","patch":{"set_frontmatter":{"title":"Renamed"}}}`},
		{"prune", `{"id":"%s","force":true}`},
		{"transplant", `{"id":"%s","new_id":"concepts/moved-here"}`},
		{"view", `{"id":"%s"}`},
	}
	byScope := []struct{ tool, args string }{
		{"scan", `{"parent_id":"%s"}`},
		{"sniff", `{"terms":["tide"],"scope":"%s"}`},
		{"calendar", `{"scope":"%s"}`},
		{"coverage", `{"scope":"%s"}`},
	}
	for _, s := range st.surfaces(t, nil) {
		check := func(t *testing.T, tool, args string, hidden []string, absent string) {
			if tool == "view" && s.name == "rest" {
				return // REST serves bytes on the payload route, tested there
			}
			_, want := s.call(t, keyScoped, tool, fmt.Sprintf(args, absent))
			for _, h := range hidden {
				testforest.Unchanged(t, st.dir, func() {
					_, got := s.call(t, keyScoped, tool, fmt.Sprintf(args, h))
					assert.Equal(t, want, strings.ReplaceAll(got, h, absent), "%s %s: %s", s.name, tool, h)
				})
			}
		}
		t.Run(s.name, func(t *testing.T) {
			for _, c := range byID {
				check(t, c.tool, c.args, hiddenIDs, absentID)
			}
			for _, c := range byScope {
				check(t, c.tool, c.args, hiddenBranches, absentBranch)
			}
		})
	}
}

// TestScopedCountsSeeOnlyVisibleNodes checks spec 08 §7.4 r2: totals,
// coverage and search results are computed from the visible set.
func TestScopedCountsSeeOnlyVisibleNodes(t *testing.T) {
	st := newStation(t, nil)
	var underProjects, visibleProjects, visible int
	for _, id := range st.man.Nodes {
		if strings.HasPrefix(id, "projects/") && id != "projects/_index" {
			underProjects++
			if visibleUnder(id) {
				visibleProjects++
			}
		}
		if visibleUnder(id) {
			visible++
		}
	}
	for _, s := range st.surfaces(t, nil) {
		t.Run(s.name, func(t *testing.T) {
			total := func(key, tool, args, field string) int {
				refused, body := s.call(t, key, tool, args)
				require.False(t, refused, body)
				var m map[string]any
				require.NoError(t, json.Unmarshal([]byte(body), &m))
				return int(m[field].(float64))
			}
			scan := `{"parent_id":"projects/_index","recursive":true,"limit":200}`
			assert.Equal(t, underProjects, total(keyFull, "scan", scan, "total"))
			assert.Equal(t, visibleProjects, total(keyScoped, "scan", scan, "total"), "scan's total counts visible nodes")
			assert.Equal(t, visible, total(keyScoped, "coverage", `{}`, "total"), "coverage counts visible nodes")
			assert.Less(t, total(keyScoped, "coverage", `{}`, "total"), total(keyFull, "coverage", `{}`, "total"))

			for _, c := range []struct{ tool, args string }{
				{"locate", `{"query":"harbour tide lighthouse","k":20}`},
				{"sniff", `{"terms":["harbour"],"k":20}`},
				{"harvest", `{"query":"harbour lighthouse budget","k":10}`},
				{"scan", `{"parent_id":"projects/_index","recursive":true,"limit":200}`},
				{"look", `{"id":"projects/_index"}`},
				{"move", `{"id":"projects/_index","direction":"both"}`},
				{"calendar", `{}`},
			} {
				refused, body := s.call(t, keyScoped, c.tool, c.args)
				require.False(t, refused, "%s: %s", c.tool, body)
				var leaked []string
				for _, id := range st.man.Nodes {
					// The master index is named in trails of visible nodes.
					if !visibleUnder(id) && id != "_index" && strings.Contains(body, `"`+id+`"`) {
						leaked = append(leaked, id)
					}
				}
				assert.Empty(t, leaked, "%s names hidden nodes", c.tool)
			}
		})
	}
}

// TestMovedToHiddenCollapses checks C.15 under a policy (spec 08 §7.5): a
// waymark is kept only when its destination is visible.
func TestMovedToHiddenCollapses(t *testing.T) {
	st := newStation(t, nil)
	ok(t, st.post(keyFull, "transplant", `{"id":"concepts/swell","new_id":"people/swell"}`))
	ok(t, st.post(keyFull, "transplant", `{"id":"concepts/lora","new_id":"operations/lora"}`))
	for _, s := range st.surfaces(t, nil) {
		t.Run(s.name, func(t *testing.T) {
			for _, tool := range []string{"look", "pick", "move", "history"} {
				args := `{"id":"%s"}`
				_, absent := s.call(t, keyScoped, tool, fmt.Sprintf(args, absentID))
				_, hidden := s.call(t, keyScoped, tool, fmt.Sprintf(args, "concepts/swell"))
				assert.Equal(t, absent, strings.ReplaceAll(hidden, "concepts/swell", absentID),
					"%s: a redirect to a hidden node is the absent answer, message and hint", tool)
				assert.NotContains(t, hidden, "people")

				refused, full := s.call(t, keyFull, tool, fmt.Sprintf(args, "concepts/swell"))
				require.True(t, refused)
				assert.Equal(t, "people/swell", refusalOf(t, full)["moved_to"], "the unrestricted key follows the waymark")

				refused, kept := s.call(t, keyScoped, tool, fmt.Sprintf(args, "concepts/lora"))
				require.True(t, refused)
				e := refusalOf(t, kept)
				assert.Equal(t, string(vine.EMoved), e["code"], tool)
				assert.Equal(t, "operations/lora", e["moved_to"], "%s: a visible destination is kept", tool)
			}
		})
	}
	r := st.do(http.MethodGet, "/v1/forests/mare-alta/export/concepts/swell", keyScoped, "")
	absent := st.do(http.MethodGet, "/v1/forests/mare-alta/export/"+absentID, keyScoped, "")
	assert.Equal(t, absent.body, strings.ReplaceAll(r.body, "concepts/swell", absentID), "export follows C.15 too")
}

// TestCapabilityRefusals: a key without the capability gets E_FORBIDDEN
// naming it, with the caps it holds as the hint, on every surface, before
// anything is written; a plant outside the grant is E_FORBIDDEN naming
// the grant.
func TestCapabilityRefusals(t *testing.T) {
	st := newStation(t, nil)
	plant := func(id string) string {
		return `{"node":{"id":"` + id + `","type":"concept","title":"X","summary":"An x.","parent":"` +
			id[:strings.LastIndex(id, "/")+1] + `_index"}}`
	}
	cases := []struct {
		key, tool, args string
		message, hint   string
		code            vine.Code
	}{
		{keyRead, "plant", plant("concepts/x"), "plant needs the write capability", "this key holds: read", vine.EForbidden},
		{keyRead, "query", `{"id":"finance/ledger-2026","sql":"SELECT 1"}`, "query needs the query capability", "this key holds: read", vine.EForbidden},
		{keyRead, "tend", `{"id":"finance/ledger-2026","sql":"DELETE FROM ledger"}`, "tend needs the tend capability", "", vine.EForbidden},
		{keyMasked, "graft", `{"id":"concepts/tide","patch":{"set_frontmatter":{"title":"T"}}}`, "graft needs the write capability", "this key holds: read", vine.EForbidden},
		{keyScoped, "plant", plant("people/newcomer"), "outside this key's grant", "concepts/", vine.EForbidden},
		{keyScoped, "plant", `{"node":{"type":"concept","title":"X","summary":"An x."}}`, "", "", vine.ESchema},
		{keyScoped, "transplant", `{"id":"concepts/tide","new_id":"people/tide"}`, "outside this key's grant", "", vine.EForbidden},
	}
	for _, s := range st.surfaces(t, nil) {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range cases {
				testforest.Unchanged(t, st.dir, func() {
					refused, body := s.call(t, c.key, c.tool, c.args)
					require.True(t, refused, "%s %s: %s", c.key, c.tool, body)
					e := refusalOf(t, body)
					assert.Equal(t, string(c.code), e["code"], body)
					assert.Contains(t, e["message"], c.message)
					if c.hint != "" {
						assert.Contains(t, e["hint"], c.hint)
					}
				})
			}
		})
	}
	assert.Equal(t, http.StatusForbidden, st.post(keyRead, "plant", plant("concepts/x")).status)
}

// TestRevokedAndExpiredKeys runs the real keys file through REST and MCP.
func TestRevokedAndExpiredKeys(t *testing.T) {
	grants := map[string]vine.Policy{forestID: {Allow: []string{""}, Caps: []vine.Capability{vine.CapRead}}}
	live, kLive, err := keys.NewKey("live", grants, keys.NewKeyOptions{})
	require.NoError(t, err)
	revoked, kRevoked, err := keys.NewKey("revoked", grants, keys.NewKeyOptions{})
	require.NoError(t, err)
	kRevoked.RevokedAt = time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	expired, kExpired, err := keys.NewKey("expired", grants, keys.NewKeyOptions{Now: func() time.Time { return time.Now().Add(-91 * 24 * time.Hour) }})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "keys.yaml")
	require.NoError(t, keys.WriteFile(path, &keys.File{Keys: []keys.Key{kLive, kRevoked, kExpired}}))
	store, err := keys.Load(path)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), live[3:], "the file holds digests, never secrets")

	st := newStation(t, func(o *rest.Options) { o.Keys = store })
	assert.Equal(t, http.StatusOK, st.post(live, "look", `{"id":"concepts/tide"}`).status)
	for _, k := range []string{revoked, expired} {
		envelope(t, st.post(k, "look", `{"id":"concepts/tide"}`), http.StatusUnauthorized, vine.EForbidden)
	}
	mcpCall := st.mcpSurface(t, store)
	refused, body := mcpCall(t, live, "look", `{"id":"concepts/tide"}`)
	assert.False(t, refused, body)
	for _, k := range []string{revoked, expired, "", "mk_forged"} {
		refused, body := mcpCall(t, k, "look", `{"id":"concepts/tide"}`)
		require.True(t, refused)
		e := refusalOf(t, body)
		assert.Equal(t, string(vine.EForbidden), e["code"])
		assert.Equal(t, "missing or invalid API key", e["message"])
		assert.Contains(t, e["hint"], "Authorization: Bearer <key>")
	}
	refused, _ = mcpCall(t, "", "forests", `{}`)
	assert.True(t, refused, "forests() needs a key too")
}
