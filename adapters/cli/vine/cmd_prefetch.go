package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/monkeyllm/vine"
)

func init() {
	register("prefetch", command{"prefetch --forest DIR [BRANCH] [--json]", cmdPrefetch})
}

// cmdPrefetch brings every remote payload under a branch (the whole
// forest by default) into the payload cache, with a progress bar. It
// exits 1 when any payload could not be fetched, after trying them all.
func cmdPrefetch(ctx context.Context, args []string, e env) int {
	var dir string
	var asJSON bool
	fs := flag.NewFlagSet("prefetch", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&dir, "forest", "", "forest directory")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	pos, err := parseAnywhere(fs, args)
	if err != nil {
		return exitUsage
	}
	switch {
	case len(pos) > 1:
		fmt.Fprintf(e.stderr, "vine prefetch: name at most one branch, got %q\n", strings.Join(pos, " "))
		return exitUsage
	case dir == "":
		fmt.Fprintln(e.stderr, "vine prefetch: --forest DIR is required")
		return exitUsage
	}
	scope := ""
	if len(pos) == 1 {
		scope = pos[0]
	}
	bar := newProgressBar(e.stderr)
	// Read-only: prefetch writes the derived cache only, so it runs
	// beside a live writer.
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: true, Progress: bar.update, Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "prefetch", err)
	}
	defer v.Close()
	res, err := v.Prefetch(ctx, scope)
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "prefetch", err)
	}
	if asJSON {
		printJSON(e.stdout, res)
	} else {
		fmt.Fprintf(e.stdout, "%s: %d fetched, %d already local, %d failed\n", res.Scope, len(res.Fetched), res.AlreadyLocal, len(res.Errors))
		for _, msg := range res.Errors {
			fmt.Fprintln(e.stdout, "error "+msg)
		}
	}
	if len(res.Errors) > 0 {
		return exitFailure
	}
	return exitOK
}
