// SPDX-License-Identifier: Apache-2.0

package clipper_test

import (
	"context"
	"encoding/json"
	"image"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClipperInBrowser loads the unpacked extension into new-headless
// Chromium, pairs it with a Station started here, clips a local article,
// a selection, the page as one image and a region, finds each node in
// the forest with its origin address, and sees a revoked pairing sent
// back to the login (issue 32). The subtests run in order on one
// browser: each leaves the state the next starts from.
func TestClipperInBrowser(t *testing.T) {
	bin := chromium(t)
	r := &clipRun{base: testStation(t), site: pages(t)}
	r.article = r.site + "/article?id=7&utm_source=news&fbclid=abc"
	r.clean = r.site + "/article?id=7"
	r.grants(t)
	r.bctx = browserWith(t, bin, unpacked(t))
	r.id = extensionID(t, r.bctx)
	popup, cancel := chromedp.NewContext(r.bctx)
	defer cancel()
	r.popup = popup
	require.NoError(t, chromedp.Do(popup, chromedp.EmulateViewport(400, 720), scheme(false),
		chromedp.Navigate("chrome-extension://"+r.id+"/popup.html"), waitFor(`!document.getElementById('login').hidden`)))
	t.Run("helpers", func(t *testing.T) { helpers(t, popup) })
	if !t.Run("pair", r.pair) {
		return
	}
	page, pcancel := chromedp.NewContext(r.bctx)
	defer pcancel()
	r.page = page
	r.openArticle(t)
	for _, st := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"article", r.articleClip}, {"selection", r.selection}, {"short page as image", r.shortPage},
		{"page as image", r.tallPage}, {"region", r.region}, {"page and screenshot", r.pageShot},
		{"youtube", r.youtube}, {"quick note", r.quickNote}, {"editor", r.editor}, {"send image", r.sendImage}, {"offline queue", r.offline},
		{"language", r.language}, {"dictation", r.dictation}, {"revoked", r.revoked}, {"rate limited", r.rateLimited},
		{"pasted key, nothing clippable", r.pastedKey},
	} {
		t.Run(st.name, st.run)
	}
}

// clipRun is the one browser, Station and test site the subtests share.
type clipRun struct {
	base, site, ownerKey, id string
	bctx, popup, page        context.Context
	tab                      float64
	article, clean           string // the article's address, with and without tracking
	articleNode              string
}

// grants makes the owner and gives her the grants a person clipping
// would hold.
func (r *clipRun) grants(t *testing.T) {
	code, setup := rest(t, "POST", r.base+"/v1/auth/setup", "", map[string]string{"username": owner, "password": ownerPwd})
	require.Equal(t, 200, code, setup)
	r.ownerKey = setup["key"].(string)
	// A paired key is masked to read, ingest and answer, so the owner bit
	// does not survive it: the person clips where a grant says she may.
	code, out := rest(t, "POST", r.base+"/v1/admin/grant", r.ownerKey, map[string]any{"principal": owner, "forest": forestID,
		"caps": []string{"read", "ingest", "answer"}, "allow": []string{""}})
	require.Equal(t, 200, code, out)
	// A second forest she may read but not ingest into: listed, disabled.
	code, out = rest(t, "POST", r.base+"/v1/admin/forests", r.ownerKey, map[string]any{"id": "harbour", "title": "Harbour"})
	require.Equal(t, 200, code, out)
	code, out = rest(t, "POST", r.base+"/v1/admin/grant", r.ownerKey, map[string]any{"principal": owner, "forest": "harbour",
		"caps": []string{"read"}, "allow": []string{""}})
	require.Equal(t, 200, code, out)
}

