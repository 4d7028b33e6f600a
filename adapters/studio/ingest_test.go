// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldModel is a vision endpoint that answers only once released, so an
// image in a batch holds its job at the convert step for as long as the
// test needs: the pill is tested on a job that really runs.
func heldModel(t *testing.T) (url string, release func()) {
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0,
			"message": map[string]any{"role": "assistant", "content": "A chart of the harbour tides."}, "finish_reason": "stop"}}})
	}))
	released := false
	release = func() {
		if !released {
			released = true
			close(gate)
		}
	}
	t.Cleanup(func() { release(); srv.Close() })
	return srv.URL + "/v1", release
}

// composeFlow: New branch plants one branch and selects it; compose
// stages a draft with a bound model's summary and proposed link, and
// publish plants the draft as reviewed.
func composeFlow(t *testing.T, ctx context.Context, base, key string) {
	// New branch: one plant of a branch, then selected as the destination.
	rules := "operations/harbour-rules/_index"
	do(t, ctx, "ingest-branch", click(`button[data-mode="compose"]`), waitFor(`location.search === '?mode=compose' && document.querySelector('form.compose select[name="branch-parent"] option[value="operations/_index"]')`),
		js(`document.querySelector('form.compose details.new-branch').open = true`),
		js(`(() => { const s = document.querySelector('select[name="branch-parent"]'); s.value = 'operations/_index'; s.dispatchEvent(new Event('change')); })()`),
		input(`input[name="branch-title"]`, "Harbour rules"), input(`textarea[name="branch-summary"]`, "What boats must do inside the harbour: mooring, lights and speed."),
		waitFor(`document.querySelector('[data-branch-id]').textContent === `+jsString(rules)),
		click(`button.plant-branch`), waitFor(`document.querySelector('form.compose select[name="dest"]').value === `+jsString(rules)))
	log := historyOf(t, base, key, rules)
	require.Len(t, log, 1, "one plant")
	assert.Regexp(t, `^plant\(`+rules+`\)`, log[0])

	// Compose: review stages a draft (nothing written) with the model's
	// summary and proposed link; publish plants the draft as reviewed.
	require.Equal(t, http.StatusOK, status(t, "POST", base+"/v1/admin/providers", key, map[string]any{"name": "curator", "endpoint": curatorModel(t)}))
	require.Equal(t, http.StatusOK, status(t, "POST", base+"/v1/admin/models", key, map[string]any{"forest": forestID, "role": "ingest", "provider": "curator", "model": "c"}))
	mooring := "operations/harbour-rules/mooring-rules"
	do(t, ctx, "ingest-compose", input(`form.compose input[name="title"]`, "Mooring rules"),
		input(`form.compose textarea[name="text"]`, "Boats moor bow first at the east quay. Lines are doubled when the wind passes thirty knots."),
		click(`form.compose button[type="submit"]`), waitFor(`document.querySelector('[data-draft]')`))
	assert.Equal(t, mooring, attr(t, ctx, "[data-draft]", "data-draft"))
	assert.Contains(t, text(t, ctx, "[data-tokens]"), "of 60 tokens")
	assert.Equal(t, "Rules for mooring boats at the east quay.", eval[string](t, ctx, `document.querySelector('[data-draft] textarea[name="summary"]').value`))
	assert.Equal(t, "mooring, quay", eval[string](t, ctx, `document.querySelector('[data-draft] input[name="tags"]').value`))
	target := eval[string](t, ctx, `(document.querySelector('[data-draft] input[name="link"]') || {}).value || ''`)
	require.NotEmpty(t, target, "the model's proposal is offered as a checkbox")
	assert.NotEqual(t, target, text(t, ctx, `[data-draft] fieldset label`), "a link is named by its target's title")
	assert.Equal(t, http.StatusNotFound, status(t, "POST", base+"/v1/forests/"+forestID+"/look", key, map[string]string{"id": mooring}), "review writes nothing")
	themedAt(t, ctx, "ingest-compose", "[data-draft]")
	do(t, ctx, "ingest-publish", js(`(() => { const s = document.querySelector('[data-draft] textarea[name="summary"]'); s.value = 'Mooring at the east quay: bow first, doubled lines in strong wind.'; s.dispatchEvent(new Event('input')); })()`),
		click(`button.publish`), waitFor(`document.querySelector('[data-published] a.node-link')`))
	var looked struct {
		Summary string
		Tags    []string
		Links   []struct{ Target string } `json:"edges_out"`
	}
	post(t, base, "/v1/forests/"+forestID+"/look", key, map[string]string{"id": mooring}, &looked)
	assert.Equal(t, "Mooring at the east quay: bow first, doubled lines in strong wind.", looked.Summary, "the reviewed summary is planted")
	assert.Equal(t, []string{"mooring", "quay"}, looked.Tags)
	require.Len(t, looked.Links, 1, "the kept proposal is planted")
	assert.Equal(t, target, looked.Links[0].Target)
	require.Equal(t, http.StatusOK, status(t, "POST", base+"/v1/admin/models", key, map[string]any{"forest": forestID, "role": "ingest", "remove": true}))
}

