// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
)

func init() {
	registerCommand(prefetchCommand)
}

func prefetchCommand() *cli.Command {
	return &cli.Command{
		Name:      "prefetch",
		Usage:     "fetch every remote payload under a branch into the payload cache",
		UsageText: "vine prefetch --forest DIR [BRANCH] [--json]",
		Flags:     []cli.Flag{forestFlag(), jsonFlag()},
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdPrefetch(ctx, c, envOf(c))) },
	}
}

// cmdPrefetch brings every remote payload under a branch (the whole
// forest by default) into the payload cache, with a progress bar. It
// exits 1 when any payload could not be fetched, after trying them all.
func cmdPrefetch(ctx context.Context, c *cli.Command, e env) int {
	dir, asJSON, pos := forestDir(c), c.Bool("json"), c.Args().Slice()
	switch {
	case len(pos) > 1:
		fmt.Fprintf(e.stderr, "vine prefetch: name at most one branch, got %q\n", strings.Join(pos, " "))
		return exitUsage
	case dir == "":
		fmt.Fprintln(e.stderr, "vine prefetch: --forest DIR is required")
		return exitUsage
	}
	if err := checkForest(e, "prefetch", dir); err != nil {
		return refuse(e.stdout, "prefetch", err)
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
