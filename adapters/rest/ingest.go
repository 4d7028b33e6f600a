// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/gardener"
)

// ingestName is the host action POST …/ingest serves beside the
// primitives (J.8).
const ingestName = ingestreq.Name

// ingestSignature is the wire contract of ingest on REST: it answers at
// once unless asked to wait, and serves compose.
var ingestSignature = ingestreq.Signature(false, true)

// ingest serves POST …/ingest (J.8, J.9): validated synchronously, then
// run as a job, one document per writer-lane task so other calls on the
// forest run between documents. 202 {job}, or with wait the finished job.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request, who *keys.Principal, id string, pol vine.Policy, body []byte) {
	req, err := ingestreq.Decode(ingestSignature, body)
	if err != nil {
		s.refuse(w, ingestName, err)
		return
	}
	if req.Mode == ingestreq.ModeCompose {
		s.compose(w, r, who, id, pol, req)
		return
	}
	j, err := s.jobs.reserve(id, req.Mode, who.Name)
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
		if err := ingestreq.Check(r.Context(), v, sc, req, s.opt.IngestRoots); err != nil {
			return err
		}
		before = ingestreq.Head(v.Dir())
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
	go s.runJob(j, id, req.Mode, before, steps, newJobAudit(r, who))
	if !req.Wait {
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

// prepare makes the batch's steps, the job record following the
// document in hand.
func (s *Server) prepare(ctx context.Context, v *vine.Vine, j *job, req ingestreq.Request) (*gardener.Steps, error) {
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
	return ingestreq.Steps(ctx, v, &opt, req)
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
	opt := s.gardenerOptions(ctx, forestID) // the batch's own: its curator is the forest's
	rep := &jobReport{Mode: mode, IngestReport: steps.Partial(), CommitBefore: before, Bound: opt.Curator != nil}
	if state == jobDone && mode != ingestreq.ModeRecurate { // a scent recurate leaves branches alone
		rep.Rollup = s.rollUp(ctx, forestID, opt, rep.IngestReport)
	}
	rep.Commit = ingestreq.Head(dir)
	rep.Curated = rep.Curation.LLMSummaries+rep.Curation.BranchRollups > 0
	finished := ingestreq.Stamp(time.Now())
	j.update(func(v *jobView) { v.State, v.Finished, v.Report, v.Error = state, finished, rep, failure })
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
