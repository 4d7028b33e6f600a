package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/mcp"
)

func init() {
	register("serve", command{"serve    (--forest DIR | --forests DIR) [--http ADDR [--allow-host H,...]] [--read-only]",
		func(ctx context.Context, a []string, e env) int { return cmdServe(ctx, a, e) }})
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
}

func parseServe(args []string, stderr io.Writer) (serveConfig, bool) {
	var c serveConfig
	var single, many string
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&single, "forest", "", "serve this forest")
	fs.StringVar(&many, "forests", "", "serve every forest below this directory (registry mode)")
	fs.StringVar(&c.addr, "http", "", "serve streamable HTTP on this address (MCP at /mcp) instead of stdio")
	fs.Func("allow-host", "a Host value HTTP clients may send (repeatable, or a comma list; \"*\" turns the check off)",
		func(s string) error { c.hosts = append(c.hosts, wire.ParseHosts(s)...); return nil })
	fs.BoolVar(&c.readOnly, "read-only", false, "refuse every write with E_READONLY and take no writer lock")
	pos, err := parseAnywhere(fs, args)
	if err != nil {
		return c, false
	}
	switch {
	case len(pos) > 0:
		fmt.Fprintf(stderr, "vine serve: unexpected argument %q\n", pos[0])
	case (single == "") == (many == ""):
		fmt.Fprint(stderr, "vine serve: give exactly one of --forest DIR or --forests DIR\n")
	case c.addr == "" && c.hosts != nil:
		fmt.Fprint(stderr, "vine serve: --allow-host applies to --http only\n")
	default:
		c.root, c.registry = single+many, many != ""
		return c, true
	}
	return c, false
}

// cmdServe serves the forest (or the directory of forests) over MCP until
// ctx ends or the process gets SIGINT/SIGTERM: stdio by default, streamable
// HTTP at /mcp with --http.
func cmdServe(ctx context.Context, args []string, e env) int {
	c, ok := parseServe(args, e.stderr)
	if !ok {
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	reg, err := openRegistry(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine serve: %v\n", err)
		return exitFailure
	}
	defer reg.Close()
	opts := &mcp.Options{Logger: log}
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

// openRegistry serves c.root in the mode the flag named: --forest must be
// a forest, --forests a directory of them.
func openRegistry(c serveConfig) (*vine.Registry, error) {
	reg, err := vine.NewRegistry(c.root, &vine.Options{ReadOnly: c.readOnly})
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
	t := &sdk.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	err := mcp.NewServer(reg, opts).Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // stopped, or the client hung up: both are a normal end
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func serveHTTP(ctx context.Context, reg *vine.Registry, opts *mcp.Options, c serveConfig, log *slog.Logger) error {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	hosts := effectiveHosts(c.hosts, ln.Addr())
	warnHosts(log, hosts)
	opts.AllowedHosts = hosts
	srv := &http.Server{Handler: serveMux(reg, opts), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	log.Info("serving MCP", "url", "http://"+ln.Addr().String()+"/mcp", "mode", reg.Mode())
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

// serveMux is every HTTP route the server answers; the REST surface
// mounts /v1/ here beside /mcp.
func serveMux(reg *vine.Registry, opts *mcp.Options) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.Handler(reg, opts))
	return mux
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
