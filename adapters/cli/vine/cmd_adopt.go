// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/gitops"
)

func init() {
	registerCommand(adoptCommand)
}

func adoptCommand() *cli.Command {
	return &cli.Command{
		Name:      "adopt",
		Usage:     "ingest a folder of documents into the forest (--dry-run previews)",
		UsageText: "vine adopt SOURCE --forest DIR [--dest BRANCH] [--json] [--dry-run]",
		Flags:     append(ingestCLIFlags(true), visionFlags()...),
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdAdopt(ctx, c, envOf(c))) },
	}
}

// ingestFlags are the flags adopt, sync and upload share.
type ingestFlags struct {
	name   string
	forest string
	dest   string
	asJSON bool
	dry    bool
}

// ingestCLIFlags declares the shared flags, --dry-run where the command
// has a preview, then the command's own.
func ingestCLIFlags(dryRun bool, extra ...cli.Flag) []cli.Flag {
	fl := []cli.Flag{
		forestFlag(),
		&cli.StringFlag{Name: "dest", Usage: "`BRANCH` new files go under (x, x/ or x/_index)"},
		&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
	}
	if dryRun {
		fl = append(fl, &cli.BoolFlag{Name: "dry-run", Usage: "step through everything, write nothing, list the drafts"})
	}
	return append(fl, extra...)
}

// ingestFlagsOf reads the shared flags and checks --forest; it returns
// the positional arguments.
func ingestFlagsOf(c *cli.Command, e env, dryRun bool) (*ingestFlags, []string, bool) {
	f := &ingestFlags{name: c.Name, forest: forestDir(c), dest: c.String("dest"), asJSON: c.Bool("json")}
	if dryRun {
		f.dry = c.Bool("dry-run")
	}
	if f.forest == "" {
		fmt.Fprintf(e.stderr, "vine %s: --forest DIR is required\n", f.name)
		return nil, nil, false
	}
	return f, c.Args().Slice(), true
}

// ingestResult is the report with the adapter fields of J.8: the mode as
// the caller said it, and the commit range (commit is null on previews).
type ingestResult struct {
	*gardener.IngestReport
	Mode         string  `json:"mode"`
	CommitBefore string  `json:"commit_before"`
	Commit       *string `json:"commit"`
	Preview      bool    `json:"preview,omitempty"`
}

// ingestRun is what the three commands share: the open forest, the
// progress bar and the result printing.
type ingestRun struct {
	mode  string
	flags *ingestFlags
	e     env
	v     *vine.Vine
	bar   *progressBar
	head  string
}

func openIngest(ctx context.Context, mode string, f *ingestFlags, e env) (*ingestRun, error) {
	if err := checkForest(e, mode, f.forest); err != nil {
		return nil, err
	}
	r := &ingestRun{mode: mode, flags: f, e: e, bar: newProgressBar(e.stderr)}
	v, err := vine.Open(ctx, f.forest, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: f.dry, Logger: cliLogger(e.stderr)})
	if err != nil {
		return nil, err
	}
	r.v = v
	r.head = headOf(f.forest)
	return r, nil
}

func (r *ingestRun) options() *gardener.Options {
	return &gardener.Options{Progress: func(p vine.Progress) { r.bar.update(p) }}
}

// finish prints the report (JSON or a summary) and picks the exit code:
// 1 when the batch was cut short or any file failed, since a partial
// success reported as success is worse than a failure.
func (r *ingestRun) finish(rep *gardener.IngestReport, err error) int {
	r.bar.done()
	defer r.v.Close()
	if rep == nil {
		return fail(r.e.stdout, r.e.stderr, r.mode, err)
	}
	res := ingestResult{IngestReport: rep, Mode: r.mode, CommitBefore: r.head, Preview: r.flags.dry}
	if !r.flags.dry {
		h := headOf(r.flags.forest)
		res.Commit = &h
	}
	if r.flags.asJSON {
		printJSON(r.e.stdout, res)
	} else {
		printSummary(r.e.stdout, res)
	}
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(r.e.stderr, "vine %s: interrupted after %d documents; run vine sync to finish\n", r.mode, len(rep.Planted)+len(rep.Updated))
		return exitFailure
	case err != nil:
		fmt.Fprintf(r.e.stderr, "vine %s: %v\n", r.mode, err)
		return exitFailure
	case len(rep.Errors) > 0:
		return exitFailure
	}
	return exitOK
}

// headOf is the forest's HEAD, "" when it cannot be read.
func headOf(dir string) string {
	repo, err := gitops.Open(dir)
	if err != nil {
		return ""
	}
	sha, _ := repo.Head()
	return sha
}

func printSummary(w io.Writer, res ingestResult) {
	verb := res.Mode
	if res.Preview {
		verb += " (dry run)"
	}
	fmt.Fprintf(w, "%s: %d planted, %d branches, %d updated, %d unchanged, %d stale, %d unsupported, %d errors\n",
		verb, len(res.Planted), len(res.Branches), len(res.Updated), len(res.Unchanged), len(res.Stale),
		len(res.Unsupported), len(res.Errors))
	for _, d := range res.Drafts {
		fmt.Fprintf(w, "draft       %s — %s\n", d.ID, d.Summary)
	}
	for _, s := range res.Stale {
		fmt.Fprintf(w, "stale       %s\n", s)
	}
	for _, u := range res.Unsupported {
		fmt.Fprintf(w, "unsupported %s\n", u)
	}
	for _, e := range res.Errors {
		fmt.Fprintf(w, "error       %s\n", e)
	}
	if len(res.Consumed) > 0 {
		fmt.Fprintf(w, "consumed %d staged files\n", len(res.Consumed))
	}
}

func cmdAdopt(ctx context.Context, c *cli.Command, e env) int {
	f, pos, ok := ingestFlagsOf(c, e, true)
	if !ok {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(e.stderr, "vine adopt: name exactly one SOURCE directory")
		return exitUsage
	}
	vision, err := visionOf(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine adopt: %v\n", err)
		return exitUsage
	}
	r, err := openIngest(ctx, "adopt", f, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "adopt", err)
	}
	opts := r.options()
	opts.Converters = append(opts.Converters, vision...)
	var rep *gardener.IngestReport
	if f.dry {
		rep, err = gardener.NewPreview(r.v, opts).Adopt(ctx, pos[0], f.dest)
	} else {
		rep, err = gardener.New(r.v, opts).Adopt(ctx, pos[0], f.dest)
	}
	return r.finish(rep, err)
}