// pair: the origin typed loosely is normalised (https assumed); the
// password never reaches storage; the forests are listed by what the
// key may do there.
func (r *clipRun) pair(t *testing.T) {
	popup := r.popup
	shoot(t, popup, "login-light")
	require.NoError(t, chromedp.Do(popup, scheme(true)))
	shoot(t, popup, "login-dark")
	require.NoError(t, chromedp.Do(popup, scheme(false),
		chromedp.SendKeys(chromedp.CSS("#origin"), strings.TrimPrefix(r.base, "http://")+"/"), chromedp.Click(chromedp.CSS("#pair")),
		waitFor(`document.getElementById('login-msg').textContent !== ''`)))
	assert.Contains(t, text(t, popup, "#login-msg"), "cannot be reached", "https assumed: the plain-http Station is not reached")
	assert.Equal(t, "https"+strings.TrimPrefix(r.base, "http"), eval[string](t, popup, `document.getElementById('origin').value`))
	require.NoError(t, chromedp.Do(popup, chromedp.SetValue(chromedp.CSS("#origin"), r.base),
		chromedp.SendKeys(chromedp.CSS("#username"), owner), chromedp.SendKeys(chromedp.CSS("#password"), ownerPwd),
		chromedp.Click(chromedp.CSS("#pair")),
		waitFor(`!document.getElementById('main').hidden && document.querySelector('#forest option[value="`+forestID+`"]')`)))
	stored := eval[string](t, popup, `chrome.storage.local.get(null).then((all) => JSON.stringify(all))`)
	assert.NotContains(t, stored, ownerPwd)
	pairing := eval[map[string]any](t, popup, `chrome.storage.local.get('pairing').then((g) => g.pairing)`)
	require.ElementsMatch(t, []string{"origin", "key", "principal"}, keysOf(pairing))
	assert.Equal(t, r.base, pairing["origin"])
	assert.Equal(t, owner, pairing["principal"])
	assert.True(t, eval[bool](t, popup, `document.querySelector('#forest option[value="harbour"]').disabled`), "no ingest: listed disabled")
	assert.Equal(t, forestID, eval[string](t, popup, `document.getElementById('forest').value`))
	require.NoError(t, chromedp.Do(popup, chromedp.SendKeys(chromedp.CSS("#ask"), "when is high tide?")))
	assert.Equal(t, r.base+"/f/"+forestID+"/ask?q=when%20is%20high%20tide%3F", eval[string](t, popup, `document.getElementById('ask-go').href`),
		"the question prefilled in the Studio, never fired")
	shoot(t, popup, "main-light")
	require.NoError(t, chromedp.Do(popup, scheme(true)))
	shoot(t, popup, "main-dark")
}

// openArticle loads the article in its own tab and brings that tab to
// the front, as it is when a person clicks.
func (r *clipRun) openArticle(t *testing.T) {
	require.NoError(t, chromedp.Do(r.page, chromedp.Navigate(r.article)))
	r.tab = eval[float64](t, r.popup, `chrome.tabs.query({}).then((ts) => ts.find((x) => (x.url || '').includes('/article')).id)`)
	eval[any](t, r.popup, `chrome.tabs.update(`+jsNum(r.tab)+`, {active: true}).then(() => true)`)
}

// send asks the worker what a popup button or the editor asks, and
// clears the last progress record first.
func (r *clipRun) send(t *testing.T, msg string) {
	t.Helper()
	eval[any](t, r.popup, `chrome.storage.session.remove('status').then(() => chrome.runtime.sendMessage(`+msg+`))`)
}

// clip runs one clip of the tab and returns the nodes it wrote.
func (r *clipRun) clip(t *testing.T, kind string) []string {
	t.Helper()
	r.send(t, `{op: 'clip', kind: '`+kind+`', tabId: `+jsNum(r.tab)+`, forest: '`+forestID+`', dest: ''}`)
	return settled(t, r.popup)
}

// look reads a node's body back from the forest.
func (r *clipRun) look(t *testing.T, node string) string {
	t.Helper()
	code, out := rest(t, "POST", r.base+"/v1/forests/"+forestID+"/pick", r.ownerKey, map[string]string{"id": node})
	require.Equal(t, 200, code, out)
	b, _ := json.Marshal(out)
	return string(b)
}

