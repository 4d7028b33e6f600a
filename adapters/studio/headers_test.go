// SPDX-License-Identifier: Apache-2.0

package studio

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInlineScriptHashes(t *testing.T) {
	boot := "window.__boot = {theme: 'dark'};"
	page := `<!doctype html><html><head>
<script src="/assets/app-1234.js"></script>
<script>` + boot + `</script>
<script type="module">import "/x.js"</script>
<style>body{}</style></head><body><p>script</p></body></html>`
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
	}
	assert.Equal(t, []string{sum(boot), sum(`import "/x.js"`)}, inlineScriptHashes([]byte(page)))
	assert.Empty(t, inlineScriptHashes([]byte(`<p>no scripts</p>`)))
}

func TestSecurityHeaders(t *testing.T) {
	csp := contentSecurityPolicy([]string{"sha256-abc"})
	assert.Contains(t, csp, "script-src 'self' 'sha256-abc';")
	assert.NotContains(t, csp, "unsafe-eval")
	h := securityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/own" {
			w.Header().Set("Content-Security-Policy", "sandbox")
		}
		w.WriteHeader(http.StatusNoContent)
	}), csp)
	for path, want := range map[string]string{"/any": csp, "/own": "sandbox"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		assert.Equal(t, want, w.Header().Get("Content-Security-Policy"), path)
		assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
		assert.Equal(t, "no-referrer", w.Header().Get("Referrer-Policy"))
		assert.Equal(t, "DENY", w.Header().Get("X-Frame-Options"))
	}
}

// TestGuardAdmitsTheShellsScript: the policy Guard sets is derived from
// the embedded page, so the shell's one inline script runs and no other.
func TestGuardAdmitsTheShellsScript(t *testing.T) {
	hashes := inlineScriptHashes(Shell())
	require.Len(t, hashes, 1)
	assert.Contains(t, ContentSecurityPolicy(), "script-src 'self' '"+hashes[0]+"';")
	w := httptest.NewRecorder()
	Guard(New()).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	assert.Equal(t, ContentSecurityPolicy(), w.Header().Get("Content-Security-Policy"))
}
