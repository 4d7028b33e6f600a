// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

// fakeConverter claims exts and answers with fn.
type fakeConverter struct {
	name string
	exts []string
	fn   func(ctx context.Context, path string) (*Conversion, error)
}

func (f fakeConverter) String() string       { return f.name }
func (f fakeConverter) Extensions() []string { return f.exts }
func (f fakeConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	return f.fn(ctx, path)
}

func okConverter(name string, exts ...string) fakeConverter {
	return fakeConverter{name: name, exts: exts, fn: func(context.Context, string) (*Conversion, error) {
		return &Conversion{Kind: KindMarkdown, Title: name, Markdown: "# " + name + "\n"}, nil
	}}
}

func failingConverter(name string, err error, exts ...string) fakeConverter {
	return fakeConverter{name: name, exts: exts, fn: func(context.Context, string) (*Conversion, error) { return nil, err }}
}

// registerForTest registers c for the duration of the test.
func registerForTest(t *testing.T, name string, c Converter) {
	t.Helper()
	RegisterConverter(name, c)
	t.Cleanup(func() {
		registry.Lock()
		delete(registry.byName, name)
		registry.Unlock()
	})
}

func claimantNames(cl []claimant) []string {
	out := make([]string, len(cl))
	for i, c := range cl {
		out[i] = c.name + " (" + c.origin + ")"
	}
	return out
}

func TestClaimantsDiscoveryOrder(t *testing.T) {
	registerForTest(t, "zz-images", okConverter("zz", ".png"))
	registerForTest(t, "aa-images", okConverter("aa", ".PNG"))
	hooks := map[string]string{"png": "tool {input}", ".pdf": "pdf2md {input}"}
	extras := []Converter{
		okConverter("vision", ".png", ".jpg"),
		nil,
		ExtensionConverter("ocr", okConverter("ocr", ".png")),
	}
	assert.Equal(t, []string{
		"hook .png (hook)",
		"ext:ocr (ext:ocr)",
		"vision (describer)",
		"plugin:aa-images (plugin:aa-images)",
		"plugin:zz-images (plugin:zz-images)",
		"media stub (builtin)",
	}, claimantNames(claimants(hooks, extras, ".PNG", Limits{})),
		"hooks, extension converters, injected, registered by name, built-ins with the stub last")

	assert.Equal(t, []string{"hook .pdf (hook)"}, claimantNames(claimants(hooks, extras, ".pdf", Limits{})))
	assert.Equal(t, []string{"markdown (builtin)"}, claimantNames(claimants(nil, nil, ".md", Limits{})))
	assert.Empty(t, claimants(nil, nil, ".xls", Limits{}), "no built-in reads legacy workbooks")
	assert.Empty(t, claimants(nil, nil, "", Limits{}))
}

func TestBuiltinClaims(t *testing.T) {
	want := map[string]string{
		".md": "markdown", ".markdown": "markdown", ".txt": "markdown", ".csv": "csv", ".json": "json",
		".xlsx": "xlsx", ".db": "sqlite", ".sqlite": "sqlite", ".sqlite3": "sqlite", ".docx": "docx",
	}
	for _, ext := range []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".mp3", ".wav", ".m4a", ".ogg", ".flac"} {
		want[ext] = "media stub"
	}
	for ext, name := range want {
		cl := claimants(nil, nil, ext, Limits{})
		require.Len(t, cl, 1, ext)
		assert.Equal(t, name, cl[0].name, ext)
	}
}

func TestListClaimantsBypassDiscovery(t *testing.T) {
	registerForTest(t, "csv-plugin", okConverter("plugin", ".csv"))
	cl := listClaimants([]Converter{okConverter("first", ".csv"), nil, okConverter("other", ".tsv"), okConverter("second", "CSV")}, ".csv")
	assert.Equal(t, []string{"first (explicit)", "second (explicit)"}, claimantNames(cl), "only the list, in its order")
}