// curatorModel is an ingest model that summarises every document the
// same way and, offered candidates, proposes the first one as related,
// so a staged draft carries a proposed link to review.
func curatorModel(t *testing.T) string {
	candidate := regexp.MustCompile(`(?m)^- id: (\S+) \|`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []struct{ Content string } }
		json.NewDecoder(r.Body).Decode(&req)
		prompt := ""
		for _, m := range req.Messages {
			prompt += m.Content + "\n"
		}
		reply := `{"summary": "Rules for mooring boats at the east quay.", "tags": ["mooring", "quay"], "aliases": []}`
		if m := candidate.FindStringSubmatch(prompt); m != nil && strings.Contains(prompt, "Candidates:") {
			reply = `{"related": [{"id": "` + m[1] + `", "note": "the same quay"}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0,
			"message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// ingestConsole walks 10 §6.8 and §7: an upload of two files, one
// refused in the browser, followed to its report and found by locate;
// a composed document reviewed then published; a batch held at the
// model showing the pill on another console with a second batch queued
// behind it, held when the first is cancelled, started by the operator;
// the optimize cards; a key without ingest, which never meets the
// console; and a queue waiting behind a job its key cannot see.
func ingestConsole(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	signIn(t, ctx, base, login.Key)
	dir := t.TempDir()
	note := filepath.Join(dir, "harbour-lights.md")
	require.NoError(t, os.WriteFile(note, []byte("# Harbour lights\n\nThe green light on the north mole blinks every four seconds; pilots call it the lantern of Itajubá.\n"), 0o644))
	odd := filepath.Join(dir, "sonar.xyz")
	require.NoError(t, os.WriteFile(odd, []byte("ping"), 0o644))
	big := filepath.Join(dir, "survey.md")
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, 26<<20)) // sparse: refused before it is read

	// Upload: two files accepted or refused by the browser with a reason.
	choose := func(files ...string) chromedp.Action[chromedp.Void] {
		return chromedp.SetUploadFiles(chromedp.CSS(`form.upload input[name="files"]`), files)
	}
	setDest := js(`(() => { const s = document.querySelector('select[name="dest"]'); s.value = 'operations/_index'; s.dispatchEvent(new Event('change')); })()`)
	do(t, ctx, "ingest-upload", click(`nav a[data-console="ingest"]`), waitFor(`document.querySelector('form.upload select[name="dest"] option[value="operations/_index"]')`),
		choose(note, odd, big), waitFor(`document.querySelector('[data-file="harbour-lights.md"]') && document.querySelectorAll('[data-skipped]').length === 2`), setDest)
	assert.Contains(t, text(t, ctx, `[data-skipped="sonar.xyz"]`), "cannot ingest .xyz")
	assert.Contains(t, text(t, ctx, `[data-skipped="survey.md"]`), "over the 25 MB limit")
	assert.Equal(t, "/f/"+forestID+"/ingest", location(t, ctx))
	assert.Contains(t, attr(t, ctx, `form.upload input[name="files"]`, "accept"), ".md", "the file picker offers the forest's formats")
	themed(t, ctx, "ingest-upload")

	// The job card follows the batch to its report, named in the address.
	do(t, ctx, "ingest-report", click(`form.upload button[type="submit"]`),
		waitFor(`location.search.startsWith('?job=') && document.querySelector('[data-job-state="done"]')`))
	assert.Equal(t, "1", text(t, ctx, `[data-count="planted"]`), text(t, ctx, ".job"))
	planted := text(t, ctx, `.report-list a.node-link`)
	assert.Equal(t, "operations/harbour-lights", planted)
	themed(t, ctx, "ingest-report")
	var found struct{ Results []struct{ ID string } }
	post(t, base, "/v1/forests/"+forestID+"/locate", login.Key, map[string]any{"query": "harbour lights lantern"}, &found)
	var ids []string
	for _, r := range found.Results {
		ids = append(ids, r.ID)
	}
	assert.Contains(t, ids, planted, "locate finds the uploaded node")

	// Closing the report takes the job out of the address.
	do(t, ctx, "ingest-close", click(`button.job-close`), waitFor(`!location.search.includes('job=') && !document.querySelector('.job')`))

	composeFlow(t, ctx, base, login.Key)

	// The pill: an image held at the model keeps a job running; a second
	// batch queued behind it waits in the tab; on another console the
	// pill shows both; cancelling the first holds the queue until the
	// operator starts it.
	pillAndQueue(t, ctx, base, login.Key, note)
	optimizeTab(t, ctx, base)
	withoutIngest(t, ctx, base, login.Key)
	lockedByAnother(t, ctx, base, login.Key)
}

func pillAndQueue(t *testing.T, ctx context.Context, base, key, note string) {
	url, release := heldModel(t)
	require.Equal(t, http.StatusOK, status(t, "POST", base+"/v1/admin/providers", key, map[string]any{"name": "held", "endpoint": url}))
	require.Equal(t, http.StatusOK, status(t, "POST", base+"/v1/admin/models", key, map[string]any{"forest": forestID, "role": "vision", "provider": "held", "model": "vl"}))
	t.Cleanup(func() {
		status(t, "POST", base+"/v1/admin/models", key, map[string]any{"forest": forestID, "role": "vision", "remove": true})
	})
	chart := filepath.Join(t.TempDir(), "tide-chart.png")
	require.NoError(t, os.WriteFile(chart, []byte("\x89PNG\r\n\x1a\nchart"), 0o644))
	do(t, ctx, "ingest-held", chromedp.Navigate(base+"/f/"+forestID+"/ingest"), waitFor(`document.querySelector('form.upload select option[value="operations/_index"]')`),
		chromedp.SetUploadFiles(chromedp.CSS(`form.upload input[name="files"]`), []string{chart}), waitFor(`document.querySelector('[data-file="tide-chart.png"]')`),
		click(`form.upload button[type="submit"]`), waitFor(`document.querySelector('[data-job-state="running"] .stages [aria-current="step"]')`))
	assert.Contains(t, text(t, ctx, ".job"), "tide-chart.png", "the current file is named")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('.job-pill').length`), "Ingest shows the job itself, never the pill")
	held := eval[string](t, ctx, `new URLSearchParams(location.search).get('job')`)
	require.NotEmpty(t, held)
	themed(t, ctx, "ingest-running")

	// A reload forgets nothing the host knows: entering without ?job=
	// while a job runs names it again (replace).
	do(t, ctx, "ingest-rediscover", chromedp.Navigate(base+"/f/"+forestID+"/ingest"),
		afterLoad(`new URLSearchParams(location.search).get('job') === `+jsString(held)+` && document.querySelector('[data-job-state="running"]')`))

	// A second batch while one runs is queued by an explicit act.
	do(t, ctx, "ingest-queue", waitFor(`document.querySelector('form.upload select option[value="operations/_index"]')`),
		chromedp.SetUploadFiles(chromedp.CSS(`form.upload input[name="files"]`), []string{note}),
		waitFor(`document.querySelector('form.upload button[type="submit"]').textContent.includes('waits')`),
		click(`form.upload button[type="submit"]`), waitFor(`document.querySelector('[data-queue="1"]')`))

	// On another console the pill shows the job and the queue; it never navigates.
	do(t, ctx, "ingest-pill", click(`nav a[data-console="read"]`), waitFor(`document.querySelector('.job-pill .pill-toggle [data-queued="1"]')`))
	assert.Contains(t, text(t, ctx, ".job-pill .pill-toggle"), "0%")
	do(t, ctx, "ingest-pill-open", click(`.job-pill .pill-toggle`), waitFor(`document.querySelector('.job-pill .pill-panel button.pill-cancel')`))
	assert.Contains(t, text(t, ctx, ".job-pill .pill-panel"), "tide-chart.png")
	assert.Equal(t, "/f/"+forestID+"/ingest?job="+held, attr(t, ctx, ".job-pill a.pill-open", "href"))
	assert.Contains(t, location(t, ctx), "/read", "the pill never navigates")
	themed(t, ctx, "ingest-pill")

	// Cancel is asked once; the awaited job ending cancelled holds the
	// queue until the operator starts it.
	do(t, ctx, "ingest-cancel", click(`.job-pill button.pill-cancel`), waitFor(`document.querySelector('.job-pill button.pill-cancel').disabled`))
	release()
	do(t, ctx, "ingest-held-queue", waitFor(`document.querySelector('.job-pill .held button.start-next')`))
	assert.Contains(t, text(t, ctx, ".job-pill .pill-panel"), "cancelled")
	themed(t, ctx, "ingest-pill-held")
	do(t, ctx, "ingest-drained", click(`.job-pill .held button.start-next`), waitFor(`!document.querySelector('.job-pill .pill-toggle')`))
	var jobs struct {
		Jobs []struct{ ID, Mode, State string }
	}
	require.NoError(t, json.Unmarshal([]byte(getJSON(t, base+"/v1/forests/"+forestID+"/jobs", key)), &jobs))
	require.GreaterOrEqual(t, len(jobs.Jobs), 3)
	assert.Equal(t, "done", jobs.Jobs[0].State, "the queued batch ran once started")
	assert.Equal(t, held, jobs.Jobs[1].ID)
	assert.Equal(t, "cancelled", jobs.Jobs[1].State)

	// An id the host does not know is said, not guessed.
	do(t, ctx, "ingest-unknown", chromedp.Navigate(base+"/f/"+forestID+"/ingest?job=ing-00000000"), waitFor(`document.querySelector('[data-job-state="unknown"]')`))
	assert.Contains(t, text(t, ctx, ".job"), "no longer knows the job")
}