func (r *clipRun) articleClip(t *testing.T) {
	nodes := r.clip(t, "page")
	r.articleNode = nodes[0]
	body := r.look(t, nodes[0])
	assert.Contains(t, body, "Source: "+r.clean+" (clipped ", "tracking parameters stripped, provenance footer")
	assert.NotContains(t, body, "utm_source")
	assert.Contains(t, body, "Spring tides come with the new and the full moon")
	assert.Contains(t, body, "| Day | High |", "tables stay tables")
	assert.Contains(t, body, "~Old charts~", "strikethrough")
	assert.NotContains(t, body, "© the bay", "Readability keeps the article, not the chrome")
}

func (r *clipRun) selection(t *testing.T) {
	eval[any](t, r.page, `(() => { const rg = document.createRange(); rg.selectNodeContents(document.getElementById('picked'));
		const s = getSelection(); s.removeAllRanges(); s.addRange(rg); })()`)
	nodes := r.clip(t, "selection")
	body := r.look(t, nodes[0])
	assert.NotEqual(t, r.articleNode, nodes[0], "a selection is its own node, not the page's")
	assert.Contains(t, body, "Spring tides come with the new and the full moon")
	assert.NotContains(t, body, "Neap tides")
	assert.Contains(t, body, "Source: "+r.clean)
}

func (r *clipRun) shortPage(t *testing.T) {
	img := payload(t, r.base, r.ownerKey, r.clip(t, "image")[0], "short-page")
	assert.Equal(t, int(eval[float64](t, r.page, `innerHeight`)), img.Bounds().Dy(), "an unscrollable page is one viewport")
}

// tallPage is F.55: one image reaching the end, the lazy part included,
// the fixed header once, the page put back as it was.
func (r *clipRun) tallPage(t *testing.T) {
	page := r.page
	require.NoError(t, chromedp.Do(page, chromedp.Navigate(r.site+"/tall"), js(`scrollTo(0, 250)`)))
	nodes := r.clip(t, "image")
	assert.Contains(t, r.look(t, nodes[0]), "Source: "+r.site+"/tall", "the media node carries its source address")
	img := payload(t, r.base, r.ownerKey, nodes[0], "full-page")
	height := eval[float64](t, page, `document.documentElement.scrollHeight`)
	assert.InDelta(t, height, img.Bounds().Dy(), 2, "one image reaching the document's end")
	assert.True(t, eval[float64](t, page, `innerHeight`) < height, "the page is taller than the window")
	assert.Equal(t, "red", colourAt(img, 600, 30), "the fixed header in the first slice")
	assert.Equal(t, 1, redBands(img), "the fixed header appears once")
	assert.Equal(t, "green", colourAt(img, 20, img.Bounds().Dy()-20), "the lazily added end is in the picture")
	assert.Equal(t, 250.0, eval[float64](t, page, `scrollY`), "scroll position restored")
	assert.Equal(t, "", eval[string](t, page, `document.querySelector('header').style.visibility`), "hidden header restored")
	assert.True(t, eval[bool](t, page, `!!window.grown`), "captured past the first measured height")
}

func (r *clipRun) region(t *testing.T) {
	page := r.page
	r.send(t, `{op: 'clip', kind: 'region', tabId: `+jsNum(r.tab)+`, forest: '`+forestID+`', dest: ''}`)
	require.NoError(t, chromedp.Do(page, waitFor(`[...document.documentElement.children].some((e) => e.shadowRoot === null && e.tagName === 'DIV')`),
		// Draw 200×140, then pull the south-east handle out to 240×160.
		drag(100, 120, 300, 260), drag(300, 260, 340, 280),
		// The box tool (key b) and a red box inside.
		chromedp.KeyEvent("b"), drag(150, 150, 200, 200)))
	shoot(t, page, "region-picker")
	// Esc backs out of the tool (the rectangle stays); Enter captures.
	require.NoError(t, chromedp.Do(page, chromedp.KeyEvent("\x1b"), chromedp.KeyEvent("\r")))
	nodes := settled(t, r.popup)
	assert.Contains(t, r.look(t, nodes[0]), "Source: "+r.site+"/tall")
	img := payload(t, r.base, r.ownerKey, nodes[0], "region")
	assert.Equal(t, image.Rect(0, 0, 240, 160), img.Bounds(), "only the rectangle, as adjusted, leaves the tab")
	assert.Equal(t, "red", colourAt(img, 75, 30), "the box annotation is composited onto the crop")
	assert.Equal(t, "white", colourAt(img, 75, 55), "inside the box, the page")
	assert.False(t, eval[bool](t, page, `[...document.documentElement.children].some((e) => e.tagName === 'DIV')`), "the picker is removed")
}

