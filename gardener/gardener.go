// SPDX-License-Identifier: Apache-2.0

// Package gardener ingests document trees into a forest (Part G): it
// converts each source file, curates a passport for it, and plants it
// through the audited write path, one document per commit.
//
// Formats are pluggable: implement Converter and register it with
// RegisterConverter, or name a command in _meta/gardener.yaml. Images
// get a stub body unless a vision model is bound: NewMediaDescriber in
// Options.Converters describes them and transcribes their text. Curation
// is pluggable too: a Curator writes summaries, tags, aliases and edge
// proposals; without one the deterministic default runs, and CurateHooks
// may change any draft before it is planted. NewModelCurator makes one
// over any Chat (adapters/llamacpp's client is one); it also writes the
// branch summaries of Rollup, and Recurate asks it again for the scent
// of nodes already planted.
//
// Every batch is a Steps iterator: construction resolves the source and
// walks it (so a bad source fails before anything is written), and each
// Next converts, curates and plants exactly one whole document. Adopt,
// Sync and Upload drain one and return the report. A Preview steps the
// same way and has no write path at all.
package gardener

import (
	"context"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
)

// Stage is a phase of one document's step (G.10.1), reported to an
// observer as it starts. The set is closed and ordered; a stage a step
// does not need is passed over, never reported as pending.
type Stage string

// The stages of a step, in order.
const (
	StageConvert Stage = "convert"
	StageCurate  Stage = "curate"
	StagePlant   Stage = "plant"
)

// Options configure a Gardener or a Preview. The zero value converts
// with the built-in and registered converters and curates without a
// model.
type Options struct {
	// Curator, when set, writes the scent of new drafts and picks edge
	// proposals from a closed candidate list (G.4.2). It runs after the
	// hooks. Nil means the deterministic default alone.
	Curator Curator

	// CandidateFilter, when set, keeps only the edge-proposal candidates
	// it accepts. A host serving a scoped principal passes its scope
	// test here, or ids outside the scope would leak into frontmatter.
	CandidateFilter func(id string) bool

	// Hooks run on every new draft after the registered hooks, in order
	// (G.4 rule 3). A failing hook is skipped and reported.
	Hooks []NamedHook

	// Converters are injected extra converters (G.2 discovery priority
	// 3: after command hooks, before registered and built-in ones), such
	// as a host's image describer: a vision binding is
	// NewMediaDescriber(model, nil) here.
	Converters []Converter

	// ExplicitConverters, when not nil, are the only converters tried, in
	// this order: discovery (config hooks, Converters, registered and
	// built-in converters) is bypassed. For tests and embedded pipelines
	// that must not depend on what the process registered.
	ExplicitConverters []Converter

	// OnStage, when set, is told the stage of the document in hand. It is
	// called inline and must not block; a panic in it is swallowed.
	OnStage func(file string, stage Stage)

	// Progress, when set, is called after every step with the steps done
	// and the total, as vine.Progress{Op: "adopt" | "sync" | "upload"}.
	Progress func(vine.Progress)

	// Limits bound what the built-in converters spend on one document;
	// a document past one is an error line and the run goes on. Zero
	// fields mean the defaults (DefaultLimits).
	Limits Limits
}

// Gardener ingests into one writable forest. Run one batch per forest at
// a time (a host's job queue answers a second one E_LOCKED): the writer
// takes one write at a time anyway, and two batches interleaving their
// steps would each report the other's documents as found.
type Gardener struct {
	c core
}

// New returns a Gardener writing into v. opts may be nil.
func New(v *vine.Vine, opts *Options) *Gardener {
	return &Gardener{c: newCore(v, opts)}
}

// Preview is a dry-run Gardener (J.8.1): it steps exactly like a Gardener
// and collects the drafts it would plant, but it has no write path at
// all — no plant, branch, body cache, archive copy, config save or
// consumed upload — so HEAD and the worktree stay as they were. Its
// report lists Branches it would create and Drafts it would plant.
type Preview struct {
	c core
}