// optimizeTab: sync is offered only with a recorded source; an admin
// rebuilds the catalog and re-derives aliases while waiting, and reads
// the dense layer's state.
func optimizeTab(t *testing.T, ctx context.Context, base string) {
	do(t, ctx, "ingest-optimize", chromedp.Navigate(base+"/f/"+forestID+"/ingest?mode=optimize"), waitFor(`document.querySelector('[data-card="sync"] button.sync') && document.querySelector('[data-canopy]')`))
	assert.True(t, eval[bool](t, ctx, `document.querySelector('[data-card="sync"] button.sync').disabled`), "no source recorded: nothing to refresh")
	assert.Contains(t, text(t, ctx, `[data-card="sync"]`), "nothing to refresh")
	do(t, ctx, "ingest-reindex", click(`button.reindex`), waitFor(`document.querySelector('[data-card="reindex"] [data-nodes]')`),
		click(`button.recurate`), waitFor(`document.querySelector('[data-card="recurate"] [role="status"]:not(.spinner)')`))
	assert.Regexp(t, `^\d+ nodes indexed`, text(t, ctx, `[data-card="reindex"] [data-nodes]`))
	assert.True(t, eval[bool](t, ctx, `[...document.querySelectorAll('[data-card="canopy"] button')].every(b => b.disabled)`), "no embedder: the dense layer waits for one")
	themed(t, ctx, "ingest-optimize")
}

