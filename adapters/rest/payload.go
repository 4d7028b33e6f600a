package rest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/envelope"
)

// payloadFile is a gated, resolved, opened payload.
type payloadFile struct {
	f       *os.File
	name    string // resolved file name, for the media type
	etag    string
	modTime time.Time
}

// payload serves GET /v1/forests/{forest}/payload/{node...} (J.14): the
// raw bytes of a node's local payload. Out of scope, absent, moved out of
// scope, without a payload, or with its file missing: one byte-identical
// not-found, so the route is no oracle. The file is resolved on a reader
// and streamed after the reader is released.
func (s *Server) payload(w http.ResponseWriter, r *http.Request) {
	const op = "payload"
	ctx := r.Context()
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	var pf payloadFile
	err = s.scoped(ctx, who, id, pol, func(v *vine.Vine, sc *vine.Scoped) error {
		if !sc.Can(vine.CapRead) {
			return needs(op, sc, vine.CapRead)
		}
		pf, err = openPayload(ctx, v, sc, r.PathValue("node"))
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	defer pf.f.Close()
	h := w.Header()
	h.Set("Content-Type", vine.MediaTypeOf(pf.name))
	h.Set("Cache-Control", "private")
	h.Set("X-Content-Type-Options", "nosniff")
	// Bytes a forest holds may be HTML or SVG: never let them run as a
	// page of this origin.
	h.Set("Content-Security-Policy", "sandbox")
	if pf.etag != "" {
		h.Set("ETag", pf.etag)
	}
	http.ServeContent(w, r, "", pf.modTime, pf.f)
}

// openPayload gates the node through sc, then resolves its payload
// relative to the node's folder with symlinks followed, inside the
// forest, and opens it.
func openPayload(ctx context.Context, v *vine.Vine, sc *vine.Scoped, node string) (payloadFile, error) {
	rec, err := v.Record(sc.Context(ctx), node)
	if err != nil {
		return payloadFile{}, err
	}
	absent := func() (payloadFile, error) { return payloadFile{}, absentNode(ctx, v, node) }
	p := rec.Payload
	switch {
	case p == "":
		return absent()
	case strings.Contains(p, "://"):
		scheme, _, _ := strings.Cut(p, "://")
		return payloadFile{}, envelope.New(envelope.Schema,
			fmt.Sprintf("remote payload scheme '%s' is not served", scheme),
			"this route serves local bytes only; vine prefetch brings a remote payload into the forest's cache")
	}
	rel := path.Join(path.Dir(rec.ID), p)
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) || rel == ".." || strings.HasPrefix(rel, "../") {
		return payloadFile{}, escapes()
	}
	root, err := forest.NewRoot(v.Dir())
	if err != nil {
		return payloadFile{}, err
	}
	file, err := root.File(rel)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") { // through a symlink
			return payloadFile{}, escapes()
		}
		return absent()
	}
	if !servable(v.Dir(), file, sc) {
		return absent()
	}
	f, err := os.Open(file)
	if err != nil {
		return absent()
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return absent()
	}
	pf := payloadFile{f: f, name: file, modTime: fi.ModTime()}
	if h := rec.PayloadHash; h != "" && !strings.ContainsAny(h, "\"\r\n") {
		pf.etag = `"` + h + `"`
	}
	return pf, nil
}

func escapes() error {
	return envelope.New(envelope.Schema, "payload escapes the forest",
		"a payload is a path relative to its node's folder that stays inside the forest")
}

// servable reports whether a resolved file inside the forest may be
// served as a payload: never the forest's machinery (.git, the derived
// layer, the lock card) and never a node file the caller cannot see,
// whatever a passport names.
func servable(dir, file string, sc *vine.Scoped) bool {
	rel, err := filepath.Rel(dir, file)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	first, _, _ := strings.Cut(rel, "/")
	switch first {
	case ".git", forest.DerivedDir, forest.LockFile:
		return false
	}
	if id, isNode := strings.CutSuffix(rel, forest.NodeExt); isNode && !sc.InScope(id) {
		return false
	}
	return true
}

// absentNode is the engine's own refusal of an absent node under this
// raw id: asked through a policy that sees nothing, the engine answers
// every id exactly as it answers one that does not exist.
func absentNode(ctx context.Context, v *vine.Vine, raw string) error {
	blind, err := v.Scoped(vine.Policy{})
	if err != nil {
		return err
	}
	_, err = v.Record(blind.Context(ctx), raw)
	return err
}

// needs refuses a route the caller's policy lacks the capability for,
// in the engine's words for a primitive.
func needs(op string, sc *vine.Scoped, c vine.Capability) error {
	return needsCaps(op, sc.Caps(), c)
}

func needsCaps(op string, have []vine.Capability, c vine.Capability) error {
	hint := "this key holds no capability"
	if len(have) > 0 {
		names := make([]string, len(have))
		for i, h := range have {
			names[i] = string(h)
		}
		hint = "this key holds: " + strings.Join(names, ", ")
	}
	return envelope.New(envelope.Forbidden, fmt.Sprintf("%s needs the %s capability", op, c), hint)
}
