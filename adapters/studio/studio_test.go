// SPDX-License-Identifier: Apache-2.0

package studio

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	pathpkg "path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

func get(t *testing.T, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	New().ServeHTTP(w, r)
	return w
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// TestShellFallback is F.34's host half (09 §13): an address is the
// shell for a browser, a missing asset stays missing, /v1 never falls
// through.
func TestShellFallback(t *testing.T) {
	for _, p := range []string{"/", "/f/x/explore", "/f/mare-alta/read?node=concepts/tide"} {
		w := get(t, p, map[string]string{"Accept": browserAccept})
		assert.Equal(t, http.StatusOK, w.Code, p)
		assert.Equal(t, "no-cache", w.Header().Get("Cache-Control"), p)
		assert.Contains(t, w.Body.String(), `<div id="app"`, p)
	}
	for _, p := range []string{"/f/x/explore", "/assets/missing.js", Prefix() + "missing.js", "/v1/nope", "/v1"} {
		accept := "*/*"
		if strings.HasPrefix(p, "/v1") || strings.HasPrefix(p, "/assets/") {
			accept = browserAccept
		}
		w := get(t, p, map[string]string{"Accept": accept})
		assert.Equal(t, http.StatusNotFound, w.Code, p)
		assert.NotContains(t, w.Body.String(), `<div id="app"`, p)
	}
	post := httptest.NewRecorder()
	New().ServeHTTP(post, httptest.NewRequest("POST", "/", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, post.Code)
}

// TestAssetsCachedForever: a digested asset is immutable; the shell
// names the current digest; gzip is offered and round-trips.
func TestAssetsCachedForever(t *testing.T) {
	shell := string(Shell())
	assert.Contains(t, shell, Prefix()+"app.js")
	assert.NotContains(t, shell, assetsPlaceholder)
	w := get(t, Prefix()+"app.js", nil)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "public, max-age=31536000, immutable", w.Header().Get("Cache-Control"))
	assert.Contains(t, w.Header().Get("Content-Type"), "javascript")
	plain := w.Body.String()

	z := get(t, Prefix()+"app.js", map[string]string{"Accept-Encoding": "gzip"})
	require.Equal(t, "gzip", z.Header().Get("Content-Encoding"))
	assert.NotEqual(t, w.Header().Get("ETag"), z.Header().Get("ETag"), "another representation, another tag")
	zr, err := gzip.NewReader(z.Body)
	require.NoError(t, err)
	unzipped, _ := io.ReadAll(zr)
	assert.Equal(t, plain, string(unzipped))

	again := get(t, Prefix()+"app.js", map[string]string{"If-None-Match": w.Header().Get("ETag")})
	assert.Equal(t, http.StatusNotModified, again.Code)
}

// TestPageWeight keeps the console light: everything the first page
// can load, gzipped, stays under a budget (the figure is in the log).
func TestPageWeight(t *testing.T) {
	size := func(path string) int {
		a, ok := built.assets[path]
		require.True(t, ok, "asset %s", path)
		if a.gz != nil {
			return len(a.gz)
		}
		return len(a.body)
	}
	// What a first visit loads: the shell, app.js with every module it
	// imports statically, the stylesheet and the shell's words in one
	// language. Consoles are imported when opened, with their own words.
	first := len(built.shell.body) + size("studio.css") + size("locales/shell/en.json")
	seen := map[string]bool{}
	for _, m := range staticClosure(t, "app.js", seen) {
		first += size(m)
	}
	total := len(built.shell.body)
	for p := range built.assets {
		total += size(p)
	}
	t.Logf("studio: first visit %d bytes gzipped (%d modules); every file, every language %d bytes gzipped (%d files)",
		first, len(seen), total, len(built.assets)+1)
	assert.Less(t, first, 120<<10, "a first visit loads under 120 KiB gzipped")
	for p := range built.assets {
		if console, ok := strings.CutPrefix(p, "consoles/"); ok && !strings.Contains(console, "/") {
			opened := 0
			for _, m := range staticClosure(t, p, map[string]bool{}) {
				if !seen[m] {
					opened += size(m)
				}
			}
			assert.Less(t, opened, 40<<10, "opening %s loads under 40 KiB gzipped beyond the first visit", p)
		}
	}
	assert.Less(t, total, 400<<10, "the whole console, every language, under 400 KiB gzipped")
}

// importRE finds a module's static imports of sibling modules.
var importRE = regexp.MustCompile(`(?m)^\s*import\s[^;]*?from\s+'(\.{1,2}/[^']+)'|^\s*import\s+'(\.{1,2}/[^']+)'`)

// staticClosure lists path and every module it imports statically,
// relative to the assets root, marking them in seen.
func staticClosure(t *testing.T, path string, seen map[string]bool) []string {
	t.Helper()
	if seen[path] {
		return nil
	}
	seen[path] = true
	a, ok := built.assets[path]
	require.True(t, ok, "module %s", path)
	out := []string{path}
	for _, m := range importRE.FindAllStringSubmatch(string(a.body), -1) {
		rel := m[1] + m[2]
		out = append(out, staticClosure(t, pathpkg.Join(pathpkg.Dir(path), rel), seen)...)
	}
	return out
}

// TestCatalogues is F.20: every key in every language, none empty, no
// extras, placeholders identical, the namespace = the key's first
// segment, three files per namespace, and every key the code names is
// defined.
func TestCatalogues(t *testing.T) {
	langs := []string{"en", "pt", "es"}
	dirs, err := fs.ReadDir(files, "web/assets/locales")
	require.NoError(t, err)
	all := map[string]bool{}
	for _, d := range dirs {
		ns := d.Name()
		entries, _ := fs.ReadDir(files, "web/assets/locales/"+ns)
		assert.Len(t, entries, 3, "namespace %s has exactly three files", ns)
		cats := map[string]map[string]string{}
		for _, l := range langs {
			data, err := fs.ReadFile(files, "web/assets/locales/"+ns+"/"+l+".json")
			require.NoError(t, err, "%s/%s", ns, l)
			var cat map[string]string
			require.NoError(t, json.Unmarshal(data, &cat))
			cats[l] = cat
		}
		for k, v := range cats["en"] {
			all[k] = true
			assert.True(t, strings.HasPrefix(k, ns+"."), "%s lives in its namespace folder %s", k, ns)
			for _, l := range langs[1:] {
				tr, ok := cats[l][k]
				assert.True(t, ok && strings.TrimSpace(tr) != "", "%s missing or empty in %s", k, l)
				assert.Equal(t, placeholders(v), placeholders(tr), "%s placeholders in %s", k, l)
			}
			assert.NotEmpty(t, strings.TrimSpace(v), k)
		}
		for _, l := range langs[1:] {
			for k := range cats[l] {
				_, ok := cats["en"][k]
				assert.True(t, ok, "%s in %s is not in en", k, l)
			}
		}
	}
	for _, k := range usedKeys(t) {
		assert.True(t, all[k], "the code uses %s, which no catalogue defines", k)
	}
}

var placeholder = regexp.MustCompile(`\{(\w+)\}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// usedKeys reads the literal t('…') keys and expands the templated
// ones against their allow-lists.
func usedKeys(t *testing.T) []string {
	var keys []string
	lit := regexp.MustCompile(`\bt\('([a-zA-Z.]+)'`)
	for _, src := range sources(t) {
		for _, m := range lit.FindAllStringSubmatch(src, -1) {
			keys = append(keys, m[1])
		}
	}
	app := sources(t)["web/assets/app.js"]
	for _, m := range regexp.MustCompile(`\{ key: '(\w+)', group: '(\w+)'`).FindAllStringSubmatch(app, -1) {
		keys = append(keys, "shell.console."+m[1], "shell.console."+m[1]+".blurb", "shell.group."+m[2])
	}
	for _, l := range []string{"en", "pt", "es"} {
		keys = append(keys, "shell.lang."+l)
	}
	for _, c := range []string{"read", "answer", "query", "write", "tend", "ingest", "admin"} {
		keys = append(keys, "overview.cap."+c)
	}
	for _, k := range []string{"needs_split", "fat_nodes", "stale_passports", "needs_description"} {
		keys = append(keys, "overview.health."+k)
	}
	keys = append(keys, "shell.theme.light", "shell.theme.dark", "shell.setup.first.demo", "shell.setup.first.skip",
		"explore.mode.graph", "explore.mode.files")
	return keys
}

func sources(t *testing.T) map[string]string {
	out := map[string]string{}
	err := fs.WalkDir(files, "web/assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".js") {
			data, _ := fs.ReadFile(files, p)
			out[p] = string(data)
		}
		return err
	})
	require.NoError(t, err)
	return out
}

// TestSourceRules are 10 §10's source-reading checks: only the router
// touches history; no forest text becomes markup (no innerHTML,
// outerHTML, insertAdjacentHTML, document.write or eval); the only
// inline script is the theme one the CSP hashes; no dark-only colours.
func TestSourceRules(t *testing.T) {
	banned := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(`)
	history := regexp.MustCompile(`(^|[^'.\w])history\.(pushState|replaceState|back|forward|go)\(`)
	for name, src := range sources(t) {
		assert.False(t, banned.MatchString(src), "%s builds markup from strings", name)
		if !strings.HasSuffix(name, "/router.js") {
			assert.False(t, history.MatchString(src), "%s touches history; only the router may", name)
		}
	}
	shell := string(Shell())
	assert.Equal(t, 1, strings.Count(shell, "<script>"), "one inline script: the theme, before first paint")
	assert.NotRegexp(t, `\son[a-z]+=`, shell, "no inline event handlers (the CSP would refuse them)")
	css, err := fs.ReadFile(files, "web/assets/studio.css")
	require.NoError(t, err)
	assert.NotRegexp(t, `\.dark[-_ .{]`, string(css), "colours are tokens, not dark-only classes")
}

// TestPrimitiveNames: every literal call(forest, 'name', …) names a
// primitive in the engine's signature table (answer is added by the
// host when it binds a model).
func TestPrimitiveNames(t *testing.T) {
	re := regexp.MustCompile(`\bcall\(ctx\.forest, '([a-z_]+)'`)
	seen := 0
	for name, src := range sources(t) {
		for _, m := range re.FindAllStringSubmatch(src, -1) {
			seen++
			if m[1] == "answer" {
				continue
			}
			_, ok := vine.LookupSignature(m[1])
			assert.True(t, ok, "%s calls %q, which the signature table does not serve", name, m[1])
		}
	}
	assert.Positive(t, seen)
}

// TestGraphReadsTheProjection: graph.js reads an edge's ends by the
// names the graph projection sends (vine.MapEdge's JSON), so a rename on
// either side cannot leave the map drawing nodes and no edges again.
func TestGraphReadsTheProjection(t *testing.T) {
	ends := map[string]string{}
	typ := reflect.TypeFor[vine.MapEdge]()
	for _, f := range []string{"Src", "Dst"} {
		field, ok := typ.FieldByName(f)
		require.True(t, ok)
		ends[f] = strings.Split(field.Tag.Get("json"), ",")[0]
	}
	src, err := fs.ReadFile(files, "web/assets/graph.js")
	require.NoError(t, err)
	for _, name := range ends {
		assert.Contains(t, string(src), "e."+name, "graph.js reads the edge's %q", name)
	}
	assert.NotRegexp(t, `e\.(source|target)\b`, string(src), "the projection's edges have no source or target")
}