// lockedByAnother: a person whose key cannot see the batch running on
// the forest is refused E_LOCKED; the refusal offers the queue, and the
// queue waits for the job the refusal named, then fires by itself.
func lockedByAnother(t *testing.T, ctx context.Context, base, ownerKey string) {
	url, release := heldModel(t)
	require.Equal(t, http.StatusOK, status(t, "POST", base+"/v1/admin/providers", ownerKey, map[string]any{"name": "held-again", "endpoint": url}))
	require.Equal(t, http.StatusOK, status(t, "POST", base+"/v1/admin/models", ownerKey, map[string]any{"forest": forestID, "role": "vision", "provider": "held-again", "model": "vl"}))
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", ownerKey, map[string]any{"principal": "ada", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read", "ingest"}}}, &person)
	require.NotEmpty(t, person.APIKey)
	started := apiJSON(t, "POST", base+"/v1/forests/"+forestID+"/ingest", ownerKey, map[string]any{"dest": "operations",
		"files": []any{map[string]any{"name": "quay-chart.png", "b64": "iVBORw0KGgpxdWF5"}}}, http.StatusAccepted)
	held, _ := started["job"].(map[string]any)["id"].(string)
	require.NotEmpty(t, held)

	logbook := filepath.Join(t.TempDir(), "logbook.md")
	require.NoError(t, os.WriteFile(logbook, []byte("# Logbook\n\nThe pilot boat left at dawn.\n"), 0o644))
	do(t, ctx, "ingest-locked", click(`.rail footer > button`), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, person.APIKey), click(`form button[type="submit"]`), waitFor(`document.querySelector('nav a[data-console="ingest"]')`),
		click(`nav a[data-console="ingest"]`), waitFor(`document.querySelector('form.upload select[name="dest"]')`),
		chromedp.SetUploadFiles(chromedp.CSS(`form.upload input[name="files"]`), []string{logbook}), waitFor(`document.querySelector('[data-file="logbook.md"]')`),
		click(`form.upload button[type="submit"]`), waitFor(`document.querySelector('form.upload button.queue-it')`))
	assert.Contains(t, text(t, ctx, "form.upload [role=alert]"), held, "the refusal names the running job")
	do(t, ctx, "ingest-locked-queue", click(`button.queue-it`), waitFor(`document.querySelector('[data-queue="1"]') && document.querySelector('[data-queued-note]')`))
	release()
	do(t, ctx, "ingest-locked-fired", waitFor(`!document.querySelector('[data-queue]') && document.querySelector('[data-job-state="done"]')`))
	assert.NotContains(t, location(t, ctx), held, "the fired batch is ada's own job")
	assert.Equal(t, "1", text(t, ctx, `[data-count="planted"]`))
}