func TestConvertFallthrough(t *testing.T) {
	boom := envelope.New(envelope.Schema, "no text layer", "")
	panics := fakeConverter{name: "panicky", exts: []string{".x"}, fn: func(context.Context, string) (*Conversion, error) {
		panic("index out of range")
	}}
	nilConv := fakeConverter{name: "silent", exts: []string{".x"}, fn: func(context.Context, string) (*Conversion, error) { return nil, nil }}
	badKind := fakeConverter{name: "odd", exts: []string{".x"}, fn: func(context.Context, string) (*Conversion, error) {
		return &Conversion{Kind: "html"}, nil
	}}
	cl := listClaimants([]Converter{failingConverter("ocr", boom, ".x"), panics, nilConv, badKind, okConverter("stub", ".x")}, ".x")

	conv, name, fallbacks, err := convertWith(context.Background(), cl, "/src/a/b.x", "a/b.x")
	require.NoError(t, err)
	assert.Equal(t, "stub", name)
	assert.Equal(t, "stub", conv.Title)
	assert.Equal(t, []string{
		"a/b.x: ocr failed, falling back: E_SCHEMA: no text layer",
		"a/b.x: panicky failed, falling back: converter panicked: index out of range",
		"a/b.x: silent failed, falling back: converter returned no conversion",
		`a/b.x: odd failed, falling back: converter returned unknown kind "html", expected markdown, dataset or payload`,
	}, fallbacks)
}

func TestConvertLastFailureIsTheError(t *testing.T) {
	first := errors.New("first broke")
	last := envelope.New(envelope.Schema, "last broke", "hint")
	cl := listClaimants([]Converter{failingConverter("one", first, ".x"), failingConverter("two", last, ".x")}, ".x")
	conv, name, fallbacks, err := convertWith(context.Background(), cl, "p", "r.x")
	assert.Nil(t, conv)
	assert.Equal(t, "two", name)
	assert.Same(t, last, err, "the last claimant's error is returned as is")
	assert.Equal(t, []string{"r.x: one failed, falling back: first broke"}, fallbacks)

	panics := fakeConverter{name: "only", exts: []string{".x"}, fn: func(context.Context, string) (*Conversion, error) { panic(42) }}
	_, _, fallbacks, err = convertWith(context.Background(), listClaimants([]Converter{panics}, ".x"), "p", "r.x")
	assert.EqualError(t, err, "converter panicked: 42")
	assert.Empty(t, fallbacks)
}

func TestConvertUnsupported(t *testing.T) {
	conv, name, fallbacks, err := convertWith(context.Background(), claimants(nil, nil, ".xls", Limits{}), "/src/old.xls", "old.xls")
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "old.xls")
	assert.Nil(t, conv)
	assert.Empty(t, name)
	assert.Empty(t, fallbacks)
}

func TestConvertCancellationIsNotAFallback(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancelling := fakeConverter{name: "slow", exts: []string{".x"}, fn: func(context.Context, string) (*Conversion, error) {
		cancel()
		return nil, errors.New("interrupted")
	}}
	called := false
	next := fakeConverter{name: "next", exts: []string{".x"}, fn: func(context.Context, string) (*Conversion, error) {
		called = true
		return &Conversion{Kind: KindMarkdown}, nil
	}}
	_, _, fallbacks, err := convertWith(ctx, listClaimants([]Converter{cancelling, next}, ".x"), "p", "r.x")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, fallbacks)
	assert.False(t, called, "no claimant runs after cancellation")
}

func TestConvertDescriberFallsBackToStub(t *testing.T) {
	p := writeSource(t, t.TempDir(), "photo.jpg", []byte("\xff\xd8\xff"))
	describer := failingConverter("describer", errors.New("image larger than 6 MiB"), ".jpg")
	conv, name, fallbacks, err := convertWith(context.Background(), claimants(nil, []Converter{describer}, ".jpg", Limits{}), p, "photo.jpg")
	require.NoError(t, err)
	assert.Equal(t, "media stub", name)
	assert.Contains(t, conv.Markdown, MediaStubSentinel)
	assert.Equal(t, []string{"photo.jpg: describer failed, falling back: image larger than 6 MiB"}, fallbacks)
}

