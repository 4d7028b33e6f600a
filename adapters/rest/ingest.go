// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/gitops"
)

// ingestName is the host action POST …/ingest serves beside the
// primitives (J.8).
const ingestName = "ingest"

// Ingest modes.
const (
	modeUpload = "upload"
	modeAdopt  = "adopt"
	modeSync   = "sync"
)

// ingestSignature is the wire contract of ingest, validated like a
// primitive's (C.12).
var ingestSignature = vine.Signature{
	Name: ingestName,
	Params: []vine.Param{
		{Name: "mode", Type: vine.TString, Default: modeUpload, Enum: []string{modeUpload, modeAdopt, modeSync},
			Doc: "upload sends files; adopt mirrors a host directory; sync refreshes from the recorded source"},
		{Name: "files", Type: vine.TObjectList, Doc: "upload: [{name, text | b64, source_url?}]"},
		{Name: "path", Type: vine.TString, Doc: "adopt: the host directory; sync: a source-relative file or folder"},
		{Name: "dest", Type: vine.TString, Doc: "the branch new documents go under (x, x/ or x/_index); default the root"},
		{Name: "wait", Type: vine.TBoolean, Default: false, Doc: "answer when the batch has finished (200) instead of at once (202)"},
	},
}

// ingestRequest is a validated ingest call.
type ingestRequest struct {
	mode, path, dest string
	hasDest, wait    bool
	files            []gardener.UploadFile
}

func decodeIngest(body []byte) (ingestRequest, error) {
	a, err := vine.DecodeArgs(ingestSignature, body)
	if err != nil {
		return ingestRequest{}, err
	}
	req := ingestRequest{mode: a.String("mode"), path: a.String("path"), dest: a.String("dest"),
		hasDest: a.Has("dest"), wait: a.Bool("wait")}
	switch req.mode {
	case modeUpload:
		if !a.Has("files") {
			return req, envelope.New(envelope.Schema, "ingest: mode upload needs parameter 'files'",
				`send files: [{"name": "notes.md", "text": "..."}], or {"name": "scan.pdf", "b64": "..."} for bytes`)
		}
		if a.Has("path") {
			return req, envelope.New(envelope.Schema, "ingest: parameter 'path' does not combine with mode upload",
				"upload sends bytes in files; adopt and sync read a host path")
		}
		req.files, err = decodeFiles(a.RawItems("files"))
	case modeAdopt:
		if !a.Has("path") {
			return req, envelope.New(envelope.Schema, "ingest: mode adopt needs parameter 'path'",
				"name the host directory to adopt")
		}
		fallthrough
	case modeSync:
		if a.Has("files") {
			return req, envelope.New(envelope.Schema, "ingest: parameter 'files' combines with mode upload only", "")
		}
	}
	return req, err
}

// decodeFiles reads upload entries, every one checked before anything is
// staged: an object with name and exactly one of text (UTF-8) and b64
// (strict standard base64), and optional source_url.
func decodeFiles(items []json.RawMessage) ([]gardener.UploadFile, error) {
	out := make([]gardener.UploadFile, 0, len(items))
	for i, raw := range items {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fileErr(i, "is not an object", "")
		}
		for _, k := range slices.Sorted(mapKeys(e)) {
			if !slices.Contains([]string{"name", "text", "b64", "source_url"}, k) {
				return nil, fileErr(i, fmt.Sprintf("has unknown key '%s'", k), "an entry holds name, text or b64, and source_url")
			}
		}
		var f gardener.UploadFile
		var text, b64 *string
		for k, dst := range map[string]any{"name": &f.Name, "source_url": &f.SourceURL, "text": &text, "b64": &b64} {
			if v, ok := e[k]; ok && string(v) != "null" {
				if json.Unmarshal(v, dst) != nil {
					return nil, fileErr(i, fmt.Sprintf("'%s' expects string", k), "")
				}
			}
		}
		switch {
		case (text == nil) == (b64 == nil):
			return nil, fileErr(i, "needs exactly one of 'text' and 'b64'", "text for UTF-8 text, b64 for any bytes")
		case text != nil:
			if !utf8.ValidString(*text) {
				return nil, fileErr(i, "'text' is not valid UTF-8", "send bytes as b64")
			}
			f.Data = []byte(*text)
		default:
			data, err := base64.StdEncoding.Strict().DecodeString(*b64)
			if err != nil {
				return nil, fileErr(i, "'b64' is not standard base64", "encode the bytes with padding, alphabet A-Z a-z 0-9 + /")
			}
			f.Data = data
		}
		out = append(out, f)
	}
	return out, nil
}

