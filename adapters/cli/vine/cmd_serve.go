// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/studio"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/payload"
)

func init() {
	registerCommand(serveCommand)
}

// shutdownGrace bounds how long in-flight HTTP calls may finish after
// the server is told to stop.
const shutdownGrace = 10 * time.Second

// serveConfig is what the serve flags decided.
type serveConfig struct {
	root     string // --forest or --forests
	registry bool   // --forests
	addr     string // --http; empty serves stdio
	hosts    []string
	readOnly bool
	keys     string // --keys: bearer keys for HTTP
	open     bool   // --open: every HTTP caller is the local owner
	noWarm   bool   // --no-warm: open forests on first use, not at boot
	warmSet  bool   // --no-warm was given, so it beats the environment

	fileRoot string // --file-root: file:// payloads are fetched only below it; "" serves no file://

	modelEndpoint string // --model-endpoint: a llama.cpp server binds the answer tool
	model         string // --model: its model name

	logLevel   slog.Level      // --log-level
	logJSON    bool            // --log-format json
	accessLog  bool            // --access-log: one line per HTTP request
	cors       []string        // --cors-origin
	metrics    bool            // --metrics: Prometheus at /v1/metrics
	ratePerSec float64         // --rate-limit: requests per second per key
	rateBurst  int             // --rate-burst
	snapshots  string          // --snapshots: where the maintenance routes keep snapshots
	embedder   canopy.Embedder // --embedder: hybrid locate and the Gauntlet
	follow     string          // --follow: the origin a read replica follows
	every      time.Duration   // --every: how often it syncs
	remote     vine.RemoteOptions
	origin     func() *vine.OriginStatus // the replica's view of its origin, for health
}

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve MCP over stdio, or MCP and REST over HTTP",
		UsageText: "vine serve (--forest DIR | --forests DIR) [--http ADDR (--keys FILE | --open) [--allow-host H,...] [--no-warm]] [--read-only] [--follow URL [--every 30s]] [--file-root DIR] [--model-endpoint URL --model M]",
		Description: `Without --http, serves MCP on stdin/stdout to the one user who started it.
With --http, serves REST at /v1/ and MCP at /mcp on one listener; callers
bring a key from the keys file (--keys, see "vine keys add"), or with --open
every caller is the local owner. Runs until SIGINT or SIGTERM.

HTTP also reads MONKEYLLM_STATION_ALLOWED_HOSTS, MONKEYLLM_STATION_WARM,
MONKEYLLM_STATION_READERS, MONKEYLLM_STATION_MODEL_CONCURRENCY and
MONKEYLLM_INGEST_ROOTS: see "Configuration" in the README.`,
		Flags: append([]cli.Flag{
			forestFlag(),
			&cli.StringFlag{Name: "forests", Usage: "serve every forest below `DIR` (registry mode)", TakesFile: true},
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (MCP at /mcp, REST at /v1/) instead of stdio"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "a `HOST` value HTTP clients may send (repeatable, or a comma list; \"*\" turns the check off)"},
			&cli.BoolFlag{Name: "read-only", Usage: "refuse every write with E_READONLY and take no writer lock"},
			&cli.StringFlag{Name: "keys", Usage: "HTTP: admit callers by the bearer keys in `FILE` (see vine keys add)", TakesFile: true},
			&cli.BoolFlag{Name: "open", Usage: "HTTP: admit every caller as the local owner, with no key (local use only)"},
			&cli.StringFlag{Name: "file-root", Usage: "fetch file:// payloads only from below `DIR` (default: file:// payloads are not served)", TakesFile: true},
			&cli.StringFlag{Name: "model-endpoint", Usage: "bind a llama.cpp server (OpenAI-compatible `URL`) and serve the answer tool"},
			&cli.StringFlag{Name: "model", Usage: "the model `NAME` at --model-endpoint"},
			&cli.BoolFlag{Name: "no-warm", Usage: "HTTP: open each forest on first use instead of at boot (also " + warmEnv + "=off)"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "log `LEVEL`: debug, info, warn or error"},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log `FORMAT`: text or json (one JSON object per line)"},
			&cli.BoolFlag{Name: "access-log", Usage: "HTTP: log one line per request (request id, tool, principal, status, ms)"},
			&cli.StringSliceFlag{Name: "cors-origin", Usage: "HTTP: a browser `ORIGIN` (scheme://host[:port]) allowed to call the REST API (repeatable)"},
			&cli.BoolFlag{Name: "metrics", Usage: "HTTP: serve Prometheus metrics at /v1/metrics"},
			&cli.FloatFlag{Name: "rate-limit", Usage: "HTTP: at most `N` requests per second per key (429 with Retry-After past it; 0 is no limit)"},
			&cli.IntFlag{Name: "rate-burst", Usage: "HTTP: requests a key may send at once under --rate-limit (default max(1, N))"},
			&cli.StringFlag{Name: "snapshots", Usage: "HTTP: `DIR` (outside every forest) where /v1/admin/snapshots keeps snapshot files"},
			&cli.StringFlag{Name: "follow", Usage: "serve --forest as a read-only replica of the git remote `URL` (cloned there when absent), kept up to date"},
			&cli.DurationFlag{Name: "every", Value: vine.DefaultFollowEvery, Usage: "with --follow: sync with the origin every `DURATION`"},
		}, append(embedFlags(), remoteFlags()...)...),
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdServe(ctx, c, envOf(c))) },
	}
}

