// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

// sentinel is text that lives only in bodies, rows, SQL and sections: no
// delivery may carry it.
const sentinel = "SENTINEL-TEXT"

// syntheticData is a representative payload of each event the engine
// does not emit itself (08 §11, 09 §10), as the host emits them.
var syntheticData = map[string]map[string]any{
	"ingest.started":         {"job": "job-1", "mode": "files", "done": 0, "total": 3},
	"ingest.finished":        {"job": "job-1", "mode": "files", "done": 3, "total": 3, "commit": "abc", "curated": 2},
	"ingest.failed":          {"job": "job-1", "code": "E_SCHEMA"},
	"ingest.cancelled":       {"job": "job-1", "done": 1, "total": 3},
	"ingest.document.failed": {"job": "job-1", "document": "report.pdf", "index": 1, "total": 3},
	"answer.served":          {"mode": "walk", "cached": false, "evidence": 4, "cost": 0.01},
	"answer.failed":          {"code": "E_MODEL"},
	"access.denied":          {"primitive": "plant", "code": "E_FORBIDDEN"},
	"grant.changed":          {"principal": "rui", "caps": []string{"read"}, "branches": 1},
	"model.bound":            {"role": "answer", "model": "m-1"},
	"snapshot.created":       {"name": "s1", "bytes": 10, "payloads": 0},
	"canopy.built":           {"embedded": 3, "nodes": 3, "stale": 0, "model": "e-1", "refresh": false},
	"reindex.finished":       {"nodes": 30, "ms": 12},
	"auth.login.succeeded":   {"username": "rui", "host": "10.0.0.1"},
	"auth.login.failed":      {"username": "rui", "host": "10.0.0.1"},
	"pair.issued":            {"principal": "rui", "caps": []string{"read"}, "prefix": "mk_abcdef", "expires_in_days": 90},
	"key.issued":             {"principal": "rui", "label": "ci", "prefix": "mk_abcdef", "expires_in_days": 90},
	"key.revoked":            {"principal": "rui", "prefix": "mk_abcdef"},
	"provider.changed":       {"name": "p", "endpoint": "api.example", "removed": false, "key_supplied": true},
	"forest.created":         {"forest": "new", "title": "New", "seed": "", "commit": "abc"},
}

