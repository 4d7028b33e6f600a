// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/gardener"
)

// IngestOptions serve the ingest tool (spec 06 §17). A host that sets
// them lets its callers holding the ingest capability send documents.
type IngestOptions struct {
	// Roots are the host directories adopt and sync may read (J.8.2).
	// None refuses every host path; upload needs none.
	Roots []string

	// Gardener configures every batch (curator, hooks, converters); nil
	// means the Gardener's defaults. Its OnStage and Progress are the
	// tool's own.
	Gardener *gardener.Options

	// GardenerFor, when set, adjusts a copy of Gardener for one forest's
	// batch (a host binding models per forest adds its curator and
	// describer), as rest.Options.GardenerFor does.
	GardenerFor func(ctx context.Context, forest string, opt *gardener.Options)

	// Batches, when set, is the host's record of running batches, shared
	// with its other surfaces (rest.Options.Batches) so that two never
	// run at once on one forest; nil keeps the tool's own.
	Batches Batches
}

// Batches records the ingest batches running on a host: at most one per
// forest (J.9).
type Batches interface {
	// Reserve claims forest for job, or refuses E_LOCKED naming the
	// batch running there; hint is the refusal's.
	Reserve(forest, job, hint string) error
	// Release frees forest when job holds it.
	Release(forest, job string)
}

// ingestSig is ingest over MCP: it waits by default.
var ingestSig = ingestreq.Signature(true, false)

// ingester runs the ingest tool's batches: at most one per forest,
// never a queue (J.9).
type ingester struct {
	roots       ingestreq.Roots
	opt         gardener.Options
	gardenerFor func(context.Context, string, *gardener.Options)
	batches     Batches
}

func newIngester(o *IngestOptions) *ingester {
	in := &ingester{roots: ingestreq.ResolveRoots(o.Roots), batches: o.Batches, gardenerFor: o.GardenerFor}
	if in.batches == nil {
		in.batches = ingestreq.NewBatches()
	}
	if o.Gardener != nil {
		in.opt = *o.Gardener
	}
	return in
}

// addIngest serves the ingest tool when the host configured it.
func (s *server) addIngest(srv *sdk.Server) {
	if s.ingest == nil {
		return
	}
	srv.AddTool(&sdk.Tool{
		Name:         ingestSig.Name,
		Title:        wire.Title(ingestSig.Name),
		Description:  wire.Description(ingestSig),
		InputSchema:  wire.InputSchema(ingestSig, s.forest),
		OutputSchema: outputSchema(ingestSig.Name),
		Annotations:  annotations(ingestSig.Name, false, false, false),
	}, s.guarded(ingestSig.Name, s.ingestCall))
}

// ingestCall answers the ingest tool: validated like REST's ingest (one
// package decides both), then run as a job whose record is the answer,
// {"job": …} (J.9) — finished when the call waits, as it does by
// default, else running. A client that passed a progress token hears
// (done, total, message) after every document.
func (s *server) ingestCall(ctx context.Context, who *keys.Principal, raw json.RawMessage) *sdk.CallToolResult {
	n := s.noteCall(who, ingestSig.Name)
	b, err := s.acceptBatch(ctx, who, n, raw)
	if err != nil {
		res := s.refuse(ingestSig.Name, err)
		s.recordTool(ctx, n, res)
		return res
	}
	if !b.req.Wait {
		started := b.snapshot()
		go b.run(context.WithoutCancel(ctx), nil)
		return answered(ingestSig.Name, ingestreq.Answer{Job: started})
	}
	b.run(ctx, progressOf(ctx))
	return answered(ingestSig.Name, ingestreq.Answer{Job: b.snapshot()})
}

// acceptBatch validates a call and starts its batch.
func (s *server) acceptBatch(ctx context.Context, who *keys.Principal, n *toolNote, raw json.RawMessage) (*batch, error) {
	id, args, err := splitForest(ingestSig.Name, raw)
	if err != nil {
		return nil, err
	}
	n.named(s.forests, who, id, args)
	r, err := ingestreq.Decode(ingestSig, args)
	if err != nil {
		return nil, err
	}
	b, err := s.startBatch(ctx, who, id, r)
	if err != nil {
		return nil, err
	}
	b.s, b.note, b.req = s, n, r
	return b, nil
}

// startBatch grants and opens the forest, applies ingest's policy,
// reserves the forest and prepares the steps: every refusal comes
// before the first document.
func (s *server) startBatch(ctx context.Context, who *keys.Principal, id string, req ingestreq.Request) (*batch, error) {
	id, pol, err := s.forests.Grant(who, id)
	if err != nil {
		return nil, err
	}
	v, err := s.reg.Forest(ctx, id)
	if err != nil {
		return nil, s.forests.Opened(who, id, err)
	}
	sc, err := v.Scoped(pol)
	if err != nil {
		return nil, err
	}
	if err := ingestreq.Check(ctx, v, sc, req, s.ingest.roots); err != nil {
		return nil, err
	}
	b := &batch{in: s.ingest, dir: v.Dir(), view: ingestreq.NewJob(id, req.Mode), stamp: who}
	b.start = time.Now()
	if err := s.ingest.batches.Reserve(id, b.view.ID, "one batch per forest at a time: wait for it to finish, then send the next"); err != nil {
		return nil, err
	}
	b.before = ingestreq.Head(v.Dir())
	opt := s.ingest.options(ctx, id)
	b.v, b.opt = v, opt // the rollup at finish curates with the batch's own model
	host := opt.OnStage
	opt.OnStage = func(file string, st gardener.Stage) {
		stage := string(st)
		b.update(func(j *ingestreq.Job) { j.Current, j.Stage = &file, &stage })
		if host != nil {
			host(file, st)
		}
	}
	opt.Progress = nil // the job record and the notifications are the progress
	b.steps, err = ingestreq.Steps(stamped(ctx, who), v, &opt, req)
	if err != nil {
		s.ingest.batches.Release(id, b.view.ID)
		return nil, err
	}
	b.update(func(j *ingestreq.Job) { j.Total = b.steps.Total() })
	return b, nil
}