// serveConfigOf reads and checks what the serve flags decided.
func serveConfigOf(cmd *cli.Command, stderr io.Writer) (serveConfig, bool) {
	c := serveConfig{
		addr: cmd.String("http"), readOnly: cmd.Bool("read-only"), keys: cmd.String("keys"), open: cmd.Bool("open"),
		noWarm: cmd.Bool("no-warm"), warmSet: cmd.IsSet("no-warm"), fileRoot: cmd.String("file-root"),
		modelEndpoint: cmd.String("model-endpoint"), model: cmd.String("model"),
		accessLog: cmd.Bool("access-log"), cors: cmd.StringSlice("cors-origin"), metrics: cmd.Bool("metrics"),
		ratePerSec: cmd.Float("rate-limit"), rateBurst: int(cmd.Int("rate-burst")), snapshots: cmd.String("snapshots"),
		follow: cmd.String("follow"), every: cmd.Duration("every"), remote: remoteOptions(cmd, nil),
	}
	if c.follow != "" {
		c.readOnly = true // a replica's callers never write; the follower does
	}
	emb, err := embedderOf(cmd)
	if err != nil {
		fmt.Fprintf(stderr, "vine serve: %v\n", err)
		return c, false
	}
	c.embedder = emb
	if !logSettings(cmd, &c, stderr) {
		return c, false
	}
	if cmd.IsSet("allow-host") {
		c.hosts = wire.ParseHosts(strings.Join(cmd.StringSlice("allow-host"), ","))
	}
	many := expandHome(cmd.String("forests"))
	single := expandHome(cmd.String("forest"))
	if many == "" && single == "" {
		single = forestDir(cmd) // the default forest, unless --forests names a directory of them
	}
	switch {
	case cmd.Args().Present():
		fmt.Fprintf(stderr, "vine serve: unexpected argument %q\n", cmd.Args().First())
	case (single == "") == (many == ""):
		fmt.Fprint(stderr, "vine serve: give exactly one of --forest DIR or --forests DIR\n")
	case c.addr == "" && (c.hosts != nil || c.keys != "" || c.open || c.warmSet || c.httpOnly()):
		fmt.Fprint(stderr, "vine serve: --allow-host, --keys, --open, --no-warm, --access-log, --cors-origin, --metrics and --rate-limit apply to --http only (stdio serves its own user)\n")
	case c.ratePerSec < 0 || c.rateBurst < 0:
		fmt.Fprint(stderr, "vine serve: --rate-limit and --rate-burst take a number >= 0\n")
	case (c.modelEndpoint == "") != (c.model == ""):
		fmt.Fprint(stderr, "vine serve: --model-endpoint and --model go together\n")
	case c.addr != "" && (c.keys == "") == !c.open:
		fmt.Fprint(stderr, "vine serve: --http needs exactly one of --keys FILE (callers bring a key) or --open (every caller is the owner)\n")
	case c.follow != "" && many != "":
		fmt.Fprint(stderr, "vine serve: --follow serves one replica: use it with --forest DIR\n")
	case c.every <= 0:
		fmt.Fprint(stderr, "vine serve: --every takes a positive duration\n")
	case c.fileRoot != "" && !isDir(c.fileRoot):
		fmt.Fprintf(stderr, "vine serve: --file-root %s is not a directory\n", c.fileRoot)
	default:
		c.root, c.registry = single+many, many != ""
		if c.fileRoot != "" {
			c.fileRoot, _ = filepath.Abs(c.fileRoot)
		}
		return c, true
	}
	return c, false
}