func (r *clipRun) pageShot(t *testing.T) {
	nodes := r.clip(t, "page_shot")
	require.Len(t, nodes, 1, "the compose's node came first; the status holds the upload's")
	assert.Contains(t, r.look(t, nodes[0]), "Source: "+r.site+"/tall")
	code, out := rest(t, "POST", r.base+"/v1/forests/"+forestID+"/locate", r.ownerKey, map[string]any{"query": "Screenshot of this page"})
	require.Equal(t, 200, code, out)
	raw, _ := json.Marshal(out)
	assert.Contains(t, string(raw), "a-tall-page", "the compose naming the file is in the forest")
}

// youtube runs the watch-page extractor on a local page shaped like
// YouTube's: the worker picks it by the youtube.com host, which a test
// cannot serve, so the extractor is called the way the worker calls it.
func (r *clipRun) youtube(t *testing.T) {
	require.NoError(t, chromedp.Do(r.page, chromedp.Navigate(r.site+"/watch?v=abc")))
	got := eval[map[string]any](t, r.popup, `chrome.scripting.executeScript({target: {tabId: `+jsNum(r.tab)+`},
		files: ['vendor/Readability.js', 'vendor/turndown.js', 'vendor/turndown-plugin-gfm.js', 'extract.js']})
		.then(() => chrome.scripting.executeScript({target: {tabId: `+jsNum(r.tab)+`}, func: () => globalThis.__monkeyClip.youtube()}))
		.then((res) => res[0].result)`)
	assert.Equal(t, "Reading the tide", got["title"])
	assert.Equal(t, "# Reading the tide\n\nChannel: Harbour Pilots\n\n## Description\n\nHow harbour pilots read a tide table.\n\n"+
		"## Transcript\n\nGood morning from the pier.\nHigh water is at six.", got["markdown"])
}

func (r *clipRun) quickNote(t *testing.T) {
	r.send(t, `{op: 'note', forest: '`+forestID+`', dest: '', url: '`+r.article+`', text: 'Low water at the bay mouth uncovers the old pier.'}`)
	body := r.look(t, settled(t, r.popup)[0])
	assert.Contains(t, body, "Low water at the bay mouth uncovers the old pier.")
	assert.Contains(t, body, "Source: "+r.clean+" (clipped ")
}

// editor: a draft autosaved per forest, found again on reopening, gone
// once saved as one compose.
func (r *clipRun) editor(t *testing.T) {
	ed, cancel := chromedp.NewContext(r.bctx)
	defer cancel()
	draft := `chrome.storage.local.get('drafts').then((g) => g.drafts && g.drafts['` + forestID + `'])`
	require.NoError(t, chromedp.Do(ed, chromedp.Navigate("chrome-extension://"+r.id+"/editor.html?forest="+forestID+"&url="+url.QueryEscape(r.article)),
		waitFor(`document.getElementById('save').textContent !== ''`),
		chromedp.SendKeys(chromedp.CSS("#title"), "Harbour log"),
		chromedp.SendKeys(chromedp.CSS("#text"), "## Morning\n\nThe ferry left on the ebb."),
		waitFor(draft+`.then((d) => d && d.title === 'Harbour log')`)))
	shoot(t, ed, "editor")
	require.NoError(t, chromedp.Do(ed, chromedp.Reload(), waitFor(`document.getElementById('title').value === 'Harbour log'`)))
	eval[any](t, ed, `chrome.storage.session.remove('status').then(() => true)`)
	require.NoError(t, chromedp.Do(ed, chromedp.Click(chromedp.CSS("#save"))))
	body := r.look(t, settled(t, r.popup)[0])
	assert.Contains(t, body, "The ferry left on the ebb.")
	assert.Contains(t, body, "Source: "+r.clean)
	assert.Nil(t, eval[any](t, ed, draft+`.then((d) => d ?? null)`), "the draft is gone once saved")
}

