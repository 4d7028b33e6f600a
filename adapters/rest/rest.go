// SPDX-License-Identifier: Apache-2.0

// Package rest serves forests over HTTP+JSON, the /v1 surface of spec 08
// §2: one POST per primitive call, the forest listing, the caller's own
// grants, health, payload bytes and markdown export, ingest jobs, and the
// whole-forest reindex.
//
//	POST /v1/forests/{forest}/{primitive}       body: the JSON arguments
//	GET  /v1/forests                            the forests this key may use
//	GET  /v1/me                                 this key's grants, masked
//	GET  /v1/health                             unauthenticated
//	GET  /v1/openapi.json                       unauthenticated: OpenAPI 3.1 of these routes
//	GET  /v1/metrics                            unauthenticated, with Options.Metrics: Prometheus
//	GET  /v1/forests/{forest}/payload/{node...} a media node's bytes
//	GET  /v1/forests/{forest}/export/{node...}  markdown; ?recursive=true zips a branch
//	GET  /v1/forests/{forest}/graph             map: nodes and edges (?scope=&limit=)
//	GET  /v1/forests/{forest}/trails            map: persistent heat (?scope=&limit=)
//	POST /v1/forests/{forest}/ingest            202 {job} + Location, or wait: true
//	GET  /v1/forests/{forest}/ingest            source, can_sync, host_paths, formats
//	GET  /v1/forests/{forest}/jobs[/{job}]      ?after=<next> pages; POST …/jobs/{job}/cancel
//	GET  /v1/forests/{forest}/links             the proposals a person may vote on (?limit=)
//	POST /v1/forests/{forest}/links/vote        {votes:[{id,rel,target,vote}]}: accept or reject proposals
//	POST /v1/admin/reindex                      {forest}
//	POST /v1/admin/recurate                     {forest, derive}
//
// Before any route, every request but GET /v1/health passes the guard
// the MCP mount stands behind (Options.AllowedHosts): a Host not allowed
// is 421 E_HOST_NOT_ALLOWED (DNS rebinding), a browser Origin not allowed
// is 403 E_FORBIDDEN; and a POST, PUT, PATCH or DELETE whose body is not
// declared application/json is 415 E_SCHEMA (cross-site forgery: a web
// page may send form and text bodies anywhere, never JSON without
// asking). An empty body without Content-Type or Origin still passes, as
// curl sends it, and so does an ingest upload as multipart/form-data that
// carries a key header (Authorization or X-API-Key), which no page can
// add without a preflight. Health answers any Host: it changes nothing, names no
// forest, and reports whether this request's Host may use /mcp.
//
// A path a route serves under another method answers 405 with Allow
// (GET brings HEAD). Every response carries Server-Timing (before
// authentication the vine clock is 0) and X-Request-Id (the caller's, or
// one made); Options.AccessLog gets one line per request. Options add
// CORS for listed origins (preflight answered before the guard, the Host
// check kept), Prometheus metrics, and a per-key rate limit (429 with
// Retry-After).
//
// Every forest is reached through a vine.Scoped for the caller's policy,
// so a node (or forest) the caller may not see answers exactly as one
// that does not exist. Refusals are the envelope
// {"error":{code,message,hint}} with the status of their code.
//
// Reads run on a pool of read-only instances per forest and writes on
// the forest's one writer, so a long write never holds up a read.
package rest

import (
	"context"
	"log/slog"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/gardener"
)

// DefaultReaders is the number of read-only instances kept per forest
// when Options.Readers is zero (MONKEYLLM_STATION_READERS' default).
const DefaultReaders = 4

// defaultMaxBody bounds a request body: room for an upload of a few
// documents in base64, not for a disk image.
const defaultMaxBody = 64 << 20