func TestConvertBuiltinFailureFallsToNothing(t *testing.T) {
	p := writeSource(t, t.TempDir(), "broken.csv", []byte("only a header\n"))
	_, name, fallbacks, err := convertWith(context.Background(), claimants(nil, nil, ".csv", Limits{}), p, "broken.csv")
	requireSchema(t, err, "csv has no data rows")
	assert.Equal(t, "csv", name)
	assert.Empty(t, fallbacks)
}

func TestSupportedFormats(t *testing.T) {
	registerForTest(t, "legacy", okConverter("xls", ".xls", ".jpg", ".csv"))
	hooks := map[string]string{".PDF": "pdf2md {input}", "png": "png2md {input}"}
	extras := []Converter{
		okConverter("vision", ".png", ".jpg", ".heic"),
		ExtensionConverter("ocr", okConverter("ocr", ".tiff", ".png", ".jpg")),
	}
	got := SupportedFormats(hooks, extras)
	for ext, origin := range map[string]string{
		".pdf": "hook", ".png": "hook",
		".tiff": "ext:ocr", ".jpg": "ext:ocr",
		".heic": "describer",
		".xls":  "plugin:legacy",
		".csv":  "plugin:legacy",
		".md":   "builtin", ".txt": "builtin", ".json": "builtin", ".xlsx": "builtin", ".docx": "builtin",
		".db": "builtin", ".sqlite3": "builtin", ".mp3": "builtin", ".webp": "builtin",
	} {
		assert.Equal(t, origin, got[ext], ext)
	}

	plain := SupportedFormats(nil, nil)
	assert.Equal(t, "builtin", plain[".png"])
	assert.Equal(t, "plugin:legacy", plain[".xls"])
	assert.Len(t, plain, 21, "markdown 3, csv, json, xlsx, sqlite 3, docx, media 10, plus the registered .xls")
}

func TestSupportedFormatsSkipsBrokenConverters(t *testing.T) {
	got := SupportedFormats(nil, []Converter{panicExtensions{}, ExtensionConverter("nil", nil)})
	assert.Equal(t, "builtin", got[".png"], "a converter whose Extensions panics claims nothing")
}

type panicExtensions struct{}

func (panicExtensions) Extensions() []string { panic("not constructed") }
func (panicExtensions) Convert(context.Context, string) (*Conversion, error) {
	return nil, errors.New("unreachable")
}

func TestRegisterConverterPanics(t *testing.T) {
	registerForTest(t, "dup", okConverter("dup", ".dup"))
	assert.PanicsWithValue(t, "gardener: RegisterConverter called twice for dup", func() {
		RegisterConverter("dup", okConverter("again", ".dup"))
	})
	assert.Panics(t, func() { RegisterConverter("", okConverter("x", ".x")) })
	assert.Panics(t, func() { RegisterConverter("nil", nil) })
}

func TestRegisterConverterConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		name := fmt.Sprintf("concurrent-%d", i)
		t.Cleanup(func() {
			registry.Lock()
			delete(registry.byName, name)
			registry.Unlock()
		})
		wg.Add(2)
		go func() {
			defer wg.Done()
			RegisterConverter(name, okConverter(name, fmt.Sprintf(".c%d", i)))
		}()
		go func() {
			defer wg.Done()
			_ = SupportedFormats(nil, nil)
			_ = claimants(nil, nil, ".c0", Limits{})
		}()
	}
	wg.Wait()
	got := SupportedFormats(nil, nil)
	for i := range 8 {
		assert.Equal(t, fmt.Sprintf("plugin:concurrent-%d", i), got[fmt.Sprintf(".c%d", i)])
	}
}

func TestConverterName(t *testing.T) {
	assert.Equal(t, "panicExtensions", converterName(panicExtensions{}))
	assert.Equal(t, "panicExtensions", converterName(&panicExtensions{}))
	assert.Equal(t, "named", converterName(okConverter("named")))
}