func (r *clipRun) sendImage(t *testing.T) {
	require.NoError(t, chromedp.Do(r.page, chromedp.Navigate(r.site+"/article")))
	r.send(t, `{op: 'clip', kind: 'src_image', tabId: `+jsNum(r.tab)+`, forest: '`+forestID+`', dest: '', src: '`+r.site+`/chart.png'}`)
	nodes := settled(t, r.popup)
	assert.Equal(t, "chart", nodes[0])
	assert.Contains(t, r.look(t, nodes[0]), "Source: "+r.site+"/article", "the image carries its page as source")
}

// offline: the note waits in the session queue and is sent by the
// 5-second retry once the Station answers again.
func (r *clipRun) offline(t *testing.T) {
	popup := r.popup
	origin := func(o string) {
		eval[any](t, popup, `chrome.storage.local.get('pairing').then((g) => chrome.storage.local.set({pairing: {...g.pairing, origin: '`+o+`'}}))`)
	}
	origin(deadOrigin(t))
	r.send(t, `{op: 'note', forest: '`+forestID+`', dest: '', url: '`+r.article+`', title: 'Queued note', text: 'Written while the Station was away.'}`)
	require.NoError(t, chromedp.Do(popup, waitFor(`chrome.storage.session.get(['status', 'queue']).then((g) => g.status && g.status.state === 'queued' && g.queue.length === 1)`)))
	assert.Contains(t, text(t, popup, "#status"), "Queued")
	origin(r.base)
	assert.Contains(t, r.look(t, settled(t, popup)[0]), "Written while the Station was away.")
	assert.Equal(t, 0.0, eval[float64](t, popup, `chrome.storage.session.get('queue').then((g) => g.queue.length)`))
}

func (r *clipRun) language(t *testing.T) {
	pick := func(lang string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(chromedp.SetValue(chromedp.CSS("#lang"), lang), js(`document.getElementById('lang').dispatchEvent(new Event('change'))`))
	}
	require.NoError(t, chromedp.Do(r.popup, pick("pt"), waitFor(`document.getElementById('clip-page').textContent === 'Recortar página'`),
		waitFor(`document.getElementById('status').textContent === 'Salvo.'`)))
	shoot(t, r.popup, "main-pt-dark")
	require.NoError(t, chromedp.Do(r.popup, pick("en"), waitFor(`document.getElementById('clip-page').textContent === 'Clip page'`)))
}

