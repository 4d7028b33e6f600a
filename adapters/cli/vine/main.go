// Command vine is the command-line face of the forest engine.
//
// Usage:
//
//	vine init     --forest DIR --title T [--summary S]
//	vine validate --forest DIR [--json]
//	vine reindex  --forest DIR
//	vine call     PRIMITIVE --forest DIR ['JSON-ARGS']
//	vine primitives
//
// call prints the primitive's JSON result and exits 0, or prints its
// envelope {"error":{...}} and exits 1. validate exits 1 when the forest
// has errors. Usage mistakes exit 2.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

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

const usage = `usage:
  vine init     --forest DIR --title T [--summary S]
  vine validate --forest DIR [--json]
  vine reindex  --forest DIR
  vine call     PRIMITIVE --forest DIR ['JSON-ARGS' | -]
  vine primitives
`

// run is main without the process: it returns the exit code, so tests
// drive the whole command in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "init":
		return cmdInit(ctx, rest, stdout, stderr)
	case "validate":
		return cmdValidate(ctx, rest, stdout, stderr)
	case "reindex":
		return cmdReindex(ctx, rest, stdout, stderr)
	case "call":
		return cmdCall(ctx, rest, stdin, stdout, stderr)
	case "primitives":
		return cmdPrimitives(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "vine: unknown command %q\n%s", cmd, usage)
	return exitUsage
}
