// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/trails"
)

// The outcomes Report.GC takes (H.8).
const (
	GCRan         = gitops.GCRan         // git gc --auto ran and exited 0
	GCUnavailable = gitops.GCUnavailable // no git binary, or gc failed
	GCSkipped     = "skipped"            // the Ranger did not ask (WithoutGC)
)

// Ranger maintains one open forest. Create it with New; it is safe for
// concurrent use, and runs one Run at a time.
type Ranger struct {
	v        *vine.Vine
	cfg      Config
	now      func() time.Time
	progress func(vine.Progress)
	gc       bool
	scope    Scope
	runs     sync.Mutex
}

// Option configures New.
type Option func(*options)

type options struct {
	now      func() time.Time
	cfg      *Config
	progress func(vine.Progress)
	noGC     bool
	scope    Scope
}

// WithClock sets the clock evaporation measures elapsed time with. Dates
// written into nodes come from the Vine's own clock (vine.Options.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithConfig replaces _meta/ranger.yaml with c, which must pass
// Config.Validate.
func WithConfig(c Config) Option { return func(o *options) { o.cfg = &c } }

// WithProgress receives progress of the link sweep and the health walk.
// It is called from the working goroutine and must not block.
func WithProgress(fn func(vine.Progress)) Option { return func(o *options) { o.progress = fn } }

// WithoutGC makes Run skip git maintenance and report GCSkipped, for hosts
// that schedule it themselves.
func WithoutGC() Option { return func(o *options) { o.noGC = true } }

// Scope says which nodes a voter may touch; a *vine.Scoped satisfies it.
type Scope interface {
	InScope(id string) bool
}

// WithScope limits the votes (AcceptLink, RejectLink, Vote) to the nodes
// s holds: a vote on a node outside it answers as a link that is not
// there, so a vote is no oracle for hidden nodes. The Ranger's own sweep
// is operator work and always sees the whole forest.
func WithScope(s Scope) Option { return func(o *options) { o.scope = s } }

// New returns a Ranger for v. Its thresholds come from the forest's
// _meta/ranger.yaml unless WithConfig gives them; a malformed file is
// E_SCHEMA naming the key. Run needs a writable v; Health does not.
func New(v *vine.Vine, opts ...Option) (*Ranger, error) {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	var cfg Config
	if o.cfg != nil {
		if err := o.cfg.Validate(); err != nil {
			return nil, err
		}
		cfg = *o.cfg
	} else {
		var err error
		if cfg, err = LoadConfig(v.Dir()); err != nil {
			return nil, err
		}
	}
	progress := o.progress
	if progress == nil {
		progress = func(vine.Progress) {}
	}
	return &Ranger{v: v, cfg: cfg, now: o.now, progress: progress, gc: !o.noGC, scope: o.scope}, nil
}

// Config is the configuration the Ranger runs with.
func (r *Ranger) Config() Config { return r.cfg }

// Report is the outcome of one Run, in the shape of H.4.
type Report struct {
	Evaporation  trails.Evaporation `json:"evaporation"`
	PayloadCache CacheResult        `json:"payload_cache"`
	Links        LinkResult         `json:"links"`
	Landmarks    LandmarksResult    `json:"landmarks"`
	Health       *Health            `json:"health"`
	GC           string             `json:"gc"`
}

// Run performs one maintenance cycle in the order of H.4: evaporate, evict
// the payload cache, tend the managed links, refresh the Landmarks, report
// health, and ask git to tidy up. The first failing step ends the cycle
// with its error; git maintenance never fails it. A read-only Vine is
// refused with E_READONLY before anything runs.
func (r *Ranger) Run(ctx context.Context) (*Report, error) {
	if err := r.writable("run"); err != nil {
		return nil, err
	}
	r.runs.Lock()
	defer r.runs.Unlock()
	rep := &Report{}
	var err error
	if rep.Evaporation, err = r.Evaporate(ctx); err != nil {
		return nil, err
	}
	if rep.PayloadCache, err = r.EvictPayloadCache(ctx); err != nil {
		return nil, err
	}
	if rep.Links, err = r.TendLinks(ctx); err != nil {
		return nil, err
	}
	if rep.Landmarks, err = r.RefreshLandmarks(ctx); err != nil {
		return nil, err
	}
	if rep.Health, err = r.Health(ctx); err != nil {
		return nil, err
	}
	rep.GC = r.GC(ctx)
	return rep, nil
}

// Evaporate lets the forest's persistent heat decay by the configured
// half-life as of the Ranger's clock, deletes what falls under
// trails.Dust, and clears session heat older than the session
// time-to-live (H.1). It writes _derived/trails.db only, never a commit;
// a second pass right after the first changes nothing.
func (r *Ranger) Evaporate(ctx context.Context) (trails.Evaporation, error) {
	if err := r.writable("evaporate"); err != nil {
		return trails.Evaporation{}, err
	}
	return r.v.Trails().Evaporate(ctx, r.now(),
		duration(r.cfg.HalfLifeDays*24, time.Hour), duration(r.cfg.SessionTTLHours, time.Hour))
}

// GC asks git to pack loose objects when it thinks it should (H.8) and
// reports GCRan, GCUnavailable, or GCSkipped when the Ranger was built
// WithoutGC or the Vine is read-only. It never fails and never commits.
func (r *Ranger) GC(ctx context.Context) string {
	if !r.gc || r.v.ReadOnly() {
		return GCSkipped
	}
	got, err := r.v.GCAuto(ctx)
	if err != nil {
		return GCUnavailable
	}
	return got
}

// writable refuses the writing steps on a read-only Vine.
func (r *Ranger) writable(op string) error {
	if r.v.ReadOnly() {
		return envelope.New(envelope.ReadOnly, "ranger "+op+": this forest is open read-only",
			"open it writable to run the Ranger; Health works on a read-only forest")
	}
	return nil
}

// duration converts n units to a Duration, clamped to what a Duration
// holds and to at least one nanosecond for positive n.
func duration(n float64, unit time.Duration) time.Duration {
	d := n * float64(unit)
	switch {
	case d >= math.MaxInt64:
		return math.MaxInt64
	case d > 0 && d < 1:
		return 1
	}
	return time.Duration(d)
}
