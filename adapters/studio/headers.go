// SPDX-License-Identifier: Apache-2.0

package studio

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"

	"golang.org/x/net/html"
)

// cspBase is the Content-Security-Policy of 09 §13 with the script
// sources left for the inline-script hashes.
const cspBase = "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; " +
	"form-action 'self'; img-src 'self' data: blob:; font-src 'self' data:; " +
	"style-src 'self' 'unsafe-inline'; script-src 'self'%s; connect-src 'self'; worker-src 'self'"

// contentSecurityPolicy renders the policy admitting exactly the given
// inline scripts, by hash: never 'unsafe-inline' or 'unsafe-eval' for
// scripts.
func contentSecurityPolicy(hashes []string) string {
	var b strings.Builder
	for _, h := range hashes {
		b.WriteString(" '" + h + "'")
	}
	return strings.Replace(cspBase, "%s", b.String(), 1)
}

// inlineScriptHashes computes the CSP source of every <script> without
// src in an HTML document ("sha256-<base64>"), in document order, so the
// policy is derived from the embedded page at startup and never written
// by hand.
func inlineScriptHashes(doc []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(doc))
	inScript := false
	var body bytes.Buffer
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "script" {
				inScript = !hasSrc(z, hasAttr)
				body.Reset()
			}
		case html.TextToken:
			if inScript {
				body.Write(z.Raw())
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "script" && inScript {
				sum := sha256.Sum256(body.Bytes())
				out = append(out, "sha256-"+base64.StdEncoding.EncodeToString(sum[:]))
				inScript = false
			}
		}
	}
}

func hasSrc(z *html.Tokenizer, more bool) bool {
	for more {
		var key []byte
		key, _, more = z.TagAttr()
		if string(key) == "src" {
			return true
		}
	}
	return false
}

// Guard sets the security headers of spec 09 §13 on every response of h
// whose handler did not set its own, before it writes: a
// Content-Security-Policy admitting exactly the console's inline
// scripts by hash (computed from the embedded page at startup), nosniff,
// no referrer, no framing. A host serving the console wraps its whole
// mux in it, so the API, the console and any page of its own share one
// policy.
func Guard(h http.Handler) http.Handler { return securityHeaders(h, policy) }

// ContentSecurityPolicy is the policy Guard sets.
func ContentSecurityPolicy() string { return policy }

// policy is derived once from the embedded shell.
var policy = contentSecurityPolicy(inlineScriptHashes(built.shell.body))

// securityHeaders sets the headers of 09 §13 on every response whose
// handler did not set its own, before the handler writes.
func securityHeaders(h http.Handler, csp string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		for k, v := range map[string]string{
			"Content-Security-Policy": csp,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"X-Frame-Options":         "DENY",
		} {
			if hd.Get(k) == "" {
				hd.Set(k, v)
			}
		}
		h.ServeHTTP(w, r)
	})
}
