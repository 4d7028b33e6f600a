// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine/gardener"
)

func init() {
	registerCommand(recurateCommand)
}

func recurateCommand() *cli.Command {
	return &cli.Command{
		Name:      "recurate",
		Usage:     "re-derive aliases, or ask the model again for summaries, tags and aliases",
		UsageText: "vine recurate --forest DIR --derive aliases|scent [--derive ...] [--json] [--model-endpoint URL --model M]",
		Description: `--derive aliases backfills derived aliases from the forest's own passports:
no source, converter, model or network; aliases are added, never removed.
--derive scent asks the chat model again for every ingested document that is
not a branch (datasets included): the summary is replaced, tags and aliases
are added. It says how many documents it will send before it starts. The
model comes from --model-endpoint and --model, or from MONKEYLLM_LLM_ENDPOINT,
MONKEYLLM_LLM_MODEL and MONKEYLLM_LLM_API_KEY.`,
		Flags: append([]cli.Flag{
			forestFlag(),
			&cli.StringSliceFlag{Name: "derive", Usage: "what to re-derive: `MEMBER` aliases or scent (repeatable, or a comma list)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		}, modelFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdRecurate(ctx, c, envOf(c))) },
	}
}

func cmdRecurate(ctx context.Context, c *cli.Command, e env) int {
	var derive []string
	for _, d := range c.StringSlice("derive") {
		for _, m := range strings.Split(d, ",") {
			if m = strings.TrimSpace(m); m != "" && !slices.Contains(derive, m) {
				derive = append(derive, m)
			}
		}
	}
	switch {
	case c.Args().Present():
		fmt.Fprintf(e.stderr, "vine recurate: unexpected argument %q\n", c.Args().First())
		return exitUsage
	case len(derive) == 0:
		fmt.Fprintln(e.stderr, "vine recurate: name what to re-derive with --derive aliases or --derive scent")
		return exitUsage
	}
	cr, code := startCurating(ctx, c, e)
	if cr == nil {
		return code
	}
	defer cr.v.Close()
	g, bar := gardener.New(cr.v, cr.opt), cr.bar
	if slices.Contains(derive, "scent") && cr.opt.Curator != nil {
		if err := stateScentBill(ctx, g, c, e); err != nil {
			return fail(e.stdout, e.stderr, "recurate", err)
		}
	}
	rep, err := g.Recurate(ctx, gardener.RecurateOptions{Derive: derive})
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "recurate", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, rep)
	}
	fmt.Fprintf(e.stdout, "recurate %s: %d updated\n", strings.Join(derive, ","), len(rep.Updated))
	for _, id := range rep.Updated {
		fmt.Fprintf(e.stdout, "updated     %s\n", id)
	}
	printCurationDiagnostics(e, rep.Curation)
	return exitOK
}

// stateScentBill tells stderr what a scent recurate will spend before it
// spends it (J.13.6.1): how many documents go to which model.
func stateScentBill(ctx context.Context, g *gardener.Gardener, c *cli.Command, e env) error {
	plan, err := g.ScentPlan(ctx)
	if err != nil {
		return err
	}
	b, _ := chatBindingOf(c)
	fmt.Fprintf(e.stderr, "vine recurate: scent sends %d documents to %s at %s (up to %d calls each)\n",
		len(plan), b.model, b.endpoint, gardener.CuratorAttempts)
	return nil
}
