// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/station"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/adapters/station/registry"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/ext/install"
)

func init() {
	registerCommand(stationCommand)
}

// The Station's settings from the environment (spec 09 §14).
const (
	stationRootEnv      = "MONKEYLLM_STATION_ROOT"
	stationRegistryEnv  = "MONKEYLLM_STATION_REGISTRY"
	stationAdminEnv     = "MONKEYLLM_STATION_ADMIN"
	stationPasswordEnv  = "MONKEYLLM_STATION_PASSWORD"
	stationBootstrapEnv = "MONKEYLLM_STATION_BOOTSTRAP_KEY"
	stationAuditDaysEnv = "MONKEYLLM_STATION_AUDIT_DAYS"
	stationProxiesEnv   = "MONKEYLLM_STATION_TRUSTED_PROXIES"
	stationPrivateEnv   = "MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE"
	stationExtUploadEnv = "MONKEYLLM_STATION_EXT_UPLOAD_MAX_MB"
	stationClipperEnv   = "MONKEYLLM_STATION_CLIPPER_DIR"
)

// stationExtensions opens the install home ($MONKEYLLM_EXT_HOME, else
// ~/.monkeyllm/extensions) and reads the worker clock and the upload
// ceiling; a value that is not a number refuses to boot.
func stationExtensions(c *cli.Command, opt *station.Options) error {
	home, err := install.Open(extHomeDir(c))
	if err != nil {
		return err
	}
	opt.Extensions = home
	if opt.ExtWorker, err = extWorkerOptions(); err != nil {
		return err
	}
	if opt.ExtTrust, err = extTrust(); err != nil {
		return err
	}
	if raw := os.Getenv(stationExtUploadEnv); raw != "" {
		mb, err := strconv.Atoi(raw)
		if err != nil || mb <= 0 {
			return fmt.Errorf("%s=%q: want a whole number of megabytes", stationExtUploadEnv, raw)
		}
		opt.ExtUploadMaxMB = mb
	}
	return nil
}

// stationCommand is "vine station serve|key|grants": the multi-user host
// (spec 09) in the same binary; the keys-file mode of "vine serve --keys"
// stays for small setups.
func stationCommand() *cli.Command {
	return &cli.Command{
		Name:      "station",
		Usage:     "serve forests to many people: identity, grants, audit (spec 09)",
		UsageText: "vine station serve|key|grants ...",
		Description: `serve runs the Station: REST at /v1/, MCP at /mcp, the doors under /v1/auth
and the governance routes under /v1/admin, over a directory of forests and a
host registry file. key and grants work on the registry file directly.`,
		Commands: []*cli.Command{stationServeCommand(), stationKeyCommand(), stationGrantsCommand()},
		Action: func(_ context.Context, c *cli.Command) error {
			fmt.Fprint(envOf(c).stderr, "vine station: give serve, key or grants\n")
			return exitCode(exitUsage)
		},
	}
}

// registryFlag is --registry FILE, with the spec's default.
func registryFlag() cli.Flag {
	return &cli.StringFlag{Name: "registry", Usage: "the host registry `FILE` (default: $MONKEYLLM_STATION_REGISTRY, then /registry/station.db)", TakesFile: true}
}

func registryPath(c *cli.Command) string {
	return firstOf(c.String("registry"), os.Getenv(stationRegistryEnv), "/registry/station.db")
}

