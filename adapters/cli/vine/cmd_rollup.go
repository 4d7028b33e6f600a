// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
)

func init() {
	registerCommand(rollupCommand)
}

func rollupCommand() *cli.Command {
	return &cli.Command{
		Name:      "rollup",
		Usage:     "rewrite the summaries of ingested branches from their entries, deepest first",
		UsageText: "vine rollup --forest DIR [--all] [--json] [--model-endpoint URL --model M]",
		Description: `Each branch the Gardener created gets "what lives here" from the entry lines
of its sub-branches and documents (G.4.4), through the chat model when one is
bound, else as "Region '<title>': a, b, c (+N more)." A summary that did not
change writes nothing; each change is one graft, carried into the parent's
entry. The model comes from --model-endpoint and --model, or from
MONKEYLLM_LLM_ENDPOINT, MONKEYLLM_LLM_MODEL and MONKEYLLM_LLM_API_KEY.`,
		Flags: append([]cli.Flag{
			forestFlag(),
			&cli.BoolFlag{Name: "all", Usage: "roll up every branch, not only those ingest created (_meta never)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		}, modelFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdRollup(ctx, c, envOf(c))) },
	}
}

func cmdRollup(ctx context.Context, c *cli.Command, e env) int {
	if c.Args().Present() {
		fmt.Fprintf(e.stderr, "vine rollup: unexpected argument %q\n", c.Args().First())
		return exitUsage
	}
	cr, code := startCurating(ctx, c, e)
	if cr == nil {
		return code
	}
	defer cr.v.Close()
	rep, err := gardener.New(cr.v, cr.opt).Rollup(ctx, gardener.RollupOptions{All: c.Bool("all")})
	bar := cr.bar
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "rollup", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, rep)
	}
	fmt.Fprintf(e.stdout, "rollup: %d rolled, %d fallbacks, %d skipped\n", rep.Rolled, rep.Fallbacks, rep.Skipped)
	printCurationDiagnostics(e, rep.Curation)
	return exitOK
}

// curatingOptions binds the model Curator the flags or the environment
// name, if any; false after telling stderr what is wrong.
func curatingOptions(c *cli.Command, e env) (*gardener.Options, bool) {
	b, err := chatBindingOf(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine %s: %v\n", c.Name, err)
		return nil, false
	}
	opt := &gardener.Options{}
	if !b.bound() {
		return opt, true
	}
	client, err := b.client()
	if err != nil {
		fmt.Fprintf(e.stderr, "vine %s: %v\n", c.Name, err)
		return nil, false
	}
	opt.Curator = gardener.NewModelCurator(client)
	return opt, true
}

// curating is a curating command's forest, open writable, with its
// model options and the progress bar they report to.
type curating struct {
	v   *vine.Vine
	opt *gardener.Options
	bar *progressBar
}

// startCurating reads the forest and model flags and opens the forest;
// nil with the exit code after telling stderr what is wrong.
func startCurating(ctx context.Context, c *cli.Command, e env) (*curating, int) {
	dir, ok := needForest(c, e)
	if !ok {
		return nil, exitUsage
	}
	opt, ok := curatingOptions(c, e)
	if !ok {
		return nil, exitUsage
	}
	v, err := openCurating(ctx, e, c.Name, dir)
	if err != nil {
		return nil, fail(e.stdout, e.stderr, c.Name, err)
	}
	bar := newProgressBar(e.stderr)
	opt.Progress = bar.update
	return &curating{v: v, opt: opt, bar: bar}, exitOK
}

// openCurating opens the forest writable for a curating command.
func openCurating(ctx context.Context, e env, op, dir string) (*vine.Vine, error) {
	if err := checkForest(e, op, dir); err != nil {
		return nil, err
	}
	return vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), Logger: cliLogger(e.stderr)})
}

// printCurationDiagnostics tells stderr why the model's replies were not
// taken, when they were not.
func printCurationDiagnostics(e env, cs gardener.CurationStats) {
	if cs.Error != "" {
		fmt.Fprintf(e.stderr, "model error: %s\n", cs.Error)
	}
	if cs.RejectedBecause != "" {
		fmt.Fprintf(e.stderr, "last rejected reply: %s\n", cs.RejectedBecause)
	}
}