// batch is one running ingest job.
type batch struct {
	in     *ingester
	v      *vine.Vine
	opt    gardener.Options // the batch's, before its stage hook
	dir    string
	before string
	steps  *gardener.Steps
	stamp  *keys.Principal
	req    ingestreq.Request
	s      *server
	note   *toolNote // the call's audit note, recorded at finish
	start  time.Time

	mu   sync.Mutex
	view ingestreq.Job
}

func (b *batch) update(fn func(*ingestreq.Job)) {
	b.mu.Lock()
	fn(&b.view)
	b.mu.Unlock()
}

func (b *batch) snapshot() ingestreq.Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := b.view
	if v.Report != nil {
		r := *v.Report
		v.Report = &r
	}
	return v
}

// run takes every step, telling progress after each, until the batch is
// exhausted or ctx ends (the caller went away: the job is cancelled at
// the step boundary, a document whole or absent). It frees the forest.
func (b *batch) run(ctx context.Context, progress *notifier) {
	defer b.in.batches.Release(b.view.Forest, b.view.ID)
	ctx = stamped(ctx, b.stamp)
	state := ingestreq.StateDone
	var failure *vine.Error
	for {
		step, ok, err := b.steps.Next(ctx)
		partial := b.steps.Partial()
		b.update(func(j *ingestreq.Job) {
			j.Done, j.Current, j.Stage, j.Errors = b.steps.Done(), nil, nil, len(partial.Errors)
		})
		if ctx.Err() != nil {
			state = ingestreq.StateCancelled
			break
		}
		if err != nil {
			state, failure = ingestreq.StateError, vine.AsError(ingestreq.Name, err)
			break
		}
		if !ok {
			break
		}
		progress.send(b.steps.Done(), b.steps.Total(), step.File+": "+step.Action)
	}
	progress.flush()
	rep := &ingestreq.Report{Mode: b.view.Mode, IngestReport: b.steps.Partial(), CommitBefore: b.before,
		Bound: b.opt.Curator != nil}
	if state == ingestreq.StateDone {
		var err error
		if rep.Rollup, err = ingestreq.RollUp(ctx, b.v, b.opt, rep.IngestReport); err != nil {
			b.s.log.Warn("rollup after ingest", "forest", b.view.Forest, "err", err)
		}
	}
	rep.Commit = ingestreq.Head(b.dir)
	rep.Curated = rep.Curation.LLMSummaries+rep.Curation.BranchRollups > 0
	b.update(func(j *ingestreq.Job) {
		j.State, j.Finished, j.Report, j.Error = state, ingestreq.Stamp(time.Now()), rep, failure
	})
	b.record(ctx)
}

// record writes the job's audit row once its record is final (spec 09
// §12: at job finish or failure): the job id and the commit range in
// the digest, the last commit as commit_sha, the record's size.
func (b *batch) record(ctx context.Context) {
	if b.note == nil {
		return
	}
	v := b.snapshot()
	c := b.note.c
	c.Time, c.MS, c.Result = time.Now(), record.Millis(time.Since(b.start)), record.OK
	c.Args = c.Args.With("job", v.ID)
	if v.State != ingestreq.StateDone {
		c.Args = c.Args.With("state", v.State)
	}
	if v.Report.Commit != "" && v.Report.Commit != b.before {
		c.CommitSHA = v.Report.Commit
		c.Args = c.Args.With("commit_before", b.before)
	}
	if v.Error != nil {
		c.Result, c.ErrorCode = record.Error, string(v.Error.Code)
	}
	if body, err := wire.Encode(ingestreq.Answer{Job: v}); err == nil {
		c.Size = int64(len(body))
	}
	b.s.recordCall(ctx, c)
}

// recordCall hands a finished row to the Recorder; a panicking Recorder
// is logged, never the batch's failure.
func (s *server) recordCall(ctx context.Context, c record.Call) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("audit recorder panicked", "tool", c.Primitive, "panic", p)
		}
	}()
	s.rec.Record(context.WithoutCancel(ctx), c)
}

// options are one forest's Gardener options: the host's, adjusted for it.
func (in *ingester) options(ctx context.Context, forest string) gardener.Options {
	opt := in.opt
	if in.gardenerFor != nil {
		opt.Converters = slices.Clone(opt.Converters) // the host's slice is every forest's
		in.gardenerFor(ctx, forest, &opt)
	}
	return opt
}