func firstOf(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

func stationServeCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "run the Station until SIGINT or SIGTERM",
		UsageText: "vine station serve [--root DIR] [--registry FILE] [--host H] [--port N] [--writable] [--bootstrap-key]",
		Description: `Also reads MONKEYLLM_STATION_ADMIN and MONKEYLLM_STATION_PASSWORD (the
break-glass account, never stored), MONKEYLLM_STATION_ALLOWED_HOSTS,
MONKEYLLM_STATION_AUDIT_DAYS, MONKEYLLM_STATION_TRUSTED_PROXIES and
MONKEYLLM_STATION_CLIPPER_DIR: see the README.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Usage: "the `DIR` of forests (default: $MONKEYLLM_STATION_ROOT, then /forests)", TakesFile: true},
			registryFlag(),
			&cli.StringFlag{Name: "host", Value: "127.0.0.1", Usage: "listen on `HOST` (the image uses 0.0.0.0)"},
			&cli.IntFlag{Name: "port", Value: 8800, Usage: "listen on `PORT`"},
			&cli.BoolFlag{Name: "writable", Usage: "serve writes, ingest and forest creation (off: E_READONLY)"},
			&cli.BoolFlag{Name: "bootstrap-key", Usage: "mint the owner's key if setup is still open (also $MONKEYLLM_STATION_BOOTSTRAP_KEY=1)"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "a `HOST` value clients may send (repeatable; default: $MONKEYLLM_STATION_ALLOWED_HOSTS, then local names)"},
			&cli.BoolFlag{Name: "access-log", Usage: "log one line per request"},
			&cli.StringFlag{Name: "model-endpoint", Usage: "answer with this llama.cpp server (OpenAI-compatible `URL`) where a forest binds no answer model"},
			&cli.StringFlag{Name: "model", Usage: "the model `NAME` at --model-endpoint"},
		},
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdStationServe(ctx, c, envOf(c))) },
	}
}

func cmdStationServe(ctx context.Context, c *cli.Command, e env) int {
	opt, err := stationOptions(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine station serve: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	addr := net.JoinHostPort(c.String("host"), strconv.Itoa(int(c.Int("port"))))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine station serve: %v\n", err)
		return exitFailure
	}
	if opt.AllowedHosts == nil {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		opt.AllowedHosts = wire.LocalHosts(port)
	}
	s, err := station.New(ctx, opt)
	if err != nil {
		ln.Close()
		fmt.Fprintf(e.stderr, "vine station serve: %v\n", err)
		return exitFailure
	}
	defer s.Close()
	if err := s.Announce(ctx, e.stdout, station.ConsoleURL(ln.Addr().String())); err != nil {
		fmt.Fprintf(e.stderr, "vine station serve: %v\n", err)
	}
	if err := serveUntilDone(ctx, s, ln, opt.Logger); err != nil {
		fmt.Fprintf(e.stderr, "vine station serve: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// stationOptions reads the flags and the environment.
func stationOptions(c *cli.Command) (station.Options, error) {
	opt := station.Options{
		Root:         firstOf(c.String("root"), os.Getenv(stationRootEnv), "/forests"),
		Registry:     registryPath(c),
		Writable:     c.Bool("writable"),
		BootstrapKey: c.Bool("bootstrap-key") || truthy(os.Getenv(stationBootstrapEnv)),
		BreakGlass:   registry.BreakGlass{User: os.Getenv(stationAdminEnv), Password: os.Getenv(stationPasswordEnv)},
		AllowedHosts: c.StringSlice("allow-host"),
		ClipperDir:   os.Getenv(stationClipperEnv),

		AllowPrivateDestinations: truthy(os.Getenv(stationPrivateEnv)),
		EnvProviders:             envProviders(),
	}
	if len(opt.AllowedHosts) == 0 {
		opt.AllowedHosts = wire.ParseHosts(os.Getenv(wire.HostsEnv))
	}
	opt.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	if c.Bool("access-log") {
		opt.AccessLog = opt.Logger.With("log", "access")
	}
	if raw := os.Getenv(stationAuditDaysEnv); raw != "" {
		days, err := strconv.Atoi(raw)
		if err != nil || days < 0 {
			return opt, fmt.Errorf("%s=%q: want a number of days, 0 to keep every row", stationAuditDaysEnv, raw)
		}
		opt.AuditRetainDays = days
	}
	if err := stationExtensions(c, &opt); err != nil {
		return opt, err
	}
	roots, err := ingestRoots(os.Getenv(ingestRootsEnv), opt.Root)
	if err != nil {
		return opt, err
	}
	opt.IngestRoots = roots
	// answer is always served: each forest answers with its answer
	// binding, else with --model-endpoint's model, else it is refused.
	endpoint, model := c.String("model-endpoint"), c.String("model")
	opt.AnswerWith = func(base answer.Options) (*answer.Answerer, error) {
		var fallback answer.Model
		if endpoint != "" {
			client, err := chatBinding{endpoint: endpoint, model: model}.client()
			if err != nil {
				return nil, err
			}
			fallback, base.Binding = client, answer.Binding{Provider: "llamacpp", Model: model}
		}
		return answer.Register(fallback, &base)
	}
	for _, p := range strings.FieldsFunc(os.Getenv(stationProxiesEnv), func(r rune) bool { return r == ',' || r == ' ' }) {
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			addr, aerr := netip.ParseAddr(p)
			if aerr != nil {
				return opt, fmt.Errorf("%s: %q is neither an address nor a CIDR prefix", stationProxiesEnv, p)
			}
			prefix = netip.PrefixFrom(addr, addr.BitLen())
		}
		opt.TrustedProxies = append(opt.TrustedProxies, prefix)
	}
	return opt, nil
}

// envProviders are the providers the environment declares (09 §8,
// J.10.1): MONKEYLLM_LLM_{PROVIDER,ENDPOINT,API_KEY} and the same under
// MONKEYLLM_EMBED_.
func envProviders() []providers.EnvProvider {
	var out []providers.EnvProvider
	for _, fam := range []struct{ role, prefix string }{{"llm", "MONKEYLLM_LLM_"}, {"embed", "MONKEYLLM_EMBED_"}} {
		out = append(out, providers.EnvProvider{Role: fam.role,
			Name:     strings.TrimSpace(os.Getenv(fam.prefix + "PROVIDER")),
			Endpoint: strings.TrimSpace(os.Getenv(fam.prefix + "ENDPOINT")),
			APIKey:   os.Getenv(fam.prefix + "API_KEY")})
	}
	return out
}

// truthy is the spec's boolean spelling of an environment switch.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// serveUntilDone serves h on ln until ctx ends, then says so on log and
// shuts down within the grace period.
func serveUntilDone(ctx context.Context, h http.Handler, ln net.Listener, log *slog.Logger) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func stationKeyCommand() *cli.Command {
	return &cli.Command{
		Name:      "key",
		Usage:     "grant a principal a forest and mint its key, printed once",
		UsageText: "vine station key --principal P --forest F [--caps read,answer] [--label L] [--expires-days 90] [--registry FILE]",
		Flags: []cli.Flag{
			registryFlag(),
			&cli.StringFlag{Name: "principal", Required: true, Usage: "the `NAME` the key acts as"},
			&cli.StringFlag{Name: "forest", Required: true, Usage: "the forest `ID` to grant"},
			&cli.StringFlag{Name: "caps", Value: "read,answer", Usage: "the granted `CAPS`, comma separated"},
			&cli.StringFlag{Name: "label", Value: "cli", Usage: "the key's `LABEL`"},
			&cli.IntFlag{Name: "expires-days", Value: 90, Usage: "the key's life in `DAYS` (at most 365)"},
		},
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdStationKey(ctx, c, envOf(c))) },
	}
}

func cmdStationKey(ctx context.Context, c *cli.Command, e env) int {
	caps, err := keys.ParseCaps(c.String("caps"))
	if err != nil {
		fmt.Fprintf(e.stderr, "vine station key: %v\n", err)
		return exitUsage
	}
	reg, err := registry.Open(ctx, registryPath(c), nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine station key: %v\n", err)
		return exitFailure
	}
	defer reg.Close()
	principal := c.String("principal")
	if _, err := reg.SetGrant(ctx, principal, registry.Grant{Forest: c.String("forest"), Caps: caps, Allow: []string{""}}); err != nil {
		fmt.Fprintf(e.stderr, "vine station key: %v\n", err)
		return exitFailure
	}
	m, err := reg.Mint(ctx, principal, registry.MintOptions{Label: c.String("label"),
		ExpiresIn: time.Duration(c.Int("expires-days")) * 24 * time.Hour})
	if err != nil {
		fmt.Fprintf(e.stderr, "vine station key: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(e.stdout, m.Secret)
	fmt.Fprintf(e.stderr, "key %s… for %s on %s (expires %s); only its digest is kept\n", m.Key.Prefix, principal,
		c.String("forest"), m.Key.ExpiresAt)
	return exitOK
}

func stationGrantsCommand() *cli.Command {
	return &cli.Command{
		Name:      "grants",
		Usage:     "list a principal's grants",
		UsageText: "vine station grants --principal P [--registry FILE]",
		Flags: []cli.Flag{
			registryFlag(),
			&cli.StringFlag{Name: "principal", Required: true, Usage: "the principal `NAME`"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			e := envOf(c)
			reg, err := registry.Open(ctx, registryPath(c), nil)
			if err != nil {
				fmt.Fprintf(e.stderr, "vine station grants: %v\n", err)
				return exitWith(exitFailure)
			}
			defer reg.Close()
			grants, err := reg.Grants(ctx, c.String("principal"))
			if err != nil {
				fmt.Fprintf(e.stderr, "vine station grants: %v\n", err)
				return exitWith(exitFailure)
			}
			for _, g := range grants {
				fmt.Fprintf(e.stdout, "%s\t%s\tallow=%s\tdeny=%s\n", g.Forest, joinCaps(g.Caps),
					strings.Join(g.Allow, ","), strings.Join(g.Deny, ","))
			}
			return nil
		},
	}
}

func joinCaps(caps []vine.Capability) string {
	out := make([]string, len(caps))
	for i, c := range caps {
		out[i] = string(c)
	}
	return strings.Join(out, ",")
}