func fileErr(i int, what, hint string) error {
	return envelope.New(envelope.Schema, fmt.Sprintf("ingest: files[%d] %s", i, what), hint)
}

func mapKeys(m map[string]json.RawMessage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// ingest serves POST …/ingest (J.8, J.9): validated synchronously, then
// run as a job, one document per writer-lane task so other calls on the
// forest run between documents. 202 {job}, or with wait the finished job.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request, who *keys.Principal, id string, pol vine.Policy, body []byte) {
	req, err := decodeIngest(body)
	if err != nil {
		s.refuse(w, ingestName, err)
		return
	}
	j, err := s.jobs.reserve(id, req.mode, who.Name)
	if err != nil {
		s.refuse(w, ingestName, err)
		return
	}
	var steps *gardener.Steps
	var before string
	err = s.on(r.Context(), who, id, false, func(v *vine.Vine) error {
		sc, err := v.Scoped(pol)
		if err != nil {
			return err
		}
		if err := s.mayIngest(r.Context(), v, sc, req); err != nil {
			return err
		}
		before = head(v.Dir())
		steps, err = s.prepare(r.Context(), v, j, req)
		return err
	})
	if err != nil {
		s.jobs.abandon(id, j)
		s.refuse(w, ingestName, err)
		return
	}
	j.update(func(v *jobView) { v.Total = steps.Total() })
	s.jobs.begin(id, j)
	go s.runJob(j, id, req.mode, before, steps, newJobAudit(r, who))
	if !req.wait {
		w.Header().Set("Location", jobPath(id, j.view.ID))
		s.writeJSON(w, ingestName, http.StatusAccepted, jobAnswer{j.snapshot()})
		return
	}
	select {
	case <-j.done:
		s.writeJSON(w, ingestName, http.StatusOK, jobAnswer{j.snapshot()})
	case <-r.Context().Done():
	}
}

// mayIngest is the policy of ingest (spec 08 §7.3, 06 §17): the ingest
// capability; adopt and sync, which name host paths and refresh whatever
// the source holds, need admin over the whole forest; a key limited to
// part of the forest names its dest, which must be visible to it, and
// never refreshes a node it cannot see.
func (s *Server) mayIngest(ctx context.Context, v *vine.Vine, sc *vine.Scoped, req ingestRequest) error {
	if !sc.Can(vine.CapIngest) {
		return needs(ingestName, sc, vine.CapIngest)
	}
	if req.mode != modeUpload {
		if !sc.Can(vine.CapAdmin) {
			return needs(ingestName+" "+req.mode, sc, vine.CapAdmin)
		}
		if !sc.Unrestricted() {
			return envelope.New(envelope.Forbidden,
				fmt.Sprintf("ingest: %s reconciles a whole source tree; this key sees part of the forest", req.mode),
				"upload files under a branch this key may write, or ask for a key over the whole forest")
		}
		return s.sourceAllowed(v.Dir(), req)
	}
	if sc.Unrestricted() {
		return nil
	}
	if !req.hasDest {
		return envelope.New(envelope.Schema, "ingest: parameter 'dest' is required for a key limited to part of the forest",
			"name a branch this key may write: "+strings.Join(sc.Roots(), ", "))
	}
	if !sc.InScope(destIndex(req.dest)) {
		return envelope.New(envelope.Forbidden, "ingest: dest "+req.dest+" is outside this key's grant",
			"name a branch under: "+strings.Join(sc.Roots(), ", "))
	}
	return refreshesHidden(ctx, v, sc, req.files)
}

