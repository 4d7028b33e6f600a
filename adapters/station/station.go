// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/clipper"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/audit"
	"github.com/monkeyllm/vine/adapters/station/destination"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/adapters/station/quota"
	"github.com/monkeyllm/vine/adapters/station/registry"
	"github.com/monkeyllm/vine/adapters/station/webhooks"
	"github.com/monkeyllm/vine/adapters/studio"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/ext/worker"
)

// Options configure a Station. Root and Registry are required; the rest
// have the defaults of spec 09 §14.
type Options struct {
	// Root is the directory of forests served (every subdirectory that is
	// a forest), the /forests volume.
	Root string
	// Registry is the host registry file, the /registry volume; its
	// folder also keeps the snapshots (<folder>/snapshots/<forest>/).
	Registry string
	// Writable serves writes, ingest and forest creation; off (the
	// default) answers them E_READONLY up front.
	Writable bool
	// BreakGlass is the environment's administrator, never stored.
	BreakGlass registry.BreakGlass
	// BootstrapKey mints the owner's key inside the setup window.
	BootstrapKey bool
	// AllowedHosts is the Host allow-list of every route and /mcp; nil is
	// the local names.
	AllowedHosts []string
	// TrustedProxies are the peers whose X-Forwarded-For is believed
	// when judging a client's host (rate limits, audit).
	TrustedProxies []netip.Prefix
	// AllowPrivateDestinations lets webhooks, provider tests and the git
	// remotes a forest admin names (the owner is never checked) reach
	// loopback, private, link-local and reserved addresses, as
	// MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE does; off, such a
	// destination is refused when named and when dialled.
	AllowPrivateDestinations bool
	// EnvProviders are the model providers the environment declares
	// (MONKEYLLM_LLM_*, MONKEYLLM_EMBED_*), published at boot with
	// origin "env", their keys kept in memory only.
	EnvProviders []providers.EnvProvider
	// Origin, when set, is a read replica's view of the git remote it
	// follows (vine.Vine.Origin); GET /v1/health carries it as "origin".
	Origin func() *vine.OriginStatus
	// AuditRetainDays prunes audit rows older than this; 0 keeps them.
	AuditRetainDays int
	// Readers is the reader pool per forest; 0 is rest.DefaultReaders.
	Readers int
	// Version is reported by health and the listings; "" is the build's.
	Version string
	// Answer, when set, binds the answer composite: it is called once,
	// before the surfaces are built, with the per-forest store settings
	// the Station keeps (pass them as answer.Options.StoreSettings), and
	// the Answerer it returns serves /v1/admin/cache. The Station closes
	// it.
	Answer func(store func(context.Context, *vine.Vine) answer.StoreOptions) (*answer.Answerer, error)
	// AnswerWith, when set, binds the answer composite instead of Answer,
	// given the answer.Options the Station fills: each forest's store
	// settings (StoreSettings) and model (ModelFor: the forest's answer
	// binding). The host adds a fallback model or none — a forest without
	// a binding is then refused — and registers (answer.Register). The
	// Station closes the Answerer.
	AnswerWith func(base answer.Options) (*answer.Answerer, error)
	// IngestRoots are the host directories adopt and sync may read
	// (MONKEYLLM_INGEST_ROOTS, 06 §17); none means every host path is
	// refused and only uploads and composes ingest.
	IngestRoots []string
	// Extensions is the host's install home (spec 11); nil leaves the
	// extension loader inert: the routes list none and refuse installs.
	Extensions *install.Home
	// ExtWorker configures the extension workers (the worker clock,
	// MONKEYLLM_EXT_WORKER_TIMEOUT).
	ExtWorker worker.Options
	// ExtTrust is what extension signatures and the index are weighed
	// with (the forge keys, MONKEYLLM_EXT_INDEX and its key).
	ExtTrust install.Trust
	// ExtUploadMaxMB caps an extension uploaded from a browser, refused
	// before it is written (MONKEYLLM_STATION_EXT_UPLOAD_MAX_MB); 0 is 25.
	ExtUploadMaxMB int
	// ClipperDir, when set, is the Clipper extension directory served as
	// /clipper.zip instead of the embedded one
	// (MONKEYLLM_STATION_CLIPPER_DIR); a directory without manifest.json
	// ships no Clipper (404).
	ClipperDir string
	// Now is the clock of the registry, the audit and the door windows.
	Now func() time.Time
	// Logger receives what never reaches the wire; AccessLog, when set,
	// one line per request.
	Logger    *slog.Logger
	AccessLog *slog.Logger
}

