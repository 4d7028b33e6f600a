// SPDX-License-Identifier: Apache-2.0

package clipper_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/clipper"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/station"
	"github.com/monkeyllm/vine/internal/testforest"
)

const (
	forestID = "mare-alta"
	owner    = "olga"
	ownerPwd = "a long owner passphrase"
)

// chromium finds the browser, or skips: VINE_TEST_BROWSER=1 (which
// .ci/run sets) makes a missing one a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("VINE_TEST_BROWSER") == "1" {
		t.Fatal("VINE_TEST_BROWSER=1 but no chromium binary on PATH (apt-get install -y chromium)")
	}
	t.Skip("no chromium binary on PATH: the Clipper test needs Debian's chromium (apt-get install -y chromium)")
	return ""
}

// testStation serves the fixture forest, writable, with the Host
// allow-list a local operator gets (not "*"), so the extension's
// requests pass the same guard a real Station applies.
func testStation(t *testing.T) string {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s, err := station.New(context.Background(), station.Options{Root: filepath.Dir(dir),
		Registry: filepath.Join(t.TempDir(), "registry", "station.db"), Writable: true, AllowedHosts: wire.LocalHosts(port)})
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(s)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL
}

// rest calls the Station as a plain client and decodes the answer.
func rest(t *testing.T, method, url, key string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// pages serves the local pages the test clips: an article with tracking
// parameters in its address, and a page three windows tall with a fixed
// header and content that grows once scrolled (a lazy page).
func pages(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>Tides of the Quiet Bay</title></head><body>
<nav><a href="/">Home</a> · <a href="/about">About</a></nav>
<article><h1>Tides of the Quiet Bay</h1>
<p>The bay fills twice a day. Fishermen read the <a href="/moon">moon</a> before they read the sky, because the moon pulls the water and the water carries the boats.</p>
<p id="picked">Spring tides come with the new and the full moon, when sun and moon pull together and the range is widest.</p>
<h2>Tide table</h2>
<table><thead><tr><th>Day</th><th>High</th></tr></thead><tbody><tr><td>Mon</td><td>06:10</td></tr><tr><td>Tue</td><td>06:55</td></tr></tbody></table>
<p>Neap tides fall between them, when sun and moon pull at right angles, and the range is smallest. <del>Old charts</del> New charts mark both.</p>
<p>Harbour masters publish the table each season; sailors keep a copy aboard, and children learn to read it before they learn to row.</p>
</article><footer>© the bay</footer></body></html>`)
	})
	mux.HandleFunc("/tall", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>A tall page</title>
<style>body{margin:0;font:20px sans-serif} header{position:fixed;top:0;left:0;right:0;height:60px;background:#c00;color:#fff}
section{height:700px;border-bottom:4px solid #000;padding-top:70px} #end{background:#0a0;height:300px}</style></head>
<body><header>Fixed header</header><section>One</section><section>Two</section><section>Three</section>
<div id="more"></div><script>
addEventListener('scroll', () => { if (!window.grown && scrollY > 600) { window.grown = true;
  const s = document.createElement('section'); s.textContent = 'Lazy'; document.getElementById('more').appendChild(s);
  const e = document.createElement('div'); e.id = 'end'; e.textContent = 'The end'; document.getElementById('more').appendChild(e); } });
</script></body></html>`)
	})
	// A watch page shaped like YouTube's, with its caption track.
	mux.HandleFunc("/watch", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>Reading the tide - YouTube</title>
<meta name="title" content="Reading the tide"><meta name="description" content="How harbour pilots read a tide table."></head>
<body><h1 class="ytd-watch-metadata">Reading the tide</h1><div id="owner"><div id="channel-name"><a href="/@pilots">Harbour Pilots</a></div></div>
<script>var ytInitialPlayerResponse = {"captions":{"playerCaptionsTracklistRenderer":{"captionTracks":[{"baseUrl":"/api/timedtext?v=abc&lang=en","languageCode":"en"}]}}};</script>
</body></html>`)
	})
	mux.HandleFunc("/api/timedtext", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprint(w, `<?xml version="1.0"?><transcript><text start="0" dur="2">Good morning from the pier.</text><text start="2" dur="3">High water is at six.</text></transcript>`)
	})
	mux.HandleFunc("/chart.png", func(w http.ResponseWriter, r *http.Request) {
		img := image.NewRGBA(image.Rect(0, 0, 40, 30))
		draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{0, 90, 200, 255}}, image.Point{}, draw.Src)
		w.Header().Set("Content-Type", "image/png")
		png.Encode(w, img)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// unpacked copies the embedded extension to a folder a browser can
// load. The copy adds host_permissions <all_urls>: a headless browser
// has no toolbar to click and no dialog to accept, so this stands in for
// the two grants a person gives by hand, the pairing prompt for the
// Station's origin and the activeTab grant of a click or shortcut.
func unpacked(t *testing.T) string {
	dir := t.TempDir()
	ext := clipper.Extension()
	require.NoError(t, fs.WalkDir(ext, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(ext, p)
		if err != nil {
			return err
		}
		if p == "manifest.json" {
			var m map[string]any
			require.NoError(t, json.Unmarshal(data, &m))
			m["host_permissions"] = []string{"<all_urls>"}
			data, _ = json.Marshal(m)
		}
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		return os.WriteFile(filepath.Join(dir, p), data, 0o644)
	}))
	return dir
}

// browserWith starts new-headless Chromium with the extension loaded.
func browserWith(t *testing.T, bin, ext string) context.Context {
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(bin), chromedp.Flag("headless", "new"), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("load-extension", ext),
		// The microphone prompt answered yes, with a fake device.
		chromedp.Flag("use-fake-ui-for-media-stream", true), chromedp.Flag("use-fake-device-for-media-stream", true), chromedp.Flag("disable-extensions-except", ext),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800)}
	// A bound on a hung browser, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() { bcancel(); acancel(); cancel() })
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate("about:blank")))
	return bctx
}

// extensionID reads the id from the service worker's target URL.
func extensionID(t *testing.T, ctx context.Context) string {
	t.Helper()
	// A bound on a worker that never starts, not a timing assertion.
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		targets, err := chromedp.Targets(ctx)
		require.NoError(t, err)
		for _, ti := range targets {
			if ti.Type == "service_worker" && strings.HasPrefix(ti.URL, "chrome-extension://") {
				return strings.SplitN(strings.TrimPrefix(ti.URL, "chrome-extension://"), "/", 2)[0]
			}
		}
		time.Sleep(50 * time.Millisecond) // waiting for the worker to start, not timing it
	}
	t.Fatal("the Clipper's service worker never started")
	return ""
}

// eval runs an expression (awaiting a promise) and returns its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
	require.NoError(t, err, js)
	return v
}

// waitFor polls a JavaScript condition (a promise is awaited): the test
// waits on state, never on the clock; the bound only ends a hang.
// chromedp.Poll does not run in chrome-extension pages, so this polls
// with Evaluate.
func waitFor(cond string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		deadline := time.Now().Add(3 * time.Minute)
		for {
			ok, err := chromedp.Evaluate[bool]("Promise.resolve("+cond+").then((v) => !!v)", chromedp.EvalAwaitPromise)(ctx, tg)
			if err == nil && ok {
				return chromedp.Void{}, nil
			}
			if time.Now().After(deadline) {
				return chromedp.Void{}, fmt.Errorf("waiting for %s: %v", cond, err)
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// payload downloads a media node's bytes and decodes the JPEG.
// It keeps a copy as testdata/screenshots/<save>.jpg to look at.
func payload(t *testing.T, base, key, node, save string) image.Image {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/forests/"+forestID+"/payload/"+node, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	data, _ := io.ReadAll(res.Body)
	img, err := jpeg.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	dir := filepath.Join("testdata", "screenshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, save+".jpg"), data, 0o644))
	return img
}

// colourAt names the colour of a pixel coarsely (JPEG is lossy).
func colourAt(img image.Image, x, y int) string {
	r, g, b, _ := img.At(x, y).RGBA()
	r, g, b = r>>8, g>>8, b>>8
	switch {
	case r > 150 && g < 80 && b < 80:
		return "red"
	case g > 100 && r < 80 && b < 80:
		return "green"
	case r > 200 && g > 200 && b > 200:
		return "white"
	}
	return "other"
}

// redBands counts the runs of red rows down the middle (the header text aside): the fixed
// header, once.
func redBands(img image.Image) int {
	bands, in := 0, false
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		red := colourAt(img, 600, y) == "red"
		if red && !in {
			bands++
		}
		in = red
	}
	return bands
}

// deadOrigin is an address where nothing listens any more.
func deadOrigin(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// shoot saves the popup under testdata/screenshots (ignored by git).
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	dir := filepath.Join("testdata", "screenshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

func scheme(dark bool) chromedp.Action[chromedp.Void] {
	v := "light"
	if dark {
		v = "dark"
	}
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return err
	})
}
