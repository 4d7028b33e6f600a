// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine/gardener"
)

func init() {
	registerCommand(syncCommand)
}

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "reconcile the forest with its adopted source folder (--dry-run previews)",
		UsageText: "vine sync --forest DIR [--path P]... [--source DIR] [--dest BRANCH] [--json] [--dry-run] [--curate [--model-endpoint URL --model M]]",
		Flags: append(ingestCLIFlags(true, append([]cli.Flag{
			&cli.GenericFlag{Name: "path", Value: &pathList{}, Usage: "reconcile only this source-relative file `P` (repeatable)"},
			&cli.StringFlag{Name: "source", Usage: "`DIR` to walk instead of the recorded source_root", TakesFile: true}},
			curateFlags()...)...),
			visionFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdSync(ctx, c, envOf(c))) },
	}
}

// pathList collects a repeatable --path flag.
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(s string) error { *p = append(*p, s); return nil }
func (p *pathList) Get() any           { return []string(*p) }

func cmdSync(ctx context.Context, c *cli.Command, e env) int {
	paths, _ := c.Value("path").([]string)
	source := c.String("source")
	f, pos, ok := ingestFlagsOf(c, e, true)
	if !ok {
		return exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintln(e.stderr, "vine sync: takes no positional argument; name files with --path")
		return exitUsage
	}
	vision, err := visionOf(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine sync: %v\n", err)
		return exitUsage
	}
	curator, ok := curatorOf(c, e)
	if !ok {
		return exitUsage
	}
	r, err := openIngest(ctx, "sync", f, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "sync", err)
	}
	r.curator = curator
	r.withExtensions(ctx, c)
	opts := r.options()
	opts.Converters = append(opts.Converters, vision...)
	opt := gardener.SyncOptions{Source: source, Dest: f.dest, Paths: paths}
	var rep *gardener.IngestReport
	if f.dry {
		rep, err = gardener.NewPreview(r.v, opts).Sync(ctx, opt)
	} else {
		rep, err = gardener.New(r.v, opts).Sync(ctx, opt)
	}
	return r.finish(rep, r.rollUp(ctx, rep, err))
}
