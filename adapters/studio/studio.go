// SPDX-License-Identifier: Apache-2.0

package studio

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed web
var files embed.FS

// assetsPlaceholder is replaced in index.html by the digested assets
// prefix, so the page and every relative module import share one version.
const assetsPlaceholder = "{{assets}}"

// Console serves the Studio's embedded files. It is immutable and safe
// for concurrent use.
type Console struct {
	shell  asset
	prefix string           // "/assets/<digest>/"
	assets map[string]asset // by path below the prefix
}

// asset is one file ready to send: its bytes, gzipped bytes when that is
// smaller, its type and its entity tag.
type asset struct {
	body  []byte
	gz    []byte
	ctype string
	etag  string
}

// built is the one Console of this binary, assembled at init so the
// shell's script hashes are fixed before any server starts.
var built = mustBuild()

// New returns the Console serving the embedded build.
func New() *Console { return built }

// Shell is the console's page as served, for the host to hash its inline
// scripts into the Content-Security-Policy.
func Shell() []byte { return bytes.Clone(built.shell.body) }

// Prefix is where this build's assets are served, "/assets/<digest>/":
// the digest changes whenever any asset does.
func Prefix() string { return built.prefix }

func mustBuild() *Console {
	c, err := build(files)
	if err != nil {
		panic("studio: the embedded console is unreadable: " + err.Error())
	}
	return c
}

// build reads the assets, digests them together and renders the shell.
func build(fsys fs.FS) (*Console, error) {
	c := &Console{assets: map[string]asset{}}
	sum := sha256.New()
	err := fs.WalkDir(fsys, "web/assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "web/assets/")
		sum.Write([]byte(rel + "\x00"))
		sum.Write(data)
		c.assets[rel] = newAsset(rel, data)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.prefix = "/assets/" + hex.EncodeToString(sum.Sum(nil))[:16] + "/"
	page, err := fs.ReadFile(fsys, "web/index.html")
	if err != nil {
		return nil, err
	}
	page = bytes.ReplaceAll(page, []byte(assetsPlaceholder), []byte(strings.TrimSuffix(c.prefix, "/")))
	c.shell = newAsset("index.html", page)
	return c, nil
}

func newAsset(name string, data []byte) asset {
	a := asset{body: data, ctype: mime.TypeByExtension(path.Ext(name))}
	if a.ctype == "" {
		a.ctype = "application/octet-stream"
	}
	d := sha256.Sum256(data)
	a.etag = `"` + hex.EncodeToString(d[:8]) + `"`
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if b.Len() < len(data) {
		a.gz = b.Bytes()
	}
	return a
}

// ServeHTTP answers GET and HEAD: an asset, the shell, or 404.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	switch {
	case p == "/v1" || strings.HasPrefix(p, "/v1/"):
		// The API's own catch-all answers these; never the page.
		http.NotFound(w, r)
	case strings.HasPrefix(p, c.prefix):
		a, ok := c.assets[strings.TrimPrefix(p, c.prefix)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		a.send(w, r)
	case strings.HasPrefix(p, "/assets/"):
		// Another build's asset, or none: missing stays missing.
		http.NotFound(w, r)
	case p == "/" || acceptsHTML(r):
		w.Header().Set("Cache-Control", "no-cache")
		c.shell.send(w, r)
	default:
		http.NotFound(w, r)
	}
}

// acceptsHTML reports whether the request's Accept names text/html, the
// mark of a page navigation rather than a script or image fetch.
func acceptsHTML(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/html") {
			return true
		}
	}
	return false
}

// send writes the asset, gzipped when the client takes it, honouring
// If-None-Match through http.ServeContent.
func (a asset) send(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("ETag", a.etag)
	h.Add("Vary", "Accept-Encoding")
	body := a.body
	if a.gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		// Another representation, so another strong tag.
		h.Set("Content-Encoding", "gzip")
		h.Set("ETag", strings.TrimSuffix(a.etag, `"`)+`-gz"`)
		body = a.gz
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