// TestNoPayloadCarriesAHiddenID is the table test over the catalogue (issue
// 28): for webhooks whose owners see different parts of the forest (the
// owner's policy) and which listen to different branches, every delivered
// body names only ids its webhook may see — the node decides delivery,
// a hidden parent or origin is withheld — and none carries body, row or
// SQL text. Every event each webhook may see does arrive.
func TestNoPayloadCarriesAHiddenID(t *testing.T) {
	e := newEnv(t, true)
	e.grant("ana", []string{"finance/"}, vine.CapAdmin)
	rcv := newReceiver(t, func(int) int { return http.StatusOK })
	all := []string{}
	forestOnly := []string{}
	for _, c := range Catalogue {
		all = append(all, c.Event)
		if c.Scope == ScopeForest {
			forestOnly = append(forestOnly, c.Event)
		}
	}
	hooks := []struct {
		path, owner string
		branches    []string
		deployment  bool
		meta        bool
		sees        func(id string) bool
	}{
		{"/owner", "olga", nil, false, false, func(string) bool { return true }},
		{"/ana", "ana", nil, false, true, func(id string) bool { return strings.HasPrefix(id, "finance/") }},
		{"/ops", "olga", []string{"operations/"}, false, false, func(id string) bool { return strings.HasPrefix(id, "operations/") }},
		{"/deployment", "olga", nil, true, false, func(string) bool { return true }},
	}
	for _, h := range hooks {
		body := map[string]any{"url": rcv.srv.URL + h.path, "events": forestOnly, "branches": h.branches, "include_metadata": h.meta}
		if h.deployment {
			body["scope"], body["events"] = "deployment", all
		}
		e.save(caller(h.owner), body)
	}

	// The content events, from real writes whose bodies, rows and SQL carry
	// the sentinel.
	e.plant("olga", "finance/a", sentinel)
	e.plant("olga", "operations/b", sentinel)
	e.call("olga", "graft", `{"id": "finance/a", "patch": {"append_section": {"header": "H", "body": "`+sentinel+`"}}}`)
	e.call("olga", "transplant", `{"id": "operations/b", "new_id": "finance/b"}`)
	e.call("olga", "transplant", `{"id": "finance/a", "new_id": "operations/a"}`)
	e.call("olga", "prune", `{"id": "operations/a"}`)
	e.call("olga", "plant", `{"node": {"id": "finance/ds", "type": "dataset", "title": "DS", "summary": "A short valid summary.", "parent": "finance/_index", "schema": {"c": {"columns": {"a": "TEXT"}}}, "rows": {"c": [["`+sentinel+`"]]}}}`)
	e.call("olga", "tend", `{"id": "finance/ds", "sql": "INSERT INTO c VALUES ('`+sentinel+`')"}`)
	e.call("olga", "plant", `{"node": {"id": "operations/sub/_index", "type": "branch", "title": "Sub", "summary": "A short valid summary.", "parent": "operations/_index"}}`)
	for _, c := range Catalogue {
		if data, ok := syntheticData[c.Event]; ok {
			forest := forestID
			if c.Scope == ScopeDeployment {
				forest = ""
			}
			e.h.Emit(vine.HookEvent{Name: c.Event, Forest: forest, Principal: "olga", Data: data})
		} else {
			require.Contains(t, []string{vine.EventNodePlanted, vine.EventBranchCreated, vine.EventDatasetCreated,
				vine.EventNodeGrafted, vine.EventNodePruned, vine.EventNodeTransplanted, vine.EventDatasetChanged}, c.Event,
				"every catalogue event is exercised")
		}
	}
	// Markers: the one worker delivers in order, so once each webhook has
	// its marker, it has everything emitted before.
	e.plant("olga", "finance/zz-marker", "x")
	e.plant("olga", "operations/zz-marker", "x")

	got := map[string][]map[string]any{}
	markers := map[string]int{}
	for markers["/owner"] < 2 || markers["/ana"] < 1 || markers["/ops"] < 1 || markers["/deployment"] < 2 {
		h := rcv.next(t)
		assert.NotContains(t, string(h.body), sentinel, "no body, row or SQL text")
		var b map[string]any
		require.NoError(t, json.Unmarshal(h.body, &b))
		got[h.path] = append(got[h.path], b)
		if node, _ := b["data"].(map[string]any)["node"].(string); strings.HasSuffix(node, "zz-marker") && b["event"] == "node.planted" {
			markers[h.path]++
		}
	}

	for _, h := range hooks {
		seen := map[string]bool{}
		for _, b := range got[h.path] {
			data := b["data"].(map[string]any)
			ev := b["event"].(string)
			seen[ev] = true
			if node, ok := data["node"].(string); ok {
				assert.True(t, h.sees(node), "%s got %s of hidden %s", h.path, ev, node)
			}
			for _, f := range idFields {
				if id, ok := data[f].(string); ok && id != "" {
					assert.True(t, h.sees(id), "%s got hidden %s %s in %s", h.path, f, id, ev)
				}
			}
			_, hasTitle := data["title"]
			if _, own := syntheticData[ev]["title"]; own {
				continue // forest.created names the new forest's title itself
			}
			assert.Equal(t, h.meta && (ev == "node.planted" || ev == "branch.created" || ev == "dataset.created"), hasTitle,
				"%s %s: metadata only when opted in and held", h.path, ev)
		}
		for _, c := range Catalogue {
			if c.Scope == ScopeDeployment && !h.deployment {
				assert.False(t, seen[c.Event], "%s: a forest webhook never takes %s", h.path, c.Event)
			}
			if _, synthetic := syntheticData[c.Event]; synthetic && (c.Scope == ScopeForest || h.deployment) {
				assert.True(t, seen[c.Event], "%s: %s arrives", h.path, c.Event)
			}
		}
	}
	// What each webhook sees of the content events, exactly.
	nodes := func(path string) []string {
		out := []string{}
		for _, b := range got[path] {
			data := b["data"].(map[string]any)
			if node, ok := data["node"].(string); ok {
				s := b["event"].(string) + " " + node
				if mf, ok := data["moved_from"]; ok {
					s += " from " + strOr(mf)
				}
				if p, ok := data["parent"]; ok {
					s += " parent " + strOr(p)
				}
				out = append(out, s)
			}
		}
		return out
	}
	assert.Equal(t, []string{
		"node.planted finance/a parent finance/_index",
		"node.grafted finance/a",
		"node.transplanted finance/b from null",
		"node.planted finance/ds parent finance/_index",
		"dataset.created finance/ds parent finance/_index",
		"dataset.changed finance/ds",
		"node.planted finance/zz-marker parent finance/_index",
	}, nodes("/ana"))
	assert.Equal(t, []string{
		"node.planted operations/b parent operations/_index",
		"node.transplanted operations/a from null",
		"node.pruned operations/a",
		"node.planted operations/sub/_index parent operations/_index",
		"branch.created operations/sub/_index parent operations/_index",
		"node.planted operations/zz-marker parent operations/_index",
	}, nodes("/ops"))
	assert.Len(t, nodes("/owner"), 13)
}

func strOr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return "null"
}
