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
		UsageText: "vine adopt SOURCE --forest DIR [--dest BRANCH] [--json] [--dry-run] [--curate [--model-endpoint URL --model M]]",
		Flags:     append(ingestCLIFlags(true, curateFlags()...), visionFlags()...),
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
// the caller said it, the commit range (commit is null on previews), and
// what curation did: the branch rollup that ran after the batch (null
// when none ran), whether a model was bound and whether it wrote a
// summary or a rollup.
type ingestResult struct {
	*gardener.IngestReport
	Mode         string                 `json:"mode"`
	CommitBefore string                 `json:"commit_before"`
	Commit       *string                `json:"commit"`
	Preview      bool                   `json:"preview,omitempty"`
	Rollup       *gardener.RollupReport `json:"rollup"`
	Curated      bool                   `json:"curated"`
	Bound        bool                   `json:"bound"`
}

// curateFlags are the flags of curation with a model (G.4.2, G.4.4),
// kept in one block: --curate binds the model Curator to the new
// drafts and rolls up the ingested branches after the batch.
func curateFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "curate", Usage: "curate new documents with a chat model, then roll up the branches (needs --model-endpoint or $" + llmEndpointEnv + ")"},
	}, modelFlags()...)
}

// curatorOf reads curateFlags: the model Curator, or nil without
// --curate; false after telling stderr what is wrong.
func curatorOf(c *cli.Command, e env) (*gardener.ModelCurator, bool) {
	b, err := chatBindingOf(c)
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "vine %s: %v\n", c.Name, err)
		return nil, false
	case !c.Bool("curate"):
		if c.IsSet("model-endpoint") || c.IsSet("model") {
			fmt.Fprintf(e.stderr, "vine %s: --model-endpoint and --model bind the curator; add --curate\n", c.Name)
			return nil, false
		}
		return nil, true
	case !b.bound():
		fmt.Fprintf(e.stderr, "vine %s: --curate needs --model-endpoint URL --model NAME (or %s and %s)\n", c.Name, llmEndpointEnv, llmModelEnv)
		return nil, false
	}
	client, err := b.client()
	if err != nil {
		fmt.Fprintf(e.stderr, "vine %s: %v\n", c.Name, err)
		return nil, false
	}
	return gardener.NewModelCurator(client), true
}

// ingestRun is what the three commands share: the open forest, the
// progress bar and the result printing.
type ingestRun struct {
	mode    string
	flags   *ingestFlags
	e       env
	v       *vine.Vine
	bar     *progressBar
	head    string
	curator *gardener.ModelCurator // --curate; nil curates without a model
	rollup  *gardener.RollupReport
	exts    []gardener.Converter // converters of the extensions the forest enables
	hooks   []gardener.NamedHook // and their curation handlers
	extStop func()
}

// withExtensions starts the extensions the forest enables, so their
// converters claim files before the built-ins (spec 11 §3).
func (r *ingestRun) withExtensions(ctx context.Context, c *cli.Command) {
	r.exts, r.hooks, r.extStop = forestExtensions(ctx, c, r.e, r.v)
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
	opt := &gardener.Options{Progress: func(p vine.Progress) { r.bar.update(p) }, Converters: r.exts, Hooks: r.hooks}
	if r.curator != nil {
		opt.Curator = r.curator
	}
	return opt
}

// rollUp rolls up the ingested branches after a batch that curated with
// a model (G.4.4 rule 7): not on a preview, not after a cancelled or
// failed batch. Its counters join the batch's curation.
func (r *ingestRun) rollUp(ctx context.Context, rep *gardener.IngestReport, err error) error {
	if r.curator == nil || r.flags.dry || rep == nil || err != nil {
		return err
	}
	r.bar.done()
	r.bar = newProgressBar(r.e.stderr)
	roll, err := gardener.New(r.v, r.options()).Rollup(ctx, gardener.RollupOptions{})
	if roll != nil {
		r.rollup = roll
		rep.Curation.Merge(roll.Curation)
	}
	return err
}

// finish prints the report (JSON or a summary) and picks the exit code:
// 1 when the batch was cut short or any file failed, since a partial
// success reported as success is worse than a failure.
func (r *ingestRun) finish(rep *gardener.IngestReport, err error) int {
	r.bar.done()
	defer r.v.Close()
	if r.extStop != nil {
		defer r.extStop()
	}
	if rep == nil {
		return fail(r.e.stdout, r.e.stderr, r.mode, err)
	}
	res := ingestResult{IngestReport: rep, Mode: r.mode, CommitBefore: r.head, Preview: r.flags.dry,
		Rollup: r.rollup, Bound: r.curator != nil,
		Curated: rep.Curation.LLMSummaries+rep.Curation.BranchRollups > 0}
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
	if res.Bound {
		cs := res.Curation
		fmt.Fprintf(w, "curation: %d model summaries, %d fallbacks, %d retries, %d branch rollups, %d branch fallbacks, %d transport errors\n",
			cs.LLMSummaries, cs.Fallbacks, cs.Retries, cs.BranchRollups, cs.BranchFallbacks, cs.TransportErrors)
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
	curator, ok := curatorOf(c, e)
	if !ok {
		return exitUsage
	}
	r, err := openIngest(ctx, "adopt", f, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "adopt", err)
	}
	r.curator = curator
	r.withExtensions(ctx, c)
	opts := r.options()
	opts.Converters = append(opts.Converters, vision...)
	var rep *gardener.IngestReport
	if f.dry {
		rep, err = gardener.NewPreview(r.v, opts).Adopt(ctx, pos[0], f.dest)
	} else {
		rep, err = gardener.New(r.v, opts).Adopt(ctx, pos[0], f.dest)
	}
	return r.finish(rep, r.rollUp(ctx, rep, err))
}
