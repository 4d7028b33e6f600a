// Command vine is the command-line face of the forest engine.
//
// Run "vine help" for the list of commands. call prints the primitive's
// JSON result and exits 0, or prints its envelope {"error":{...}} and exits
// 1. validate exits 1 when the forest has errors. Usage mistakes exit 2.
//
// The engine's packages read no environment; the command reads these
// variables and passes their values to the engine:
//
//   - MONKEYLLM_S3_ENDPOINT: the S3-compatible store s3:// payloads are
//     fetched from (AWS S3 when unset), as a URL or host[:port];
//     AWS_REGION or AWS_DEFAULT_REGION its signing region. Keys come from
//     the standard AWS chain (AWS_ACCESS_KEY_ID, the shared credentials
//     file, the instance role).
//   - MONKEYLLM_HARVEST_MAX_K: the operator's cap on harvest's k (default
//     5); a value that is not an integer >= 1 makes every sweep answer
//     E_SCHEMA.
//
// The serve command reads its own as well (MONKEYLLM_INGEST_ROOTS, the
// MONKEYLLM_STATION_* settings), and the canopy command its embedder's.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"

	"github.com/monkeyllm/vine/adapters/internal/wire"

	_ "github.com/monkeyllm/vine/harvest" // registers the harvest composite
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// env is what a command sees of the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand. Each lives in its own file and adds itself
// to commands from an init function, so a new command touches no other.
type command struct {
	usage string // one line, after "vine "
	run   func(ctx context.Context, args []string, e env) int
}

var commands = map[string]command{}

func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("vine: command registered twice: " + name)
	}
	commands[name] = c
}

func init() {
	register("init", command{"init     --forest DIR --title T [--summary S]",
		func(ctx context.Context, a []string, e env) int { return cmdInit(ctx, a, e.stdout, e.stderr) }})
	register("validate", command{"validate --forest DIR [--json]",
		func(ctx context.Context, a []string, e env) int { return cmdValidate(ctx, a, e.stdout, e.stderr) }})
	register("reindex", command{"reindex  --forest DIR",
		func(ctx context.Context, a []string, e env) int { return cmdReindex(ctx, a, e.stdout, e.stderr) }})
	register("call", command{"call     PRIMITIVE --forest DIR ['JSON-ARGS' | -]",
		func(ctx context.Context, a []string, e env) int { return cmdCall(ctx, a, e.stdin, e.stdout, e.stderr) }})
	register("primitives", command{"primitives",
		func(ctx context.Context, a []string, e env) int { return cmdPrimitives(e.stdout) }})
}

// usageText lists every registered command, sorted.
func usageText() string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage:\n  vine version\n  vine help [COMMAND]\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  vine %s\n", commands[n].usage)
	}
	return b.String()
}

// run is main without the process: it returns the exit code, so tests
// drive the whole command in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return exitUsage
	}
	name, rest := args[0], args[1:]
	configureFromEnv()
	if c, ok := commands[name]; ok {
		return c.run(ctx, rest, env{stdin: stdin, stdout: stdout, stderr: stderr})
	}
	switch name {
	case "help", "-h", "--help":
		if len(rest) > 0 {
			if c, ok := commands[rest[0]]; ok {
				fmt.Fprintf(stdout, "usage: vine %s\n", c.usage)
				return exitOK
			}
			fmt.Fprintf(stderr, "vine: unknown command %q\n%s", rest[0], usageText())
			return exitUsage
		}
		fmt.Fprint(stdout, usageText())
		return exitOK
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "vine %s (%s %s/%s)\n", wire.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return exitOK
	}
	fmt.Fprintf(stderr, "vine: unknown command %q\n%s", name, usageText())
	return exitUsage
}
