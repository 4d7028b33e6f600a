// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// run is one batch in progress: what construction resolved, and the
// report the steps grow.
type run struct {
	c    core
	sink sink
	dry  bool
	op   string // adopt, sync or upload

	cfg       *Config
	forest    forest.Root
	src       source
	destIndex string // the branch new files go under
	destDir   string // its folder, "" for the root

	consume bool              // remove each staged file once it landed (uploads)
	urls    map[string]string // provenance: staged name → source URL

	passports map[string]*UploadPassport // staged name → the sender's passport (J.8.4)

	index   map[string]passport // source_path → passport
	planned map[string]bool     // ids this run created (a preview: would create)
	report  *IngestReport
}

// task is one step: a source file, or a passport whose source is gone.
type task struct {
	rel     string
	staleID string
	scentID string // a scent recurate's node (J.13.6.1), no source file
}

// do takes one step. A per-file problem lands in the report; only the
// context's end is returned, and then nothing of the document was written.
func (r *run) do(ctx context.Context, t task) error {
	if t.scentID != "" {
		return r.rescent(ctx, t.scentID)
	}
	if t.staleID != "" {
		r.report.Stale = append(r.report.Stale, t.staleID)
		return nil
	}
	f, err := r.stat(t.rel)
	if errors.Is(err, fs.ErrNotExist) {
		if p, ok := r.index[t.rel]; ok {
			r.report.Stale = append(r.report.Stale, p.id)
		} else {
			r.report.Unsupported = append(r.report.Unsupported, t.rel)
		}
		return nil
	}
	if err != nil {
		r.fail(t.rel, err)
		return nil
	}
	if p, ok := r.index[t.rel]; ok {
		if r.passports[t.rel] != nil {
			r.report.PassportsIgnored = append(r.report.PassportsIgnored, t.rel)
		}
		return r.reconcile(ctx, f, p)
	}
	return r.plantNew(ctx, f)
}

// stat reads what the fast path compares: size and modification time.
func (r *run) stat(rel string) (*sourceFile, error) {
	abs := filepath.Join(r.src.root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	ms := int64(math.Round(float64(fi.ModTime().UnixNano()) / 1e6))
	return &sourceFile{rel: rel, abs: abs, ext: strings.ToLower(path.Ext(rel)), size: fi.Size(), mtimeMS: ms}, nil
}

// hashFile computes the source's sha256 once.
func (f *sourceFile) hashFile() error {
	if f.hash != "" {
		return nil
	}
	in, err := os.Open(f.abs)
	if err != nil {
		return err
	}
	defer in.Close()
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return err
	}
	f.hash = hex.EncodeToString(h.Sum(nil))
	return nil
}

// fail records a per-file error line "<rel|id>: <message>".
func (r *run) fail(who string, err error) {
	msg := err.Error()
	var e *envelope.Error
	if errors.As(err, &e) {
		msg = e.Message
	}
	r.report.Errors = append(r.report.Errors, who+": "+msg)
}

// stage tells the observer, swallowing its panics: an observer never
// stops a batch.
func (r *run) stage(file string, s Stage) {
	obs := r.c.opt.OnStage
	if obs == nil {
		return
	}
	defer func() { _ = recover() }()
	obs(file, s)
}

// nodePath is the file of a node id in the forest.
func (r *run) nodePath(id string) string {
	return filepath.Join(r.forest.Dir(), filepath.FromSlash(id)+forest.NodeExt)
}

// taken reports whether an id is a node already, or one this run made.
func (r *run) taken(id string) bool { return r.planned[id] || fileExists(r.nodePath(id)) }

// readNode parses a passport this run found by its source_path.
func (r *run) readNode(id string) (*forest.Node, error) {
	data, err := os.ReadFile(r.nodePath(id))
	if err != nil {
		return nil, err
	}
	return forest.ParseWithin(id, data, r.c.v.ReadLimits())
}

// origin is the provenance a passport of f gets when it has none (G.2.7):
// the file's absolute file:// URI, or for a staged upload the URL its
// sender declared, or nothing (a staging path is plumbing).
func (r *run) origin(f *sourceFile) string {
	var o string
	if r.src.staged {
		o = r.urls[f.rel]
	} else {
		o = (&url.URL{Scheme: "file", Path: filepath.ToSlash(f.abs)}).String()
	}
	if o == "" || forest.ValidateOrigin(o) != nil {
		return ""
	}
	return o
}

// landed finishes a step whose document is in the forest: a staged
// upload is consumed (removed, with folders it leaves empty).
func (r *run) landed(f *sourceFile) {
	if !r.consume {
		return
	}
	if err := r.sink.remove(f.abs); err != nil {
		r.fail(f.rel, fmt.Errorf("landed, but the staged file could not be removed: %w", err))
		return
	}
	r.report.Consumed = append(r.report.Consumed, f.rel)
	for dir := filepath.Dir(f.abs); dir != r.src.root && within(r.src.root, dir); dir = filepath.Dir(dir) {
		if r.sink.remove(dir) != nil {
			break
		}
	}
}