// destIndex normalises dest the way the Gardener does (x, x/ and
// x/_index name one branch; _index and "" the root) to the branch index
// the scope test is about.
func destIndex(dest string) string {
	d := strings.Trim(strings.TrimSpace(dest), "/")
	d = strings.TrimSuffix(strings.TrimSuffix(d, forest.RootIndexID), "/")
	if d == "" {
		return forest.RootIndexID
	}
	return d + "/" + forest.RootIndexID
}

// refreshesHidden refuses an upload from a limited key when a file it
// sends would refresh a node outside its grant: a re-sent name refreshes
// the passport recorded for it wherever that node lives. The refusal
// names the file the caller sent, never the node.
func refreshesHidden(ctx context.Context, v *vine.Vine, sc *vine.Scoped, files []gardener.UploadFile) error {
	names := map[string]int{}
	for i, f := range files {
		names[path.Clean(strings.ReplaceAll(f.Name, `\`, "/"))] = i
	}
	root, err := forest.NewRoot(v.Dir())
	if err != nil {
		return err
	}
	_, err = root.Walk(func(id, p string) error {
		if err := ctx.Err(); err != nil || sc.InScope(id) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if front, _, err := forest.Split(id, data); err != nil || !strings.Contains(front, "source_path") {
			return nil // the cheap test spares parsing every hand-written node
		}
		n, err := forest.Parse(id, data)
		if err != nil {
			return nil
		}
		if i, ok := names[n.Front.String("source_path")]; ok {
			return fileErr(i, fmt.Sprintf("name %q is taken in this forest by a document this key cannot refresh", files[i].Name),
				"send it under another name")
		}
		return nil
	})
	return err
}

// sourceAllowed applies the ingest roots to what adopt and sync read:
// adopt's path, and the source root a sync reconciles, which was
// recorded by an adopt and is checked against the roots as they are now.
func (s *Server) sourceAllowed(dir string, req ingestRequest) error {
	if req.mode == modeAdopt {
		return s.hostPathAllowed(req.path)
	}
	if filepath.IsAbs(req.path) {
		return envelope.New(envelope.Schema, "ingest: sync path is relative to the recorded source root, got an absolute path",
			"name a file or folder inside the source, or adopt a new source")
	}
	cfg, err := gardener.LoadConfig(dir)
	if err != nil || cfg.SourceRoot == "" {
		return err // no recorded root: the Gardener refuses the sync in its own words
	}
	root := cfg.SourceRoot
	if !filepath.IsAbs(root) {
		root = filepath.Join(dir, root)
	}
	return s.hostPathAllowed(root)
}

// hostPathAllowed applies the ingest roots (J.8.2): a host path must lie
// inside one, compared after symlinks are resolved; none configured
// refuses every host path.
func (s *Server) hostPathAllowed(p string) error {
	const setting = "MONKEYLLM_INGEST_ROOTS"
	if len(s.opt.IngestRoots) == 0 {
		return envelope.New(envelope.Forbidden, "ingest: host paths are not served here: "+setting+" names no ingest root",
			"upload the files instead, or ask the operator to set "+setting)
	}
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err == nil {
		for _, root := range s.opt.IngestRoots {
			if rel, err := filepath.Rel(root, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil
			}
		}
	}
	return envelope.New(envelope.Forbidden, "ingest: path is outside the ingest roots",
		"the operator lists the host directories ingest may read in "+setting)
}

// resolveRoots makes ingest roots absolute with symlinks resolved, the
// form paths are compared in; a root that does not resolve is dropped
// (the host checks its roots at startup).
func resolveRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			if abs, err := filepath.Abs(real); err == nil {
				out = append(out, abs)
			}
		}
	}
	return out
}

// prepare makes the batch's steps: everything that can refuse it is
// checked here, before the first document.
func (s *Server) prepare(ctx context.Context, v *vine.Vine, j *job, req ingestRequest) (*gardener.Steps, error) {
	opt := s.gardenerOptions(ctx, filepath.Base(v.Dir()))
	host := opt.OnStage
	opt.OnStage = func(file string, st gardener.Stage) {
		stage := string(st)
		j.update(func(v *jobView) { v.Current, v.Stage = &file, &stage })
		if host != nil {
			host(file, st)
		}
	}
	opt.Progress = nil // the job record is the progress
	g := gardener.New(v, &opt)
	switch req.mode {
	case modeAdopt:
		return g.AdoptSteps(ctx, req.path, req.dest)
	case modeSync:
		so := gardener.SyncOptions{Dest: req.dest}
		if req.path != "" {
			so.Paths = []string{req.path}
		}
		return g.SyncSteps(ctx, so)
	}
	return g.UploadSteps(ctx, req.files, req.dest)
}

// runJob takes the batch's steps one writer-lane task each, honouring a
// cancel at the boundary between two documents. Its commits carry the
// caller's trailer; its audit row is recorded once the record is final,
// before a caller waiting on it is answered.
func (s *Server) runJob(j *job, forestID, mode, before string, steps *gardener.Steps, ja *jobAudit) {
	defer s.jobs.finish(forestID, j)
	defer s.recordJob(ja, j, before)
	ctx := stamped(s.jobs.ctx, ja.stamp)
	state := jobDone
	var failure *vine.Error
	var dir string
	for {
		if j.cancelled() {
			state = jobCancelled
			break
		}
		var ok bool
		err := s.lanes.withWriter(ctx, forestID, func(v *vine.Vine) error {
			dir = v.Dir()
			var err error
			_, ok, err = steps.Next(ctx)
			return err
		})
		partial := steps.Partial()
		j.update(func(v *jobView) { v.Done, v.Current, v.Stage, v.Errors = steps.Done(), nil, nil, len(partial.Errors) })
		if ctx.Err() != nil {
			state = jobCancelled // the server is closing
			break
		}
		if err != nil {
			state, failure = jobError, vine.AsError(ingestName, err)
			s.log.Error("ingest job failed", "job", j.view.ID, "err", err)
			break
		}
		if !ok {
			break
		}
	}
	rep := &jobReport{Mode: mode, IngestReport: steps.Partial(), CommitBefore: before, Bound: s.curatorBound()}
	if state == jobDone {
		rep.Rollup = s.rollUp(ctx, forestID, rep.IngestReport)
	}
	rep.Commit = head(dir)
	rep.Curated = rep.Curation.LLMSummaries+rep.Curation.BranchRollups > 0
	finished := time.Now().UTC().Format("2006-01-02T15:04:05Z")
	j.update(func(v *jobView) { v.State, v.Finished, v.Report, v.Error = state, finished, rep, failure })
}

// head is the forest's current commit, "" when it cannot be read.
func head(dir string) string {
	if dir == "" {
		return ""
	}
	r, err := gitops.Open(dir)
	if err != nil {
		return ""
	}
	h, err := r.Head()
	if err != nil {
		return ""
	}
	return h
}

// gardenerOptions are the Gardener options of one batch on the forest
// id: the host's for every forest, then adjusted for this one
// (Options.GardenerFor).
func (s *Server) gardenerOptions(ctx context.Context, id string) gardener.Options {
	opt := gardener.Options{}
	if s.opt.Gardener != nil {
		opt = *s.opt.Gardener
		opt.Converters = slices.Clone(opt.Converters) // the host's slice is every forest's
	}
	if s.opt.GardenerFor != nil {
		s.opt.GardenerFor(ctx, id, &opt)
	}
	return opt
}