// cmdServe serves the forest (or the directory of forests) until ctx
// ends or the process gets SIGINT/SIGTERM: MCP over stdio by default;
// with --http, the REST surface at /v1/ and MCP at /mcp on one listener,
// every caller admitted by its key (--keys) or as the owner (--open).
func cmdServe(ctx context.Context, cmd *cli.Command, e env) int {
	c, ok := serveConfigOf(cmd, e.stderr)
	if !ok {
		return exitUsage
	}
	if !c.registry {
		if root := forestRootAbove(c.root); root != "" {
			fmt.Fprintf(e.stderr, "vine serve: %s is a branch folder of the forest at %s; serve --forest %s\n", c.root, root, root)
			return exitFailure
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := c.logger(e.stderr)
	if c.follow != "" {
		if err := cloneReplica(ctx, c, log); err != nil {
			return fail(e.stdout, e.stderr, "serve", err)
		}
	}
	reg, err := openRegistry(c, &vine.Options{ReadOnly: c.readOnly, Logger: log, Observer: rest.TimingObserver{},
		Fetcher: servedFetcher(c.fileRoot), Embedder: c.embedder})
	if err != nil {
		fmt.Fprintf(e.stderr, "vine serve: %v\n", err)
		return exitFailure
	}
	defer reg.Close()
	if c.follow != "" {
		v, err := reg.Forest(ctx, "")
		if err != nil {
			fmt.Fprintf(e.stderr, "vine serve: %v\n", err)
			return exitFailure
		}
		c.origin = v.Origin
		go follow(ctx, v, c, log)
	}
	if c.modelEndpoint != "" {
		// Before any server is built: MCP reads its tool list once.
		ans, err := bindAnswer(c)
		if err != nil {
			fmt.Fprintf(e.stderr, "vine serve: %v\n", err)
			return exitFailure
		}
		defer ans.Close()
	}
	opts := &mcp.Options{Logger: log}
	batches := ingestreq.NewBatches() // REST jobs and the MCP tool: one batch per forest
	if !c.readOnly {
		opts.Ingest = &mcp.IngestOptions{Batches: batches}
	}
	if c.addr == "" {
		err = serveStdio(ctx, reg, opts, e)
	} else {
		err = serveHTTP(ctx, reg, opts, c, log)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "vine serve: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// servedFetcher is the payload fetcher of a served forest. Every caller of
// a server reaches it through an access policy, and a passport is content
// any writer controls: file:// is served only below the root the operator
// named (--file-root), and not at all by default, so no passport can copy
// an arbitrary host file (another forest's catalog) into a caller's reach.
func servedFetcher(fileRoot string) payload.Fetcher {
	reg := payloadFetcher()
	delete(reg, "file")
	if fileRoot != "" {
		reg["file"] = payload.FileFetcher{Root: fileRoot}
	}
	return reg
}

// openRegistry serves c.root in the mode the flag named: --forest must be
// a forest, --forests a directory of them.
func openRegistry(c serveConfig, opts *vine.Options) (*vine.Registry, error) {
	reg, err := vine.NewRegistry(c.root, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case c.registry && reg.Mode() == vine.ModeSingle:
		return nil, fmt.Errorf("%s is itself a forest: serve it with --forest", c.root)
	case !c.registry && reg.Mode() == vine.ModeRegistry:
		return nil, fmt.Errorf("%s is not a forest (no _index.md): create one with vine init, or serve a directory of forests with --forests", c.root)
	}
	return reg, nil
}

func serveStdio(ctx context.Context, reg *vine.Registry, opts *mcp.Options, e env) error {
	t := mcp.StdioTransport(e.stdin, e.stdout)
	err := mcp.NewServer(reg, opts).Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // stopped, or the client hung up: both are a normal end
	}
	return err
}

// Environment of the HTTP station (spec 08 §8, 06 §17).
const (
	readersEnv     = "MONKEYLLM_STATION_READERS"
	modelEnv       = "MONKEYLLM_STATION_MODEL_CONCURRENCY"
	ingestRootsEnv = "MONKEYLLM_INGEST_ROOTS"
)

func serveHTTP(ctx context.Context, reg *vine.Registry, opts *mcp.Options, c serveConfig, log *slog.Logger) error {
	resolver, err := httpKeys(c, log)
	if err != nil {
		return err
	}
	roots, err := ingestRoots(os.Getenv(ingestRootsEnv), c.root)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	hosts := effectiveHosts(c.hosts, ln.Addr())
	warnHosts(log, hosts)
	opts.AllowedHosts = hosts
	opts.Keys = resolver
	// REST and MCP share one allow-list: a Host refused on one is refused
	// on the other, and health reports what /mcp would do.
	ropts := &rest.Options{AllowedHosts: hosts, Keys: resolver, ReadOnly: c.readOnly, MCP: wire.NewHosts(hosts), Logger: log,
		IngestRoots: roots, ModelConcurrency: envInt(modelEnv, 8), CORSOrigins: c.cors, SnapshotDir: c.snapshots}
	if opts.Ingest != nil {
		ropts.Batches = opts.Ingest.Batches
		opts.Ingest.Roots = roots
	}
	c.observability(ropts, log)
	if c.origin != nil {
		ropts.HealthFields = func(*http.Request) map[string]any { return map[string]any{"origin": c.origin()} }
	}
	if n := envInt(readersEnv, rest.DefaultReaders); n > 0 {
		ropts.Readers = n
		ropts.OpenReader = func() (*vine.Registry, error) {
			return vine.NewRegistry(c.root, &vine.Options{ReadOnly: true, Logger: log, Observer: rest.TimingObserver{},
				Fetcher: servedFetcher(c.fileRoot), Embedder: c.embedder})
		}
	}
	if warm(c) {
		warmForests(ctx, reg, log)
	}
	api := rest.New(reg, ropts)
	defer api.Close()
	base := "http://" + ln.Addr().String()
	log.Info("serving", "url", base+"/mcp", "rest", base+"/v1/", "mode", reg.Mode(), "keys", c.keys != "")
	return serveUntilDone(ctx, serveMux(reg, opts, api), ln, log)
}

// warmEnv turns boot warming off with 0, false, no or off.
const warmEnv = "MONKEYLLM_STATION_WARM"

// warm reports whether to open every forest at boot: the flag beats the
// environment, and warming is on unless one of them turns it off.
func warm(c serveConfig) bool {
	if c.warmSet {
		return !c.noWarm
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv(warmEnv))) {
	case "0", "false", "no", "off":
		return false
	}
	return true
}

// warmForests opens (and so warms) every listed forest's writer, so the
// first caller does not pay for it (J.6.1). Best effort: a forest that
// will not open is logged and skipped, and the rest are served.
func warmForests(ctx context.Context, reg *vine.Registry, log *slog.Logger) {
	for _, f := range reg.List().Forests {
		if _, err := reg.Forest(ctx, f.ID); err != nil {
			log.Warn("forest not warmed; it opens on first use", "forest", f.ID, "err", vine.AsError("warm", err).Message)
		}
	}
}

// httpKeys is how HTTP callers are admitted: by the keys file, or with
// --open as the local owner. A keys file that does not parse stops the
// server before it listens, naming the file and the fault: serving with
// no key, or with some, would hide the mistake. Once serving, the store
// logs a broken edit to log and keeps the keys it has.
func httpKeys(c serveConfig, log *slog.Logger) (keys.Resolver, error) {
	if c.open {
		return keys.Open, nil
	}
	store, err := keys.NewStore(c.keys, &keys.StoreOptions{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--keys: %w; not serving until the file is fixed", err)
	}
	return store, nil
}

// envInt reads a non-negative count from the environment; unset or
// unparsable is def (a typo must not turn the pool off).
func envInt(name string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(os.Getenv(name)))
	if err != nil || n < 0 {
		return def
	}
	return n
}

// ingestRoots are the host directories ingest may read (J.8.2): the
// path list in list, each of which must exist, and none the served
// directory or one of its ancestors (that would let ingest read forests).
func ingestRoots(list, served string) ([]string, error) {
	servedReal, err := filepath.EvalSymlinks(served)
	if err != nil {
		return nil, err
	}
	servedReal, _ = filepath.Abs(servedReal)
	var out []string
	for _, r := range filepath.SplitList(list) {
		if strings.TrimSpace(r) == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(r)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s does not exist", ingestRootsEnv, r)
		}
		if rel, err := filepath.Rel(real, servedReal); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return nil, fmt.Errorf("%s: %s holds the served forests; an ingest root must lie outside them", ingestRootsEnv, r)
		}
		out = append(out, real)
	}
	return out, nil
}

