// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/adapters/station"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/internal/testforest"
)

const (
	forestID   = "mare-alta"
	fakeAnswer = "Tides rise and fall twice a day on this coast [concepts/tide]."
)

// chromium finds the browser, or skips: without VINE_TEST_BROWSER=1
// (which .ci/run sets) a machine with no Chromium skips with a message.
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
	t.Skip("no chromium binary on PATH: the browser tests need Debian's chromium (apt-get install -y chromium); VINE_TEST_BROWSER=1 makes this a failure")
	return ""
}

// browser starts a fresh headless Chromium with its own profile.
func browser(t *testing.T, bin string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800)}
	// A bound on a hung browser, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() { bcancel(); acancel(); cancel() })
	require.NoError(t, chromedp.Do(bctx, chromedp.EmulateViewport(1280, 800)))
	return bctx
}

// fakeModel is an OpenAI-compatible chat endpoint that always answers
// the same text.
func fakeModel(t *testing.T) *llamacpp.Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"model": "fake-9b", "choices": []any{map[string]any{"index": 0,
			"message": map[string]any{"role": "assistant", "content": fakeAnswer}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	c, err := llamacpp.New(srv.URL+"/v1", "fake-9b")
	require.NoError(t, err)
	return c
}

// TestStudioInBrowser runs the browser tests against one Station: the
// answer route exists only once the composite is in the engine's one
// signature table, which is per process, so this binary binds it once,
// to this Station's Answerer.
func TestStudioInBrowser(t *testing.T) {
	bin := chromium(t)
	if _, bound := vine.LookupSignature(answer.Signature.Name); bound {
		t.Skip("the answer composite binds once per process: run the browser tests with -count=1")
	}
	base := stationFixture(t)
	// The flow creates the owner the branch-key test signs in as.
	t.Run("flow", func(t *testing.T) { studioFlow(t, browser(t, bin), base) })
	t.Run("branch key", func(t *testing.T) { branchKeySeesNoHiddenID(t, browser(t, bin), base) })
	t.Run("data", func(t *testing.T) { dataConsole(t, browser(t, bin), base) })
	t.Run("hostile markdown", func(t *testing.T) { hostileMarkdown(t, browser(t, bin), base) })
	t.Run("webhooks", func(t *testing.T) { webhooksConsole(t, browser(t, bin), base) })
	t.Run("access audit", func(t *testing.T) { accessAudit(t, browser(t, bin), base) })
	t.Run("clipper link", func(t *testing.T) { clipperLink(t, browser(t, bin), base) })
	t.Run("ingest", func(t *testing.T) { ingestConsole(t, browser(t, bin), base) })
	t.Run("skills", func(t *testing.T) { skillsConsole(t, browser(t, bin), base) })
	t.Run("integrations", func(t *testing.T) { integrationsConsole(t, browser(t, bin), base) })
	t.Run("govern caps", func(t *testing.T) { governCaps(t, browser(t, bin), base) })
	t.Run("models", func(t *testing.T) { modelsConsole(t, browser(t, bin), base) })
	t.Run("health", func(t *testing.T) { healthConsole(t, browser(t, bin), base) })
	t.Run("adopt", func(t *testing.T) { adoptAndSync(t, browser(t, bin), base) })
	t.Run("extensions", func(t *testing.T) { extensionsConsole(t, browser(t, bin), base) })
}

// stationFixture serves the fixture forest from a Station with a fresh
// registry and the fake model as every forest's answer model; webhooks
// may reach private destinations, so a test's local receiver is one.
func stationFixture(t *testing.T) string {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	model := fakeModel(t)
	adoptRoot = t.TempDir()
	opt := station.Options{Root: filepath.Dir(dir), Registry: filepath.Join(t.TempDir(), "registry", "station.db"),
		Writable: true, AllowedHosts: []string{"*"}, AllowPrivateDestinations: true, IngestRoots: []string{adoptRoot},
		AnswerWith: func(base answer.Options) (*answer.Answerer, error) { return answer.Register(model, &base) }}
	s, err := station.New(context.Background(), opt)
	require.NoError(t, err)
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL
}

// shoot saves a 1280×800 screenshot under testdata/screenshots (ignored
// by git) as <name>-<theme>.png.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	theme := eval[string](t, ctx, `document.documentElement.dataset.theme`)
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	dir := filepath.Join("testdata", "screenshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+"-"+theme+".png"), png, 0o644))
}

// eval runs an expression and returns its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAsValue))
	require.NoError(t, err, js)
	return v
}

// js is a step that runs an expression for its effect.
func js(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](expr)(ctx, t)
		return chromedp.Void{}, err
	}
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// text reads an element's text.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, sel)
	return s
}

// waitFor polls a JavaScript condition until it holds: tests wait on
// the DOM, never on the clock. The two minutes only bound a hang on a
// loaded machine (the race detector, a shared CI runner).
func waitFor(cond string) chromedp.Action[chromedp.Void] {
	// A condition that throws (an element not there yet) would end the
	// poll's promise without settling it, and the wait would outlive its
	// own timeout: a throw counts as "not yet".
	guarded := "(() => { try { return !!(" + cond + "); } catch (e) { return false; } })()"
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[any](guarded, chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(2*time.Minute))(ctx, t)
		return chromedp.Void{}, err
	}
}

func input(sel, v string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(sel), v)
}
func click(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }

// setTheme presses the rail's theme button (light first, dark second).
func setTheme(theme string) chromedp.Action[chromedp.Void] {
	i := map[string]string{"light": "0", "dark": "1"}[theme]
	return js(`document.querySelectorAll('.rail .prefs button')[` + i + `].click()`)
}

// setLanguage picks a language in the rail's select.
func setLanguage(lang string) chromedp.Action[chromedp.Void] {
	return js(`(() => { const s = document.querySelector('.prefs select'); s.value = ` + jsString(lang) +
		`; s.dispatchEvent(new Event('change')); })()`)
}
