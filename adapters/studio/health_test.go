// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/station"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// fixtureProposal is the fixture's one proposed link (confidence 0.5).
const fixtureProposal = "operations/departure-checklist discovered-shortcut concepts/beaufort-scale"

// healthConsole walks 10 §6.15: the report as the host sent it (its
// counts, its lists only when non-empty), the fixture's proposed link
// accepted by a person, a snapshot taken, listed and downloaded with
// the key; then a key that administers one branch gets the explanation
// instead of a filtered report.
func healthConsole(t *testing.T, ctx context.Context, base string) {
	key := signInOwner(t, ctx, base)
	report := apiJSON(t, "GET", base+"/v1/admin/health?forest="+forestID, key, nil, http.StatusOK)
	do(t, ctx, "health-open", press(`nav a[data-console="health"]`), waitFor(`document.querySelector('[data-count="errors"]')`),
		waitFor(`document.querySelector('tr[data-proposal], .proposals [data-none]') && document.querySelector('.snapshots') && document.querySelector('.canopy-card')`))

	// Relayed, no arithmetic: the counts are the host's numbers.
	lint := report["lint"].(map[string]any)
	assert.Equal(t, strconv.Itoa(int(lint["errors"].(float64))), text(t, ctx, `[data-count="errors"]`))
	assert.Equal(t, strconv.Itoa(int(lint["warnings"].(float64))), text(t, ctx, `[data-count="warnings"]`))
	assert.Equal(t, strconv.Itoa(len(report["needs_split"].([]any))), text(t, ctx, `[data-count="needsSplit"]`))
	anything := false
	for _, list := range []string{"needs_split", "fat_nodes", "stale_passports", "needs_description", "orphans", "missing_payloads", "payload_drift", "changed_sources", "broken_wikilinks"} {
		n := len(report[list].([]any))
		anything = anything || n > 0
		assert.Equal(t, min(n, 1), eval[int](t, ctx, `document.querySelectorAll('[data-list="`+list+`"]').length`), "%s shown only when non-empty", list)
		if n > 0 && list != "broken_wikilinks" {
			assert.Equal(t, n, eval[int](t, ctx, `document.querySelectorAll('[data-list="`+list+`"] a.node-link').length`), "%s as node links", list)
		}
	}
	assert.Equal(t, !anything, eval[bool](t, ctx, `!!document.querySelector('[data-clear]')`), "all clear exactly when nothing needs attention")
	for conf, n := range report["uncertain_links"].(map[string]any) {
		assert.Equal(t, strconv.Itoa(int(n.(float64))), text(t, ctx, `tr[data-confidence="`+conf+`"] td:nth-child(2)`), conf)
	}
	assert.Equal(t, strconv.Itoa(int(report["heat"].(map[string]any)["rows"].(float64))), text(t, ctx, `[data-heat="rows"]`))
	assert.Contains(t, text(t, ctx, `tr[data-proposal="`+fixtureProposal+`"]`), "0.5")
	themed(t, ctx, "health")

	// Opening the console wrote nothing: the same report, read again.
	assert.Equal(t, report, apiJSON(t, "GET", base+"/v1/admin/health?forest="+forestID, key, nil, http.StatusOK))

	// A node whose body names no node: read again, the report lists it
	// as a node link, and "all clear" is gone.
	apiJSON(t, "POST", base+"/v1/forests/"+forestID+"/plant", key, map[string]any{"node": map[string]any{"id": "concepts/dangling",
		"type": "concept", "title": "Dangling", "summary": "Names a node that is not there.", "parent": "concepts/_index",
		"body": "See [[concepts/nowhere]]."}}, http.StatusOK)
	do(t, ctx, "health-attention", press(`.health button[data-reload]`), waitFor(`document.querySelector('[data-list="broken_wikilinks"] a.node-link')`))
	assert.Contains(t, text(t, ctx, `[data-list="broken_wikilinks"]`), "concepts/dangling → concepts/nowhere")
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('[data-clear]')`))
	shotAt(t, ctx, "health-attention", `[data-attention]`)

	// A person accepts the proposal: it leaves the list.
	shotAt(t, ctx, "health-proposals", ".proposals")
	do(t, ctx, "health-vote", press(`tr[data-proposal="`+fixtureProposal+`"] button[data-vote="accept"]`),
		waitFor(`document.querySelector('[data-voted="accepted"]') && !document.querySelector('tr[data-proposal="`+fixtureProposal+`"]')`))
	links := apiJSON(t, "GET", base+"/v1/forests/"+forestID+"/links", key, nil, http.StatusOK)["links"].([]any)
	for _, l := range links {
		assert.NotEqual(t, "concepts/beaufort-scale", l.(map[string]any)["target"], "the accepted link is no longer a proposal")
	}

	// A snapshot: taken with payloads, listed, downloaded with the key.
	require.True(t, eval[bool](t, ctx, `document.querySelector('input[name="with_payloads"]').checked`), "payloads are packed by default")
	do(t, ctx, "health-snapshot", press(`button[data-take]`), waitFor(`document.querySelector('[data-taken]') && document.querySelectorAll('tr[data-snapshot]').length === 1`))
	snaps := apiJSON(t, "GET", base+"/v1/admin/snapshots?forest="+forestID, key, nil, http.StatusOK)["snapshots"].([]any)
	require.Len(t, snaps, 1)
	snap := snaps[0].(map[string]any)
	assert.Equal(t, snap["name"], attr(t, ctx, "[data-taken]", "data-taken"))
	do(t, ctx, "health-download", js(`window.__got = null; const made = URL.createObjectURL; URL.createObjectURL = (b) => { window.__size = b.size; return made(b); };
		HTMLAnchorElement.prototype.click = function () { if (this.download) window.__got = this.download; };`),
		press(`button[data-download]`), waitFor(`window.__got`))
	assert.Equal(t, snap["name"], eval[string](t, ctx, `window.__got`))
	assert.Equal(t, int(snap["bytes"].(float64)), eval[int](t, ctx, `window.__size`), "the whole file, fetched with the key")
	shotAt(t, ctx, "health-snapshots", ".proposals")

	// A key administering one branch: the report is refused with the
	// reason, and the console explains it instead of filtering.
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", key, map[string]any{"principal": "rui", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"admin"}, "allow": []string{"concepts/"}}}, &person)
	require.NotEmpty(t, person.APIKey)
	apiJSON(t, "GET", base+"/v1/admin/health?forest="+forestID, person.APIKey, nil, http.StatusForbidden)
	do(t, ctx, "health-scoped", keyed(person.APIKey), chromedp.Navigate(base+"/f/"+forestID+"/overview"),
		waitFor(`document.querySelector('nav a[data-console="health"]')`), press(`nav a[data-console="health"]`),
		waitFor(`document.querySelector('[data-scoped]')`))
	assert.Contains(t, text(t, ctx, ".rail footer .meta"), "rui")
	assert.Contains(t, text(t, ctx, "[data-scoped]"), "whole forest")
	assert.Contains(t, text(t, ctx, ".snapshots"), "Only the deployment owner", "download is the owner's alone")
	themed(t, ctx, "health-scoped")

	lockedForest(t, ctx)
}

// lockedForest: a snapshot refused with E_LOCKED opens the lock panel.
// A live holder (this test, holding the writer lock) gets no release
// button; once it is gone and its card left behind as an orphan, a
// fresh probe offers the release, which removes the file. It needs the
// forest's directory, so it runs on a Station of its own.
func lockedForest(t *testing.T, ctx context.Context) {
	base, dir, key := ownStation(t)
	held, err := forest.AcquireLock(dir)
	require.NoError(t, err)
	t.Cleanup(func() { held.Release() })
	do(t, ctx, "health-locked", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, key), press(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		press(`dialog.welcome button`), chromedp.Navigate(base+"/f/"+forestID+"/health"), waitFor(`document.querySelector('button[data-take]')`),
		press(`button[data-take]`), waitFor(`document.querySelector('[data-lock-panel] dd[data-lock]')`))
	assert.Equal(t, "held", text(t, ctx, "[data-lock-panel] dd[data-lock]"))
	assert.Contains(t, text(t, ctx, "[data-lock-panel]"), strconv.Itoa(os.Getpid()), "the holder's card")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('[data-unlock]').length`), "a live holder cannot be released")
	shotAt(t, ctx, "health-locked", ".snapshots")

	// The holder dies and leaves its card: an orphan, which may go.
	require.NoError(t, held.Release())
	lockFile := filepath.Join(dir, forest.LockFile)
	require.NoError(t, os.WriteFile(lockFile, []byte(`{"pid": 999999, "host": "gone-host", "since": "2026-01-02T03:04:05+00:00"}`), 0o644))
	do(t, ctx, "health-orphan", press(`[data-lock-panel] [data-probe]`), waitFor(`document.querySelector('[data-lock-panel] dd[data-lock="orphan"]') && document.querySelector('[data-unlock]')`))
	assert.Contains(t, text(t, ctx, "[data-lock-panel]"), "gone-host")
	shotAt(t, ctx, "health-orphan", ".snapshots")
	do(t, ctx, "health-unlock", press(`[data-unlock]`), waitFor(`!document.querySelector('[data-lock-panel]')`))
	_, err = os.Stat(lockFile)
	assert.True(t, os.IsNotExist(err), "the orphan's file is removed")
}

// ownStation serves a fresh copy of the fixture forest from a Station of
// its own (with the environment's providers given), for a test that
// needs the forest's directory or a deployment it may change; it
// returns the address, the forest's directory and the owner's key.
func ownStation(t *testing.T, env ...providers.EnvProvider) (base, dir, key string) {
	t.Helper()
	dir, _ = testforest.Fixture(t)
	s, err := station.New(context.Background(), station.Options{Root: filepath.Dir(dir),
		Registry: filepath.Join(t.TempDir(), "registry", "station.db"), Writable: true, AllowedHosts: []string{"*"}, EnvProviders: env})
	require.NoError(t, err)
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	var setup struct{ Key string }
	post(t, srv.URL, "/v1/auth/setup", "", map[string]string{"username": owner, "password": ownerPwd}, &setup)
	require.NotEmpty(t, setup.Key)
	return srv.URL, dir, setup.Key
}