// themedAt is themed with sel scrolled into view instead of the top.
func themedAt(t *testing.T, ctx context.Context, name, sel string) {
	t.Helper()
	for i, theme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = '`+theme+`';
			document.querySelectorAll('.rail .prefs button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === `+strconv.Itoa(i)+`)));
			document.querySelector(`+jsString(sel)+`).scrollIntoView({block: 'end'})`)))
		shoot(t, ctx, name)
		axe(t, ctx, name+" "+theme)
	}
	require.NoError(t, chromedp.Do(ctx, js(`document.documentElement.dataset.theme = 'light';
		document.querySelectorAll('.rail .prefs button').forEach((b, i) => b.setAttribute('aria-pressed', String(i === 0)))`)))
}

// afterLoad is waitFor right after a navigation: a poll that started in
// the page being replaced loses its context, and is started again.
func afterLoad(cond string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		var err error
		for range 5 {
			if _, err = waitFor(cond)(ctx, tg); err == nil || !strings.Contains(err.Error(), "Cannot find context") {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, err
	}
}

// getJSON reads a route with the key.
func getJSON(t *testing.T, url, key string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var raw json.RawMessage
	require.NoError(t, json.NewDecoder(res.Body).Decode(&raw))
	require.Equal(t, http.StatusOK, res.StatusCode, string(raw))
	return string(raw)
}

// withoutIngest: a key without ingest finds no Ingest in the menu and
// no pill; an address naming the console lands elsewhere (10 §2), the
// console's own guard shows the needs-capability card, and the routes
// refuse anyway.
func withoutIngest(t *testing.T, ctx context.Context, base, ownerKey string) {
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", ownerKey, map[string]any{"principal": "ines", "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read", "query"}}}, &person)
	require.NotEmpty(t, person.APIKey)
	assert.Equal(t, http.StatusForbidden, status(t, "GET", base+"/v1/forests/"+forestID+"/ingest", person.APIKey, nil))
	assert.Equal(t, http.StatusForbidden, status(t, "GET", base+"/v1/forests/"+forestID+"/jobs", person.APIKey, nil))

	do(t, ctx, "ingest-forbidden", click(`.rail footer > button`), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, person.APIKey), click(`form button[type="submit"]`), waitFor(`document.querySelector('nav a[data-console]')`),
		chromedp.Navigate(base+"/f/"+forestID+"/ingest"), waitFor(`document.querySelector('nav a[data-console]') && !document.querySelector('main .spinner')`))
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('nav a[data-console="ingest"]').length`), "absent from the menu")
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('.job-pill').length`), "no pill without ingest")
	assert.NotContains(t, location(t, ctx), "/ingest", "the address is replaced by the landing console")
	card, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import(new URL('consoles/ingest.js', document.querySelector('script[type="module"]').src).href)
		.then(m => m.render({ forest: '`+forestID+`', caps: ['read', 'query'], place: { params: {} } }).textContent)`, chromedp.EvalAwaitPromise, chromedp.EvalAsValue))
	require.NoError(t, err)
	assert.Contains(t, card, "ingest", "the console's own guard names the capability")
	assert.Zero(t, eval[int](t, ctx, `performance.getEntriesByType('resource').filter(e => e.name.includes('/v1/') && (e.name.includes('/jobs') || e.name.endsWith('/ingest'))).length`),
		"the Studio never asked the ingest routes")

	// A board whose reads are refused (403) stops polling, whoever watches.
	stopped, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`import(new URL('board.js', document.querySelector('script[type="module"]').src).href)
		.then(m => { const b = m.board('`+forestID+`'); b.watch(m.CADENCE.open);
			return new Promise(ok => b.subscribe(bd => { if (bd.error) ok(bd.stopped && bd.timer === null && bd.error.status === 403); })); })`,
		chromedp.EvalAwaitPromise, chromedp.EvalAsValue))
	require.NoError(t, err)
	assert.True(t, stopped, "403 stops the board")
}