// Options configure a Server. The zero value serves every caller as the
// local owner, on a single lane, with the build's version.
type Options struct {
	// Version is the station version of the forests listing and of
	// health; empty means the installed build's version.
	Version string

	// AllowedHosts are the Host header values served (a port is part of
	// the value; "*" turns the Host and Origin checks off, never the
	// body-type check). Nil means localhost, 127.0.0.1 and [::1] on any
	// port; an empty non-nil list serves no Host but health. The same
	// list the MCP mount is given: one guard, one decision.
	AllowedHosts []string

	// Keys authenticates every request but health by its
	// Authorization: Bearer (or X-API-Key) header; a request without a
	// valid key answers 401. Nil serves every caller as
	// keys.LocalOwner, which is right only for a local server a host
	// started with --open; never leave it nil by accident.
	Keys keys.Resolver

	// OpenReader makes a read-only Registry over the same directory as
	// the served one: the reader pool keeps Readers of them per forest,
	// each opening that forest lazily. Nil is the single lane: reads run
	// on the served Registry's own instance, as writes do.
	OpenReader func() (*vine.Registry, error)

	// Gauntlet, when set, keeps each forest's Gauntlet switch: POST
	// /v1/admin/canopy {forest, enabled} sets it, and canopy status
	// reports it as enabled. Unset, the switch is refused and status
	// reports enabled: true.
	Gauntlet GauntletSwitch

	// Readers is the pool size per forest when OpenReader is set; zero
	// means DefaultReaders.
	Readers int

	// ReadOnly tells health that the served Registry was opened
	// read-only (it is not something a Registry reports).
	ReadOnly bool

	// MCP is the Host guard of an /mcp mount beside this surface, for
	// health to report whether this request's Host may use it; nil means
	// no mount.
	MCP interface{ Allowed(host string) bool }

	// ModelConcurrency is the model-call ceiling health reports; zero
	// means 8. The engine itself makes no model calls.
	ModelConcurrency int

	// Gardener configures every ingest batch (curator, hooks,
	// converters); nil means the Gardener's defaults. Its Progress is not
	// used: the job record is the progress.
	Gardener *gardener.Options

	// Batches, when set, is the host's record of running ingest batches,
	// shared with its other surfaces (mcp.IngestOptions.Batches) so that
	// two never run at once on one forest; nil keeps this server's own.
	Batches Batches

	// GardenerFor, when set, adjusts a copy of Gardener for one forest's
	// ingest batch or recurate: a host that binds models per forest adds
	// the forest's curator and describer here. forest is the forest's id.
	GardenerFor func(ctx context.Context, forest string, opt *gardener.Options)

	// IngestRoots are the host directories adopt and sync may read
	// (MONKEYLLM_INGEST_ROOTS), compared after symlinks are resolved;
	// none refuses every host path, while upload still works.
	IngestRoots []string

	// MaxBody bounds a request body in bytes; zero means 64 MiB.
	MaxBody int64

	// Logger receives what never reaches the wire (the detail behind an
	// E_INTERNAL). Nil discards it.
	Logger *slog.Logger

	// AccessLog receives one line per request once its response is out:
	// request_id (the X-Request-Id the caller sent, or one made), method,
	// path, tool (the route or primitive), principal (the key's name),
	// status, ms, and the refusal's code. Nil logs nothing.
	AccessLog *slog.Logger

	// CORSOrigins are the browser origins (scheme://host[:port]) of other
	// sites allowed to call this API: their preflight is answered and
	// their Origin passes the guard. The Host check still applies. Nil
	// allows none; "*" is not accepted, since keys travel in a header.
	CORSOrigins []string

	// Metrics, when set, gets the Prometheus collectors of this surface
	// (latency per primitive, refusals by code, lane waits, jobs, readers
	// in use), served at GET /v1/metrics without a key: counts and
	// durations, never ids. Pass a host's own registry to serve them
	// beside its own; nil keeps no metrics.
	Metrics *prometheus.Registry

	// Granter, when set, grants the creator of a forest every capability
	// on it (POST /v1/admin/forests). Without one only the owner, who
	// holds every forest, may create forests.
	Granter ForestGranter

	// OnEvent, when set, receives the events this surface owns (spec 08
	// §11: forest.created), after the act succeeded and was audited; it
	// must not block. The forests' own events come through
	// vine.Options.OnEvent.
	OnEvent func(vine.HookEvent)
	// Routes are a host's routes served beside these (see Route).
	Routes []Route

	// HealthFields, when set, adds a host's fields to GET /v1/health
	// (the Station's setup_required and password_login). They must
	// reveal nothing about any forest: health answers without a key.
	HealthFields func(r *http.Request) map[string]any

	// RemoteDestination, when set, judges where a git remote leads
	// before a caller who is not the deployment owner sets one, pushes
	// to it or pulls from it (a server reaching an internal host on an
	// admin's say); its error is the answer. A file:// remote is the
	// owner's alone either way. Nil lets any network remote through.
	RemoteDestination func(ctx context.Context, rawURL string) error

	// SnapshotDir is where the maintenance routes keep snapshots, one
	// folder per forest id; it must lie outside every forest. Empty
	// means the snapshot routes answer that this server keeps none.
	SnapshotDir string

	// RateLimit, when set, bounds each key's request rate: past it a
	// request answers 429 E_FORBIDDEN with Retry-After (spec 08 §3). Health, the
	// OpenAPI document and metrics are not limited. Nil is no limit.
	RateLimit *RateLimit

	// Recorder, when set, gets one audit row per scoped call once its
	// response is out (spec 09 §9): every primitive call, refusals
	// included, payload, export and reindex; an ingest job's row when the
	// job finishes (or at once when the call is refused). A request
	// refused before it names a principal (401) or past its rate (429)
	// is not a scoped call and writes none. Record must not block: it
	// runs on the request's goroutine. Nil keeps no audit trail.
	Recorder record.Recorder
}