// NewPreview returns a dry-run Gardener over v, which may be read-only.
// opts may be nil; a Curator in it is asked as on a real run.
func NewPreview(v *vine.Vine, opts *Options) *Preview {
	return &Preview{c: newCore(v, opts)}
}

// core is what a Gardener and a Preview share: the forest and the
// options. The write path is not here; it is chosen per run.
type core struct {
	v   *vine.Vine
	opt Options
}

func newCore(v *vine.Vine, opts *Options) core {
	c := core{v: v}
	if opts != nil {
		c.opt = *opts
	}
	return c
}

// writable refuses a Gardener over a read-only forest before anything is
// resolved or staged.
func (c core) writable(op string) error {
	if c.v.ReadOnly() {
		return envelope.New(envelope.ReadOnly, op+": this forest is open read-only",
			"open it writable to ingest, or use a Preview for a dry run")
	}
	return nil
}

// AdoptSteps prepares the adoption of the directory source under the
// branch dest ("" for the root; x, x/ and x/_index name the same branch):
// the source is resolved and checked, dest checked, and the tree walked
// before it returns, so every refusal (E_SCHEMA) comes before anything is
// written. It records source (and dest, when given) in
// _meta/gardener.yaml before the first step, so an interrupted adoption
// is finished by Sync.
func (g *Gardener) AdoptSteps(ctx context.Context, source, dest string) (*Steps, error) {
	if err := g.c.writable("adopt"); err != nil {
		return nil, err
	}
	return g.c.adoptSteps(ctx, liveSink{v: g.c.v}, source, dest)
}

// Adopt mirrors the directory source under dest and returns the report:
// AdoptSteps drained. On cancellation it returns the partial report with
// the context's error; every document it reports is committed.
func (g *Gardener) Adopt(ctx context.Context, source, dest string) (*IngestReport, error) {
	s, err := g.AdoptSteps(ctx, source, dest)
	if err != nil {
		return nil, err
	}
	return s.Drain(ctx)
}

// SyncSteps prepares a hash-diff refresh (G.8) of the recorded source
// root, or of opt.Source.
func (g *Gardener) SyncSteps(ctx context.Context, opt SyncOptions) (*Steps, error) {
	if err := g.c.writable("sync"); err != nil {
		return nil, err
	}
	return g.c.syncSteps(ctx, liveSink{v: g.c.v}, opt)
}

// Sync reconciles the forest with its source and returns the report:
// SyncSteps drained.
func (g *Gardener) Sync(ctx context.Context, opt SyncOptions) (*IngestReport, error) {
	s, err := g.SyncSteps(ctx, opt)
	if err != nil {
		return nil, err
	}
	return s.Drain(ctx)
}

// AdoptSteps is Gardener.AdoptSteps without any write, config included.
func (p *Preview) AdoptSteps(ctx context.Context, source, dest string) (*Steps, error) {
	return p.c.adoptSteps(ctx, drySink{}, source, dest)
}

// Adopt is Gardener.Adopt without any write.
func (p *Preview) Adopt(ctx context.Context, source, dest string) (*IngestReport, error) {
	s, err := p.AdoptSteps(ctx, source, dest)
	if err != nil {
		return nil, err
	}
	return s.Drain(ctx)
}

// SyncSteps is Gardener.SyncSteps without any write.
func (p *Preview) SyncSteps(ctx context.Context, opt SyncOptions) (*Steps, error) {
	return p.c.syncSteps(ctx, drySink{}, opt)
}

// Sync is Gardener.Sync without any write.
func (p *Preview) Sync(ctx context.Context, opt SyncOptions) (*IngestReport, error) {
	s, err := p.SyncSteps(ctx, opt)
	if err != nil {
		return nil, err
	}
	return s.Drain(ctx)
}