// dictation: the first press opens the page that asks for the
// microphone; the next runs the recognizer in the offscreen document.
// Headless Chromium has no speech service, so the test follows the
// states, not the words.
func (r *clipRun) dictation(t *testing.T) {
	popup := r.popup
	require.NoError(t, chromedp.Do(popup, chromedp.Click(chromedp.CSS("#dictate"))))
	var micTarget string
	require.Eventually(t, func() bool {
		targets, _ := chromedp.Targets(r.bctx)
		for _, ti := range targets {
			if strings.HasSuffix(ti.URL, "/mic.html") {
				micTarget = string(ti.TargetID)
			}
		}
		return micTarget != ""
	}, time.Minute, 50*time.Millisecond)
	mic, cancel := chromedp.NewContext(r.bctx, chromedp.WithTargetID(target.ID(micTarget)))
	defer cancel()
	require.NoError(t, chromedp.Do(mic, waitFor(`document.getElementById('allow').textContent !== ''`), chromedp.Click(chromedp.CSS("#allow"))))
	require.NoError(t, chromedp.Do(popup, waitFor(`chrome.storage.local.get('micGranted').then((g) => g.micGranted === true)`),
		chromedp.Click(chromedp.CSS("#dictate")),
		waitFor(`chrome.runtime.getContexts({contextTypes: ['OFFSCREEN_DOCUMENT']}).then((c) => c.length === 1)`),
		waitFor(`chrome.storage.session.get('dictation').then((g) => g.dictation && g.dictation.state !== 'preparing')`)))
	t.Logf("dictation ended as %v", eval[map[string]any](t, popup, `chrome.storage.session.get('dictation').then((g) => g.dictation)`))
	eval[any](t, popup, `chrome.runtime.sendMessage({op: 'dictate', stop: true})`)
	require.NoError(t, chromedp.Do(popup, waitFor(`chrome.storage.session.get('dictation').then((g) => g.dictation.state === 'idle')`)))
}

// revoked in People (here the admin API): the next forests listing is
// refused, the pairing is cleared, the popup says why.
func (r *clipRun) revoked(t *testing.T) {
	code, keys := rest(t, "GET", r.base+"/v1/admin/keys", r.ownerKey, nil)
	require.Equal(t, 200, code, keys)
	var revoke string
	for _, k := range keys["keys"].([]any) {
		if km := k.(map[string]any); km["label"] == "clipper" {
			revoke = km["id"].(string)
		}
	}
	require.NotEmpty(t, revoke, keys)
	code, out := rest(t, "POST", r.base+"/v1/admin/keys", r.ownerKey, map[string]string{"revoke": revoke})
	require.Equal(t, 200, code, out)
	require.NoError(t, chromedp.Do(r.popup, chromedp.Reload(), waitFor(`!document.getElementById('login').hidden`)))
	assert.Contains(t, text(t, r.popup, "#login-msg"), "no longer valid")
	assert.Nil(t, eval[any](t, r.popup, `chrome.storage.local.get('pairing').then((g) => g.pairing ?? null)`))
	shoot(t, r.popup, "revoked-dark")
}

// rateLimited: after five failures the sixth try is a 429, which the
// popup words as "wait a minute".
func (r *clipRun) rateLimited(t *testing.T) {
	for range 5 {
		got := eval[map[string]any](t, r.popup, `chrome.runtime.sendMessage({op: 'pair', origin: '`+r.base+`', username: 'mallory', password: 'not it'})`)
		require.Equal(t, 401.0, got["status"], got)
	}
	require.NoError(t, chromedp.Do(r.popup, chromedp.SetValue(chromedp.CSS("#origin"), r.base), chromedp.SetValue(chromedp.CSS("#username"), "mallory"),
		chromedp.SetValue(chromedp.CSS("#password"), "not it either"), chromedp.Click(chromedp.CSS("#pair")),
		waitFor(`document.getElementById('login-msg').textContent.includes('wait a minute')`)))
}