// Server is the REST surface of a Registry. It is an http.Handler meant
// to be mounted at /v1/ (it routes the whole path, /v1 included). Close
// it to release its read-only instances and stop its jobs.
type Server struct {
	reg     *vine.Registry
	forests *wire.Forests
	hosts   *wire.Hosts
	opt     Options
	log     *slog.Logger
	access  *slog.Logger
	metrics *metrics
	limits  *limiter
	mux     *http.ServeMux
	lanes   *lanes
	jobs    *jobs
	runs    runs     // answer calls being watched
	served  []string // POST names, sorted

	closeOnce sync.Once
}

// New returns the REST surface of reg.
func New(reg *vine.Registry, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Version == "" {
		o.Version = wire.Version()
	}
	if o.Readers <= 0 {
		o.Readers = DefaultReaders
	}
	if o.ModelConcurrency <= 0 {
		o.ModelConcurrency = 8
	}
	if o.MaxBody <= 0 {
		o.MaxBody = defaultMaxBody
	}
	s := &Server{reg: reg, forests: wire.NewForests(reg, "GET /v1/forests lists the forests this key may use"),
		opt: o, log: o.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.access = o.AccessLog
	if s.access == nil {
		s.access = slog.New(slog.DiscardHandler)
	}
	if o.Metrics != nil {
		s.metrics = newMetrics(o.Metrics)
	}
	s.limits = newLimiter(o.RateLimit)
	s.hosts = wire.LocalHostsAnyPort()
	if o.AllowedHosts != nil {
		s.hosts = wire.NewHosts(o.AllowedHosts)
	}
	s.lanes = newLanes(reg, o.OpenReader, o.Readers)
	s.jobs = newJobs(o.Batches)
	if s.metrics != nil {
		s.metrics.watch(s.lanes, s.jobs)
	}
	s.served = servedNames()
	s.opt.IngestRoots = ingestreq.ResolveRoots(o.IngestRoots)
	s.mux = s.routes()
	return s
}

// ServeHTTP opens the exchange (request id, clock), answers a CORS
// preflight, guards the request, then routes it; the access log and the
// metrics see every outcome.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w, r := begin(rw, r)
	defer s.end(w, r)
	if s.cors(w, r) {
		return
	}
	if status, e := s.guard(r); e != nil {
		writeEnvelope(w, status, e)
		return
	}
	if !cleanPath(r.URL.Path) {
		// ServeMux would redirect to the cleaned path; a path with ".."
		// or empty segments names no endpoint, and says so.
		s.noEndpoint(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close cancels running ingest jobs, waits for them to stop at their
// next step boundary, and closes every read-only instance. The served
// Registry is the caller's to close.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.jobs.stop()
		err = s.lanes.close()
	})
	return err
}

// guard is what a request must pass before any route, authentication
// included: the Host and Origin check (health aside), then the body type
// of a state-changing request. It runs on unknown paths too, so a
// rebinding page cannot even learn which endpoints exist.
func (s *Server) guard(r *http.Request) (int, *vine.Error) {
	if !isHealth(r) {
		if status, e := s.hosts.Check(s.withoutCORSOrigin(r)); e != nil {
			return status, e
		}
	}
	if isMultipartIngest(r) {
		return 0, nil
	}
	if e := wire.CheckBodyType(r); e != nil {
		return wire.BodyTypeStatus, e
	}
	return 0, nil
}

// isHealth reports a health probe. It skips the Host guard because it
// reports mcp.host_allowed for the Host it was sent (spec 08 §5), which
// a guard in front would make always true, and because it is harmless:
// counts, never ids, and no state touched. A GET has no body type.
func isHealth(r *http.Request) bool {
	return r.URL.Path == "/v1/health" && (r.Method == http.MethodGet || r.Method == http.MethodHead)
}