// serveMux is every HTTP route the server answers: MCP at /mcp, REST
// under /v1/, the Studio console for the rest, all behind the security
// headers of 09 §13 (studio.Guard). REST gets its paths as sent: ServeMux would answer a path
// with ".." by redirecting to a cleaned one, where REST refuses it as no
// endpoint.
func serveMux(reg *vine.Registry, opts *mcp.Options, api http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.Handler(reg, opts))
	mux.Handle("/", studio.New()) // the console, after the API and /mcp (09 §13)
	return studio.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == "/v1" {
			api.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// effectiveHosts is the Host allow-list: the flag, else the environment,
// else the local names with the port actually listened on.
func effectiveHosts(flagged []string, addr net.Addr) []string {
	if flagged != nil {
		return flagged
	}
	if env := wire.ParseHosts(os.Getenv(wire.HostsEnv)); env != nil {
		return env
	}
	_, port, _ := net.SplitHostPort(addr.String())
	return wire.LocalHosts(port)
}

// warnHosts tells the operator at boot what the guard will do to a
// remote client, judged on the effective list.
func warnHosts(log *slog.Logger, hosts []string) {
	h := wire.NewHosts(hosts)
	switch {
	case h.Wildcard():
		log.Warn(`Host allow-list contains "*": Host and Origin checks are off; the server is open to DNS rebinding`)
	case h.LocalOnly():
		log.Warn("Host allow-list is local only: clients reaching this server by another name get 421",
			"set", "--allow-host or "+wire.HostsEnv, "allowed", strings.Join(hosts, ","))
	}
}

// bindAnswer registers the answer composite over the llama.cpp server the
// flags name: without a model it is not served at all.
func bindAnswer(c serveConfig) (*answer.Answerer, error) {
	client, err := chatBinding{endpoint: c.modelEndpoint, model: c.model}.client()
	if err != nil {
		return nil, err
	}
	return answer.Register(answer.LlamaCpp(client),
		&answer.Options{Binding: answer.Binding{Provider: "llamacpp", Model: c.model}})
}

// isDir reports whether p names a directory.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// httpOnly reports whether a flag that only HTTP serves was given.
func (c serveConfig) httpOnly() bool {
	return c.accessLog || len(c.cors) > 0 || c.metrics || c.ratePerSec > 0 || c.rateBurst > 0
}

// logSettings reads --log-level and --log-format into c; false after
// telling stderr what is wrong.
func logSettings(cmd *cli.Command, c *serveConfig, stderr io.Writer) bool {
	if err := c.logLevel.UnmarshalText([]byte(cmd.String("log-level"))); err != nil {
		fmt.Fprintf(stderr, "vine serve: --log-level %q: want debug, info, warn or error\n", cmd.String("log-level"))
		return false
	}
	switch f := cmd.String("log-format"); f {
	case "text", "json":
		c.logJSON = f == "json"
		return true
	default:
		fmt.Fprintf(stderr, "vine serve: --log-format %q: want text or json\n", f)
		return false
	}
}

// logger is the server's log on w, at the level and in the format the
// flags chose.
func (c serveConfig) logger(w io.Writer) *slog.Logger {
	o := &slog.HandlerOptions{Level: c.logLevel}
	if c.logJSON {
		return slog.New(slog.NewJSONHandler(w, o))
	}
	return slog.New(slog.NewTextHandler(w, o))
}

// observability sets the REST surface's access log, metrics registry
// and rate limit from the flags.
func (c serveConfig) observability(o *rest.Options, log *slog.Logger) {
	if c.accessLog {
		o.AccessLog = log.With("log", "access")
	}
	if c.metrics {
		m := prometheus.NewRegistry()
		m.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		o.Metrics = m
	}
	if c.ratePerSec > 0 {
		o.RateLimit = &rest.RateLimit{PerSecond: c.ratePerSec, Burst: c.rateBurst}
	}
}

// cloneReplica clones the --follow origin into --forest unless a forest is
// there already (a replica restarting).
func cloneReplica(ctx context.Context, c serveConfig, log *slog.Logger) error {
	if isDir(c.root) {
		if ents, err := os.ReadDir(c.root); err == nil && len(ents) > 0 {
			return sameOrigin(ctx, c)
		}
	}
	res, err := vine.Clone(ctx, c.follow, c.root, c.remote)
	if err != nil {
		return err
	}
	log.Info("cloned the replica", "dir", res.Dir, "head", res.Head, "nodes", res.Nodes, "payloads_missing", len(res.PayloadsMissing))
	return nil
}

// sameOrigin refuses to follow URL with a replica that records another
// origin: the follower fetches the remote the forest names.
func sameOrigin(ctx context.Context, c serveConfig) error {
	v, err := vine.Open(ctx, c.root, &vine.Options{ReadOnly: true, SkipAutoIndex: true})
	if err != nil {
		return err
	}
	defer v.Close()
	rs, err := v.Remotes()
	if err != nil {
		return err
	}
	name := firstOf(c.remote.Remote, "origin")
	for _, r := range rs {
		if r.Name == name && r.URL == c.follow {
			return nil
		}
	}
	return &vine.Error{Code: vine.ESchema,
		Message: fmt.Sprintf("the forest at %s does not record %s as its remote %q", c.root, c.follow, name),
		Hint:    "set it first (vine remote set " + name + " URL --forest DIR), or follow into a new directory"}
}

// follow keeps the replica in step with its origin until ctx ends.
func follow(ctx context.Context, v *vine.Vine, c serveConfig, log *slog.Logger) {
	_ = v.Follow(ctx, vine.FollowOptions{RemoteOptions: c.remote, Every: c.every,
		Synced: func(res *vine.PullResult, err error) {
			switch {
			case err != nil:
				log.Warn("replica sync failed; retrying at the next tick", "err", err)
			case res.Kind != "up-to-date":
				log.Info("replica synced", "kind", res.Kind, "head", res.Head, "written", len(res.Written), "removed", len(res.Removed))
			}
		}})
}