// pastedKey pairs with a pasted key, checked by GET /v1/me before it is
// kept; a key that may ingest nowhere sees one warning and no action.
func (r *clipRun) pastedKey(t *testing.T) {
	code, out := rest(t, "POST", r.base+"/v1/admin/grant", r.ownerKey, map[string]any{"principal": "rui", "forest": forestID,
		"caps": []string{"read"}, "allow": []string{""}, "issue_key": true})
	require.Equal(t, 200, code, out)
	key := out["api_key"].(string)
	require.NoError(t, chromedp.Do(r.popup, chromedp.SetValue(chromedp.CSS("#origin"), r.base),
		chromedp.SendKeys(chromedp.CSS("#key"), "mk_not_a_key"), chromedp.Click(chromedp.CSS("#pair-key")),
		waitFor(`document.getElementById('login-msg').textContent.includes('Invalid')`)))
	assert.Nil(t, eval[any](t, r.popup, `chrome.storage.local.get('pairing').then((g) => g.pairing ?? null)`), "a refused key is not kept")
	require.NoError(t, chromedp.Do(r.popup, chromedp.SetValue(chromedp.CSS("#key"), key), chromedp.Click(chromedp.CSS("#pair-key")),
		waitFor(`!document.getElementById('main').hidden && !document.getElementById('no-forest').hidden`)))
	assert.Equal(t, "rui", eval[string](t, r.popup, `chrome.storage.local.get('pairing').then((g) => g.pairing.principal)`))
	assert.True(t, eval[bool](t, r.popup, `[...document.querySelectorAll('.actions button, #save-note')].every((b) => b.disabled)`))
	assert.Equal(t, forestID+" (read only)", eval[string](t, r.popup, `document.getElementById('forest').selectedOptions[0].textContent`))
	shoot(t, r.popup, "nothing-clippable-dark")
}

// drag presses the left button at one point and releases it at another.
func drag(x0, y0, x1, y1 float64) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.MouseEvent("mousePressed", x0, y0, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", (x0+x1)/2, (y0+y1)/2, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", x1, y1, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseReleased", x1, y1, chromedp.ButtonLeft))
}

// settled waits for the worker's progress record to end and returns the
// nodes it planted or updated.
func settled(t *testing.T, popup context.Context) []string {
	t.Helper()
	require.NoError(t, chromedp.Do(popup, waitFor(`chrome.storage.session.get('status').then((g) => g.status && (g.status.state === 'done' || g.status.state === 'error'))`)))
	st := eval[map[string]any](t, popup, `chrome.storage.session.get('status').then((g) => g.status)`)
	require.Equal(t, "done", st["state"], st)
	var nodes []string
	for _, n := range st["nodes"].([]any) {
		nodes = append(nodes, n.(string))
	}
	require.NotEmpty(t, nodes, st)
	return nodes
}

// helpers checks lib/clip.js, table-driven, in the extension's own page.
func helpers(t *testing.T, ctx context.Context) {
	now := `new Date(Date.UTC(2026, 4, 17, 9, 5))`
	for _, tc := range []struct{ expr, want string }{
		{`m.normalizeOrigin('station.example.org/path?q=1')`, "https://station.example.org"},
		{`m.normalizeOrigin(' HTTP://Host:8800/ ')`, "http://host:8800"},
		{`m.normalizeOrigin('https://h:443/x')`, "https://h"},
		{`(() => { try { return m.normalizeOrigin('ftp://h'); } catch { return 'refused'; } })()`, "refused"},
		{`m.originPattern('http://host:8800')`, "http://host/*"},
		{`m.stripTracking('https://a.b/p?utm_source=x&id=2&fbclid=y&gclid=z&UTM_Medium=q#top')`, "https://a.b/p?id=2#top"},
		{`m.provenance('https://a.b/p?utm_campaign=c', ` + now + `)`, "\n\n---\n\nSource: https://a.b/p (clipped 2026-05-17)"},
		{`m.shotName('Tides of the Quiet Bay — a very long title indeed, more', 'https://www.example.org/x', ` + now + `)`,
			"tides-of-the-quiet-bay-a-very-long-title--www-example-org-202605170905.jpg"},
		{`m.sourceURL('javascript:alert(1)')`, ""},
		{`m.sourceURL('https://a.b/' + 'x'.repeat(2100))`, ""},
	} {
		got := eval[string](t, ctx, `import('./lib/clip.js').then((m) => `+tc.expr+`)`)
		assert.Equal(t, tc.want, got, tc.expr)
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// js is a step that runs an expression for its effect.
func js(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](expr)(ctx, t)
		return chromedp.Void{}, err
	}
}

func jsNum(f float64) string { b, _ := json.Marshal(f); return string(b) }

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, sel)
	return s
}
