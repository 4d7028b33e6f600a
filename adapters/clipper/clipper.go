// SPDX-License-Identifier: Apache-2.0

// Package clipper serves the Clipper, the MonkeyLLM browser extension
// (spec 10 §11), as the Station's GET /clipper.zip (09 §13).
//
// The extension is build-free: the files under extension/ are what a
// browser loads unpacked, embedded here with go:embed. The archive is
// built once, deterministically (sorted entries, a fixed 2026-01-01
// timestamp, mode 0644, deflate), so every Station of one build serves
// the same bytes and the same ETag. It holds no secret and no origin:
// pairing happens in the extension, against whichever Station the person
// names.
//
// A Handler is immutable after New and safe for concurrent use.
package clipper

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
)

//go:embed all:extension
var embedded embed.FS

// stamp is every entry's modification time, so a rebuild of the same
// files yields the same bytes.
var stamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Extension is the embedded extension directory, rooted at the folder
// that holds manifest.json.
func Extension() fs.FS {
	sub, err := fs.Sub(embedded, "extension")
	if err != nil {
		panic("clipper: the embedded extension is unreadable: " + err.Error())
	}
	return sub
}

// Zip builds the deterministic archive of an extension directory. A
// directory without manifest.json is no Clipper build: fs.ErrNotExist.
func Zip(fsys fs.FS) ([]byte, error) {
	if _, err := fs.Stat(fsys, "manifest.json"); err != nil {
		return nil, err
	}
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: stamp}
		h.SetMode(0o644)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Handler answers GET and HEAD /clipper.zip with one archive built at
// New. A deployment that ships no Clipper answers 404 E_NOT_FOUND.
type Handler struct {
	zip  []byte
	etag string
	err  error // why there is no archive, when there is none
}

// New builds the archive of dir, or of the embedded extension when dir
// is "" (MONKEYLLM_STATION_CLIPPER_DIR, read by the command, overrides
// it). A directory without a manifest is not an error here: the handler
// then says the deployment ships no Clipper; any other failure to read
// it is returned.
func New(dir string) (*Handler, error) {
	fsys := Extension()
	if dir != "" {
		fsys = os.DirFS(dir)
	}
	data, err := Zip(fsys)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Handler{err: err}, nil
	case err != nil:
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &Handler{zip: data, etag: `"` + hex.EncodeToString(sum[:])[:16] + `"`}, nil
}

// ServeHTTP serves the archive as an attachment, revalidated on every
// use (no-cache) through its ETag.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if h.zip == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write((&vine.Error{Code: vine.ENotFound, Message: "this deployment ships no Clipper build",
			Hint: "MONKEYLLM_STATION_CLIPPER_DIR names a folder without manifest.json"}).Body())
		return
	}
	hd := w.Header()
	hd.Set("ETag", h.etag)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Content-Type", "application/zip")
	hd.Set("Content-Disposition", `attachment; filename="monkeyllm-clipper.zip"`)
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, h.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(h.zip))
}
