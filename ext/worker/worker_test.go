// SPDX-License-Identifier: Apache-2.0

package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/sdk"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/exttest"
)

// The test binary is also the extension under test: started with
// VINE_EXT_TEST_ROLE in its (scrubbed) environment it serves testExt
// over vine-ext/1 instead of running tests.
func TestMain(m *testing.M) {
	if os.Getenv("VINE_EXT_TEST_ROLE") == "extension" {
		if err := sdk.Serve(testExt{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	exttest.Cleanup()
	os.Exit(code)
}

type testExt struct{}

var testManifest = ext.Manifest{
	ID: "testext", Version: "1.0.0", License: "Apache-2.0", StationCompat: ">=0.1",
	Contributes: ext.Contributes{
		Converters: []ext.ConverterSpec{
			{Extensions: []string{".rec"}, Handler: "recipe"},
			{Extensions: []string{".hang"}, Handler: "hang"},
			{Extensions: []string{".heavy"}, Handler: "heavy", Heavy: true},
		},
		Tools: []ext.HandlerSpec{
			{Name: "x_testext_crash"}, {Name: "x_testext_flood"}, {Name: "x_testext_big"},
			{Name: "x_testext_peek"}, {Name: "x_testext_env"}, {Name: "x_testext_fail"},
		},
		Ranking:  []ext.HandlerSpec{{Name: "slow"}},
		Curation: []ext.HandlerSpec{{Name: "tagger"}, {Name: "broken"}},
	},
}

func (testExt) Manifest() ext.Manifest { return testManifest }

func (testExt) Register(api *ext.API) error {
	return errors.Join(
		api.Converter("recipe", func(ctx context.Context, path string) (*ext.Conversion, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			return &ext.Conversion{Kind: "markdown", Title: "Recipe", Markdown: "# Recipe\n\n" + string(b) + "\n\nconverted from " + path}, nil
		}),
		api.Converter("hang", func(ctx context.Context, path string) (*ext.Conversion, error) {
			select {} // never answers
		}),
		api.Converter("heavy", func(ctx context.Context, path string) (*ext.Conversion, error) {
			return &ext.Conversion{Kind: "markdown", Markdown: fmt.Sprintf("pid %d", os.Getpid())}, nil
		}),
		api.Tool("x_testext_crash", func(ctx context.Context, args json.RawMessage) (any, error) {
			fmt.Fprintln(os.Stderr, "about to crash: the disk is on fire")
			os.Exit(3)
			return nil, nil
		}),
		api.Tool("x_testext_flood", func(ctx context.Context, args json.RawMessage) (any, error) {
			// Bypass the protocol: a line far over the host's cap.
			out := os.NewFile(1, "stdout")
			chunk := strings.Repeat("x", 1<<20)
			for range 64 {
				if _, err := out.WriteString(chunk); err != nil {
					break
				}
			}
			select {}
		}),
		api.Tool("x_testext_big", func(ctx context.Context, args json.RawMessage) (any, error) {
			return map[string]string{"blob": strings.Repeat("y", 2<<20)}, nil
		}),
		api.Tool("x_testext_peek", func(ctx context.Context, args json.RawMessage) (any, error) {
			out, err := api.Vine(ctx, "pick", map[string]string{"id": "secret/plans"})
			var r *ext.Refusal
			if errors.As(err, &r) {
				return map[string]any{"refused": r.Code, "envelope": r.Envelope}, nil
			}
			return map[string]any{"answer": out, "err": fmt.Sprint(err)}, nil
		}),
		api.Tool("x_testext_env", func(ctx context.Context, args json.RawMessage) (any, error) {
			wd, _ := os.Getwd()
			return map[string]any{"env": os.Environ(), "wd": wd, "forest": ext.CallOf(ctx).Forest}, nil
		}),
		api.Tool("x_testext_fail", func(ctx context.Context, args json.RawMessage) (any, error) {
			return nil, errors.New("the recipe is missing its oven temperature")
		}),
		api.Curation("tagger", func(ctx context.Context, draft json.RawMessage) (json.RawMessage, error) {
			var d map[string]any
			if err := json.Unmarshal(draft, &d); err != nil {
				return nil, err
			}
			tags, _ := d["tags"].([]any)
			d["tags"] = append(tags, "curated")
			d["id"] = "elsewhere/hijacked" // what a hook may not change is restored
			d["summary"] = fmt.Sprintf("A recipe of %d bytes, summarised by an extension.", len(d["body"].(string)))
			return json.Marshal(d)
		}),
		api.Curation("broken", func(ctx context.Context, draft json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("the oven is cold")
		}),
		api.Ranking("slow", func(ctx context.Context, q string, rs []ext.Ranked) ([]string, error) {
			time.Sleep(time.Hour)
			return nil, nil
		}),
	)
}

// install lays the test binary out as an installed tree.
func install(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	tree := t.TempDir()
	require.NoError(t, os.Symlink(self, filepath.Join(tree, "main")))
	return tree
}

// fakeHost answers vine.call like a scoped handle that holds only
// "public/": anything else is the primitive's own E_NOT_FOUND.
type fakeHost struct{}

func (fakeHost) CallVine(ctx context.Context, call ext.Call, name string, args json.RawMessage) (json.RawMessage, error) {
	var a struct{ ID string }
	_ = json.Unmarshal(args, &a)
	if !strings.HasPrefix(a.ID, "public/") {
		return nil, envelope.New(envelope.NotFound, fmt.Sprintf("node %q not found", a.ID), "locate finds ids")
	}
	return json.RawMessage(`{"id":"` + a.ID + `"}`), nil
}

func (fakeHost) Complete(context.Context, ext.Call, string, json.RawMessage) (json.RawMessage, error) {
	return nil, envelope.New(envelope.Schema, "no model bound", "")
}

func (fakeHost) Transcribe(context.Context, ext.Call, string, string, json.RawMessage) (json.RawMessage, error) {
	return nil, envelope.New(envelope.Schema, "no model bound", "")
}

func newWorker(t *testing.T, opt worker.Options) *worker.Worker {
	t.Helper()
	m := testManifest
	opt.Env = append(opt.Env, "VINE_EXT_TEST_ROLE=extension")
	if opt.Host == nil {
		opt.Host = fakeHost{}
	}
	w := worker.New(install(t), &m, opt)
	t.Cleanup(func() { w.Close() })
	return w
}

func codeOf(err error) envelope.Code {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestConverterRoundTrip(t *testing.T) {
	w := newWorker(t, worker.Options{})
	require.NoError(t, w.Start(context.Background()))
	src := filepath.Join(t.TempDir(), "source-tree", "soup.rec")
	require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
	require.NoError(t, os.WriteFile(src, []byte("leek, potato, water"), 0o644))
	convs := w.Converters()
	require.Len(t, convs, 3)
	assert.Equal(t, []string{".rec"}, convs[0].Extensions())
	got, err := convs[0].Convert(context.Background(), src)
	require.NoError(t, err)
	assert.Equal(t, "Recipe", got.Title)
	assert.Contains(t, got.Markdown, "leek, potato, water")
	assert.NotContains(t, got.Markdown, filepath.Dir(src), "the extension sees a copy, never the source tree")
}

func TestHostile(t *testing.T) {
	ctx := context.Background()
	call := ext.Call{Forest: "kitchen", Principal: "ada"}
	tests := []struct {
		name     string
		seam     ext.Seam
		handler  string
		code     envelope.Code
		contains string
	}{
		{"crash names its stderr", ext.SeamTools, "x_testext_crash", envelope.ExtWorker, "the disk is on fire"},
		{"flood past the cap", ext.SeamTools, "x_testext_flood", envelope.ExtWorker, "size limit"},
		{"answer past the host's cap", ext.SeamTools, "x_testext_big", envelope.ExtWorker, "size limit"},
		{"handler error", ext.SeamTools, "x_testext_fail", envelope.ExtWorker, "oven temperature"},
		{"hang meets the seam deadline", ext.SeamRanking, "slow", envelope.Timeout, "within 2s"},
		{"hang meets the worker clock", ext.SeamConverters, "hang", envelope.Timeout, "within 1.5s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Only the worker-clock cases race the clock; the others get
			// room to fail for their own reason on a loaded machine.
			clock := 10 * time.Second
			if tc.code == envelope.Timeout {
				clock = 1500 * time.Millisecond
			}
			w := newWorker(t, worker.Options{Timeout: clock, MaxMessage: 1 << 20, MinBackoff: time.Millisecond})
			params := map[ext.Seam]map[string]any{
				ext.SeamTools:      {"args": map[string]any{}},
				ext.SeamRanking:    {"query": "q", "results": []any{}},
				ext.SeamConverters: {"path": "/nonexistent"},
			}[tc.seam]
			_, err := w.Call(ctx, call, tc.seam, tc.handler, params)
			require.Error(t, err)
			assert.Equal(t, tc.code, codeOf(err), "%v", err)
			assert.Contains(t, err.Error()+" "+hintOf(err), tc.contains)
			// The host is unharmed: the next call is served by a fresh
			// process once the pause has passed.
			require.Eventually(t, func() bool {
				out, err := w.Call(ctx, call, ext.SeamTools, "x_testext_env", map[string]any{"args": map[string]any{}})
				return err == nil && strings.Contains(string(out), `"forest":"kitchen"`)
			}, 10*time.Second, 20*time.Millisecond)
		})
	}
}

func hintOf(err error) string {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}

func TestScrubbedEnvironment(t *testing.T) {
	t.Setenv("MONKEYLLM_LLM_API_KEY", "sk-host-secret")
	w := newWorker(t, worker.Options{})
	out, err := w.Call(context.Background(), ext.Call{Forest: "f"}, ext.SeamTools, "x_testext_env", map[string]any{"args": map[string]any{}})
	require.NoError(t, err)
	var got struct {
		Env []string
		WD  string
	}
	require.NoError(t, json.Unmarshal(out, &got))
	assert.NotContains(t, strings.Join(got.Env, "\n"), "sk-host-secret")
	assert.Contains(t, got.Env, "VINE_EXT_ID=testext")
	assert.Equal(t, "main", filepath.Base(filepath.Join(got.WD, "main")))
}

func TestCallbackOutOfScopeIsAbsent(t *testing.T) {
	w := newWorker(t, worker.Options{})
	out, err := w.Call(context.Background(), ext.Call{Forest: "f", Principal: "ada"}, ext.SeamTools, "x_testext_peek", map[string]any{"args": map[string]any{}})
	require.NoError(t, err)
	var got struct {
		Refused  string
		Envelope json.RawMessage
	}
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, "E_NOT_FOUND", got.Refused)
	want, _ := json.Marshal(envelope.New(envelope.NotFound, `node "secret/plans" not found`, "locate finds ids"))
	assert.JSONEq(t, string(want), string(got.Envelope), "the extension reads the primitive's own refusal")
}

func TestHeavyRunsInItsOwnProcess(t *testing.T) {
	w := newWorker(t, worker.Options{})
	ctx := context.Background()
	pids := map[string]bool{}
	for range 2 {
		out, err := w.Call(ctx, ext.Call{}, ext.SeamConverters, "heavy", map[string]any{"path": "x"})
		require.NoError(t, err)
		pids[string(out)] = true
	}
	assert.Len(t, pids, 2, "each heavy call gets a process of its own")
}

func TestConcurrentCalls(t *testing.T) {
	w := newWorker(t, worker.Options{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := w.Call(ctx, ext.Call{Forest: fmt.Sprint("f", i)}, ext.SeamTools, "x_testext_env", map[string]any{"args": map[string]any{}})
			if err == nil && !strings.Contains(string(out), fmt.Sprintf(`"forest":"f%d"`, i)) {
				err = fmt.Errorf("call %d got another call's answer: %.60s", i, out)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

func TestHandshakeRefusesAMissingHandler(t *testing.T) {
	m := testManifest
	m.Contributes.Prompt = []ext.HandlerSpec{{Name: "extra"}}
	w := worker.New(install(t), &m, worker.Options{Env: []string{"VINE_EXT_TEST_ROLE=extension"}})
	defer w.Close()
	err := w.Start(context.Background())
	require.Error(t, err)
	assert.Equal(t, envelope.ExtLoad, codeOf(err))
}

func TestPoolLoadsATreeOnce(t *testing.T) {
	m := testManifest
	pool := worker.NewPool(worker.Options{Env: []string{"VINE_EXT_TEST_ROLE=extension"}})
	defer pool.Close()
	tree := install(t)
	a := pool.Worker(tree, &m, nil)
	b := pool.Worker(tree, &m, nil)
	assert.Same(t, a, b, "one worker per installed tree")
	other := pool.Worker(install(t), &m, nil)
	assert.NotSame(t, a, other)
	pool.Retire(map[string]bool{tree: true})
	assert.Same(t, a, pool.Worker(tree, &m, nil), "kept")
	assert.NotSame(t, other, pool.Worker(filepath.Dir(tree), &m, nil))
}

// TestCurationHooks: an extension's curation handler edits new drafts
// after the host's hooks; what it may not change is restored, and a
// failing handler is skipped and reported while the batch completes.
func TestCurationHooks(t *testing.T) {
	w := newWorker(t, worker.Options{})
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "kb")
	_, err := vine.Init(ctx, dir, "Kitchen", nil)
	require.NoError(t, err)
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "soup.md"), []byte("# Soup\n\nLeek, potato and water, simmered gently.\n"), 0o644))
	hooks := w.CurateHooks()
	require.Len(t, hooks, 2)
	rep, err := gardener.New(v, &gardener.Options{Hooks: hooks}).Adopt(ctx, src, "")
	require.NoError(t, err)
	require.Equal(t, []string{"soup"}, rep.Planted)
	require.Len(t, rep.Errors, 1)
	assert.Contains(t, rep.Errors[0], "on_curate hook 'ext:testext/broken'")
	assert.Contains(t, rep.Errors[0], "the oven is cold")
	look, err := v.Look(ctx, "soup", vine.LookOptions{})
	require.NoError(t, err)
	raw, _ := json.Marshal(look)
	assert.Contains(t, string(raw), "curated")
	assert.Contains(t, string(raw), "summarised by an extension")
}

// TestFitsNamesTheMismatch is F.202: a handler reading a parameter its
// seam does not pass fails naming seam, parameter and what is passed; a
// catch-all excuses nothing; an omitted parameter and one with a
// default pass.
func TestFitsNamesTheMismatch(t *testing.T) {
	tests := []struct {
		name   string
		d      worker.Declared
		wantOK bool
		says   []string
	}{
		{"all passed", worker.Declared{Seam: ext.SeamEvents, Name: "h", Params: []worker.Param{{Name: "event"}, {Name: "forest"}}}, true, nil},
		{"omitted ones are fine", worker.Declared{Seam: ext.SeamEvents, Name: "h", Params: []worker.Param{{Name: "event"}}}, true, nil},
		{"a typo", worker.Declared{Seam: ext.SeamEvents, Name: "h", Params: []worker.Param{{Name: "event"}, {Name: "forrest"}}}, false,
			[]string{"events", `"forrest"`, "forest"}},
		{"a typo with a default", worker.Declared{Seam: ext.SeamEvents, Name: "h", Params: []worker.Param{{Name: "forrest", Optional: true}}}, true, nil},
		{"a catch-all excuses nothing", worker.Declared{Seam: ext.SeamEvents, Name: "h", Params: []worker.Param{{Name: "forrest"}, {Name: "**rest"}}}, false,
			[]string{`"forrest"`}},
		{"not a seam", worker.Declared{Seam: ext.SeamPanel, Name: "h"}, false, []string{"panel"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := worker.Fits(tc.d)
			if tc.wantOK {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, s := range tc.says {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

// TestFailingConverterFallsBack is F.183: an extension converter that
// fails hands the file to the next claimant, the batch completes, and
// the report names the extension.
func TestFailingConverterFallsBack(t *testing.T) {
	m := testManifest
	m.Contributes.Converters = append(m.Contributes.Converters, ext.ConverterSpec{Extensions: []string{".md"}, Handler: "hang"})
	w := worker.New(install(t), &m, worker.Options{Env: []string{"VINE_EXT_TEST_ROLE=extension"}, Timeout: time.Second})
	defer w.Close()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "kb")
	_, err := vine.Init(ctx, dir, "Kitchen", nil)
	require.NoError(t, err)
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "soup.md"), []byte("# Soup\n\nLeek and potato.\n"), 0o644))
	var convs []gardener.Converter
	for _, c := range w.Converters() {
		convs = append(convs, gardener.ExtensionConverter(w.ID(), c))
	}
	rep, err := gardener.New(v, &gardener.Options{Converters: convs}).Adopt(ctx, src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"soup"}, rep.Planted, "the built-in markdown converter took over")
	require.NotEmpty(t, rep.Errors)
	assert.Contains(t, strings.Join(rep.Errors, "\n"), "ext:testext")
}
