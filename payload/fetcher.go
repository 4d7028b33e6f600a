// SPDX-License-Identifier: Apache-2.0

package payload

import (
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/fetch"
)

// Fetcher copies the bytes a payload URI names into w. It is an alias of
// [fetch.Fetcher], the stdlib-only contract a host implements to serve its
// own scheme; the name is kept for callers that spell it here.
type Fetcher = fetch.Fetcher

// remoteURI is G.9's test for a payload that carries a scheme; anything
// else is a path relative to the node's folder.
var remoteURI = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`)

// IsRemote reports whether a payload value is a URI (G.9) rather than a
// local path.
func IsRemote(payload string) bool { return remoteURI.MatchString(payload) }

// Scheme returns the scheme of a remote payload URI ("s3" for
// s3://bucket/key), or "" when the value is a local path.
func Scheme(uri string) string {
	m := remoteURI.FindString(uri)
	return strings.TrimSuffix(m, "://")
}

// Registry maps a URI scheme ("file", "s3") to the Fetcher that serves it.
// It is itself a Fetcher. Like an http.Header, it is safe for concurrent
// reads but not for changes made while it is in use.
type Registry map[string]Fetcher

// DefaultRegistry serves file:// with an unconfined [FileFetcher] and
// s3:// with the zero [S3Fetcher] (AWS S3). It reads no environment: a
// host that points s3:// elsewhere replaces the entry with
// [NewS3Fetcher] of its own [S3Config], as adapters/cli/vine does from
// MONKEYLLM_S3_ENDPOINT and AWS_REGION.
func DefaultRegistry() Registry {
	return Registry{"file": FileFetcher{}, "s3": &S3Fetcher{}}
}

// Fetch hands uri to the fetcher of its scheme. A scheme nobody serves
// answers a *SchemeError.
func (r Registry) Fetch(ctx context.Context, uri string, w io.Writer) error {
	scheme := Scheme(uri)
	f, ok := r[scheme]
	if !ok || f == nil {
		return &SchemeError{URI: uri, Scheme: scheme, Served: slices.Sorted(maps.Keys(r))}
	}
	return f.Fetch(ctx, uri, w)
}

// Confiner is implemented by a Fetcher that can tell whether it keeps
// the URIs of a scheme inside roots its host chose. It is an alias of
// [fetch.Confiner].
type Confiner = fetch.Confiner

// Confines reports whether the fetcher of scheme confines it.
func (r Registry) Confines(scheme string) bool {
	c, ok := r[scheme].(Confiner)
	return ok && c.Confines(scheme)
}

// Confined reports whether f confines the URIs of scheme: f implements
// Confiner and says so.
func Confined(f Fetcher, scheme string) bool {
	c, ok := f.(Confiner)
	return ok && c.Confines(scheme)
}

// SchemeError is a payload URI that no fetcher serves: an unknown scheme,
// a scheme whose client is not configured, or no scheme at all.
type SchemeError struct {
	URI    string
	Scheme string   // "" when the value carries none
	Served []string // the schemes that are served, sorted
}

// Error says which scheme is not served and which are.
func (e *SchemeError) Error() string {
	if e.Scheme == "" {
		return fmt.Sprintf("payload: %q is not a payload URI (scheme://...)", e.URI)
	}
	return fmt.Sprintf("payload: no fetcher for scheme %q (served: %s)", e.Scheme, strings.Join(e.Served, ", "))
}

// HashError is a fetched payload whose sha256 is not the passport's
// payload_hash. The bytes are discarded.
type HashError struct {
	URI  string
	Want string // payload_hash, sha256 hex
	Got  string // sha256 hex of the bytes fetched
}

// Error names the URI and both hashes.
func (e *HashError) Error() string {
	return fmt.Sprintf("payload: %s has sha256 %s, but payload_hash is %s", e.URI, e.Got, e.Want)
}

// ctxWriter stops a copy when its context ends: fetchers that stream from
// a local file or a body that ignores the context still stop within one
// buffer.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