// Server is a running Station: the host registry, the audit log, the
// forests, and the HTTP surfaces over them.
type Server struct {
	opt      Options
	now      func() time.Time
	log      *slog.Logger
	reg      *registry.Registry
	audit    *audit.Log
	hooks    *webhooks.Hooks  // nil until the registry is open
	models   *providers.Store // providers and model bindings; nil until the registry is open
	clients  modelClients     // the bound models' clients
	forests  *vine.Registry
	api      *rest.Server
	mcp      http.Handler
	doors    *failureLimiter
	answerer *answer.Answerer
	handler  http.Handler
	clipper  *clipper.Handler
	shares   shareDesk
	exts     *worker.Pool // the extension workers; nil without an install home
	extEv    *extEvents   // the events seam's queue; nil without an install home
	quotas   *quota.Store // what extensions may spend on models, per forest

	bootstrap *registry.Minted // minted at this boot, for the announcement
}

// New opens the registry and the forests and builds the surfaces, in the
// boot order of 09 §14. Starting mints nothing unless BootstrapKey asks,
// inside the setup window.
func New(ctx context.Context, opt Options) (*Server, error) {
	if opt.Root == "" || opt.Registry == "" {
		return nil, errors.New("station: Root and Registry are required")
	}
	s := &Server{opt: opt, now: opt.Now, log: opt.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if opt.Extensions != nil {
		wopt := opt.ExtWorker
		if wopt.HostVersion == "" {
			wopt.HostVersion = firstNonEmpty(opt.Version, wire.Version())
		}
		if wopt.Logger == nil {
			wopt.Logger = s.log
		}
		wopt.Host = extHost{s}
		s.exts = worker.NewPool(wopt)
		s.startExtEvents()
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.doors = newFailureLimiter(s.now)
	var err error
	if s.clipper, err = clipper.New(opt.ClipperDir); err != nil {
		return nil, fmt.Errorf("station: the Clipper directory: %w", err)
	}
	if s.forests, err = vine.NewRegistry(opt.Root, &vine.Options{ReadOnly: !opt.Writable, Logger: s.log,
		Observer: rest.TimingObserver{}, OnEvent: s.onEvent, Opened: s.attachModels}); err != nil {
		return nil, err
	}
	if err := s.openRegistry(ctx); err != nil {
		s.forests.Close()
		return nil, err
	}
	if opt.AnswerWith != nil || opt.Answer != nil {
		if s.answerer, err = s.bindAnswer(); err != nil {
			errors.Join(s.hooks.Close(), s.audit.Close(), s.reg.Close(), s.forests.Close())
			return nil, err
		}
	}
	s.build()
	return s, nil
}

// openRegistry opens the host registry and its audit table, and spends
// the setup window on a bootstrap key when asked.
func (s *Server) openRegistry(ctx context.Context) error {
	ids := []string{}
	for _, f := range s.forests.List().Forests {
		ids = append(ids, f.ID)
	}
	var err error
	s.reg, err = registry.Open(ctx, s.opt.Registry, &registry.Options{Now: s.opt.Now, BreakGlass: s.opt.BreakGlass,
		Forests: ids, Logger: s.log})
	if err != nil {
		return err
	}
	s.audit, err = audit.New(ctx, s.reg.DB(), &audit.Options{RetainDays: s.opt.AuditRetainDays, Now: s.opt.Now, Logger: s.log})
	if err != nil {
		s.reg.Close()
		return err
	}
	if err := s.openShares(ctx); err != nil {
		errors.Join(s.audit.Close(), s.reg.Close())
		return err
	}
	if s.hooks, err = webhooks.New(ctx, s.reg.DB(), &webhooks.Options{Registry: s.reg, Forests: s.forests,
		Recorder: s.audit, AllowPrivate: s.opt.AllowPrivateDestinations, Now: s.opt.Now, Logger: s.log}); err != nil {
		s.audit.Close()
		s.reg.Close()
		return err
	}
	if s.models, err = providers.Open(ctx, s.reg.DB(), providers.Options{Now: s.opt.Now, RepairedFrom: s.reg.RepairedFrom(),
		Env: s.opt.EnvProviders, AllowPrivate: s.opt.AllowPrivateDestinations}); err != nil {
		errors.Join(s.hooks.Close(), s.audit.Close(), s.reg.Close())
		return err
	}
	if s.quotas, err = quota.Open(ctx, s.reg.DB(), &quota.Options{Now: s.opt.Now}); err != nil {
		errors.Join(s.hooks.Close(), s.audit.Close(), s.reg.Close())
		return err
	}
	if s.opt.Extensions != nil {
		s.models.SetExtraRoles(s.extRoles)
	}
	if s.opt.BootstrapKey {
		m, err := s.reg.BootstrapKey(ctx)
		switch {
		case err == nil:
			s.bootstrap = &m
		case errors.Is(err, registry.ErrSetupClosed):
			s.log.Info("station: --bootstrap-key minted nothing: a credential exists; use \"vine station key\" or People")
		default:
			s.hooks.Close()
			s.audit.Close()
			s.reg.Close()
			return err
		}
	}
	return nil
}

// build assembles REST (with the host's routes), MCP and the headers.
func (s *Server) build() {
	ropts := &rest.Options{Version: s.opt.Version, AllowedHosts: s.opt.AllowedHosts, Keys: s.reg,
		ReadOnly: !s.opt.Writable, MCP: wire.NewHosts(s.hostsOrLocal()), Logger: s.log, AccessLog: s.opt.AccessLog,
		Recorder: s.audit, Granter: granter{s.reg}, OnEvent: s.onEvent, Routes: s.routes(), HealthFields: s.healthFields,
		SnapshotDir: filepath.Join(filepath.Dir(s.opt.Registry), "snapshots"), Readers: s.opt.Readers, Gauntlet: gauntletSwitch{s},
		GardenerFor: s.gardenerFor, IngestRoots: s.opt.IngestRoots,
		RemoteDestination: func(ctx context.Context, url string) error {
			return destination.CheckGit(ctx, url, s.opt.AllowPrivateDestinations, nil)
		},
		OpenReader: func() (*vine.Registry, error) {
			return vine.NewRegistry(s.opt.Root, &vine.Options{ReadOnly: true, Logger: s.log, Observer: rest.TimingObserver{},
				Opened: s.attachModels})
		}}
	// One record of running batches: REST jobs and the MCP ingest tool
	// never run two at once on one forest.
	batches := ingestreq.NewBatches()
	ropts.Batches = batches
	s.api = rest.New(s.forests, ropts)
	mopts := &mcp.Options{Version: s.opt.Version, AllowedHosts: s.opt.AllowedHosts,
		Logger: s.log, Keys: s.reg, Recorder: s.audit}
	if s.exts != nil {
		mopts.Extensions = extTools{s}
	}
	if s.opt.Writable {
		mopts.Ingest = &mcp.IngestOptions{Batches: batches, GardenerFor: s.gardenerFor, Roots: s.opt.IngestRoots}
	}
	s.mcp = mcp.Handler(s.forests, mopts)
	mux := http.NewServeMux()
	// 09 §13's order: the API (its /v1 catch-all included, and the host
	// routes outside /v1 such as /s/{token}), /mcp, /clipper.zip, then the console,
	// which answers everything else.
	mux.Handle("/v1", s.api)
	mux.Handle("/v1/", s.api)
	for _, rt := range ropts.Routes {
		if !strings.HasPrefix(rt.Path, "/v1/") {
			mux.Handle(rt.Method+" "+rt.Path, s.api)
		}
	}
	mux.Handle("/mcp", s.mcp)
	mux.Handle("/clipper.zip", s.clipper)
	// The address the Studio's Skills and Integrations consoles teach
	// (10 §6.13: claude mcp add … <origin>/mcp/) is the same endpoint;
	// only the exact path, so /mcp/anything stays outside the mount.
	mux.Handle("/mcp/{$}", s.mcp)
	mux.Handle("/", studio.New())
	s.handler = studio.Guard(mux)
}

// hostsOrLocal is the allow-list health reports /mcp by.
func (s *Server) hostsOrLocal() []string {
	if s.opt.AllowedHosts != nil {
		return s.opt.AllowedHosts
	}
	return []string{"localhost", "127.0.0.1", "[::1]"}
}

// ServeHTTP serves every route of the Station.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close stops the jobs, drains the audit log and closes the registry and
// the forests, in that order.
func (s *Server) Close() error {
	var ans error
	if s.answerer != nil {
		ans = s.answerer.Close()
	}
	if s.exts != nil {
		s.stopExtEvents()
		s.exts.Close()
	}
	return errors.Join(s.api.Close(), ans, s.hooks.Close(), s.audit.Close(), s.reg.Close(), s.forests.Close())
}

// Registry is the host registry, for the CLI's key and grant commands
// run beside a server.
func (s *Server) Registry() *registry.Registry { return s.reg }

// Announce prints what an operator needs to know at boot (09 §4), every
// line prefixed "station: ": the bootstrap key once, how to sign in with
// the environment account (never its password), or that setup is open;
// nothing at all once any credential exists.
func (s *Server) Announce(ctx context.Context, w io.Writer, consoleURL string) error {
	say := func(format string, a ...any) { fmt.Fprintf(w, "station: "+format+"\n", a...) }
	switch {
	case s.bootstrap != nil:
		say("console: %s", consoleURL)
		say("principal %q is the owner; its key (shown once, only its digest is kept):", s.bootstrap.Key.Principal)
		say("  %s", s.bootstrap.Secret)
		say("setup is now closed")
	case s.reg.BreakGlassConfigured():
		say("console: %s", consoleURL)
		say("sign in as %q with the password in MONKEYLLM_STATION_PASSWORD", s.opt.BreakGlass.User)
	default:
		open, err := s.reg.SetupOpen(ctx)
		if err != nil {
			return err
		}
		if open {
			say("WARNING: setup is open: the first visitor to %s creates the owner", consoleURL)
			say("open it now, or restart with --bootstrap-key (MONKEYLLM_STATION_BOOTSTRAP_KEY=1) to mint the owner's key instead")
		}
	}
	return nil
}

// ConsoleURL is the address an operator opens for a listen address,
// with an unspecified host shown as localhost.
func ConsoleURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, ""
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	if port == "" {
		return "http://" + host + "/"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// granter grants a forest's creator every capability on it.
type granter struct{ reg *registry.Registry }

func (g granter) GrantAll(ctx context.Context, principal, forest string) error {
	_, err := g.reg.SetGrant(ctx, principal, registry.Grant{Forest: forest, Allow: []string{""}, Caps: keys.AllCaps})
	return err
}

// govern writes the audit row of a governance act (09 §9, J.4.1), which
// no surface records for the host: never a secret in args.
func (s *Server) govern(r *http.Request, principal, forest, action string, args map[string]any, result record.Result) {
	s.governVia(r, principal, forest, action, "", args, result)
}

// governVia is govern for an act an extension was in the path of: via is
// the extension's id (record.Via builds the column), "" for none.
func (s *Server) governVia(r *http.Request, principal, forest, action, via string, args map[string]any, result record.Result) {
	if forest == "" {
		forest = record.NoForest
	}
	if principal == "" {
		principal = "-"
	}
	s.audit.Record(r.Context(), record.Call{Time: s.now(), Principal: principal, Forest: forest, Primitive: action,
		Args: record.DigestValues(action, args), Result: result, Via: record.Via(via)})
}
