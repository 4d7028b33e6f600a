// SPDX-License-Identifier: Apache-2.0

package clipper_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/clipper"
)

func manifest(t *testing.T) map[string]any {
	t.Helper()
	data, err := fs.ReadFile(clipper.Extension(), "manifest.json")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestManifest pins what the extension may ask of the browser (10 §11):
// exactly these permissions, host access only as optional origins asked
// at pairing, no content scripts, and the three suggested shortcuts.
func TestManifest(t *testing.T) {
	m := manifest(t)
	for _, tc := range []struct {
		field string
		want  []string
	}{
		{"permissions", []string{"activeTab", "scripting", "contextMenus", "storage", "notifications", "offscreen"}},
		{"optional_host_permissions", []string{"https://*/*", "http://*/*"}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			require.ElementsMatch(t, tc.want, strs(m[tc.field]))
			require.Len(t, strs(m[tc.field]), len(tc.want), "no duplicates")
		})
	}
	for _, absent := range []string{"host_permissions", "content_scripts", "optional_permissions", "web_accessible_resources"} {
		t.Run("no "+absent, func(t *testing.T) { require.NotContains(t, m, absent) })
	}
	require.EqualValues(t, 3, m["manifest_version"])
	cmds := m["commands"].(map[string]any)
	for _, tc := range []struct{ cmd, key string }{
		{"_execute_action", "Alt+Shift+M"}, {"clip-page", "Alt+Shift+P"}, {"clip-region", "Alt+Shift+R"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			require.Equal(t, tc.key, cmds[tc.cmd].(map[string]any)["suggested_key"].(map[string]any)["default"])
		})
	}
}

// TestCatalogues checks the manifest strings in the platform locales
// and the UI strings in en/pt/es: every key everywhere, none empty,
// placeholders kept.
func TestCatalogues(t *testing.T) {
	ext := clipper.Extension()
	load := func(p string) map[string]any {
		data, err := fs.ReadFile(ext, p)
		require.NoError(t, err, p)
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m), p)
		return m
	}
	for _, tc := range []struct {
		name  string
		files []string
		text  func(any) string
	}{
		{"manifest locales", []string{"_locales/en/messages.json", "_locales/pt_BR/messages.json", "_locales/es/messages.json"},
			func(v any) string { return v.(map[string]any)["message"].(string) }},
		{"ui strings", []string{"i18n/en.json", "i18n/pt.json", "i18n/es.json"}, func(v any) string { return v.(string) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := load(tc.files[0])
			for _, f := range tc.files {
				cat := load(f)
				require.Len(t, cat, len(base), f)
				for k, v := range base {
					require.Contains(t, cat, k, f)
					got := tc.text(cat[k])
					require.NotEmpty(t, strings.TrimSpace(got), f+" "+k)
					for _, ph := range placeholders(tc.text(v)) {
						require.Contains(t, got, ph, f+" "+k)
					}
				}
			}
		})
	}
	// Every __MSG_x__ of the manifest is in the platform catalogue.
	data, _ := fs.ReadFile(ext, "manifest.json")
	en := load("_locales/en/messages.json")
	for _, part := range strings.Split(string(data), "__MSG_")[1:] {
		require.Contains(t, en, strings.SplitN(part, "__", 2)[0])
	}
}

func placeholders(s string) []string {
	var out []string
	for _, part := range strings.Split(s, "{")[1:] {
		if name, _, ok := strings.Cut(part, "}"); ok {
			out = append(out, "{"+name+"}")
		}
	}
	return out
}

// TestZipDeterministic: two builds are the same bytes, entries sorted,
// stamped 2026-01-01, mode 0644, deflated, manifest included.
func TestZipDeterministic(t *testing.T) {
	a, err := clipper.Zip(clipper.Extension())
	require.NoError(t, err)
	b, err := clipper.Zip(clipper.Extension())
	require.NoError(t, err)
	require.Equal(t, a, b)
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	require.NoError(t, err)
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		require.Equal(t, zip.Deflate, f.Method, f.Name)
		require.Equal(t, fs.FileMode(0o644), f.Mode().Perm(), f.Name)
		require.True(t, f.Modified.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), f.Name)
	}
	require.True(t, slices.IsSorted(names))
	for _, want := range []string{"manifest.json", "sw.js", "popup.html", "vendor/Readability.js", "i18n/pt.json"} {
		require.Contains(t, names, want)
	}
}

// TestHandler serves the archive with its headers, answers a matching
// If-None-Match with 304, and says when a directory holds no Clipper.
func TestHandler(t *testing.T) {
	h, err := clipper.New("")
	require.NoError(t, err)
	empty, err := clipper.New(t.TempDir())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"manifest_version":3}`), 0o600))
	custom, err := clipper.New(dir)
	require.NoError(t, err)
	get := func(h http.Handler, method string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/clipper.zip", nil)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	ok := get(h, "GET", nil)
	etag := ok.Header().Get("ETag")
	for _, tc := range []struct {
		name   string
		h      http.Handler
		method string
		hdr    map[string]string
		status int
		body   string
	}{
		{"archive", h, "GET", nil, 200, "PK"},
		{"head", h, "HEAD", nil, 200, ""},
		{"revalidated", h, "GET", map[string]string{"If-None-Match": etag}, 304, ""},
		{"post", h, "POST", nil, 405, ""},
		{"no manifest", empty, "GET", nil, 404, `{"error":{"code":"E_NOT_FOUND"`},
		{"override", custom, "GET", nil, 200, "PK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := get(tc.h, tc.method, tc.hdr)
			require.Equal(t, tc.status, w.Code)
			require.True(t, strings.HasPrefix(w.Body.String(), tc.body), w.Body.String())
		})
	}
	require.Regexp(t, `^"[0-9a-f]{16}"$`, etag)
	require.Equal(t, "no-cache", ok.Header().Get("Cache-Control"))
	require.Equal(t, `attachment; filename="monkeyllm-clipper.zip"`, ok.Header().Get("Content-Disposition"))
	require.NotEqual(t, etag, get(custom, "GET", nil).Header().Get("ETag"))
}
