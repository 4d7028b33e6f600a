// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/ranger"
)

func init() {
	registerCommand(rangerCommand)
}

// rangerFlags are the options of vine ranger.
type rangerFlags struct {
	dir    string
	health bool
	json   bool
	every  int
}

func rangerCommand() *cli.Command {
	return &cli.Command{
		Name:      "ranger",
		Usage:     "run one maintenance cycle (or one every --every seconds), or print --health",
		UsageText: "vine ranger --forest DIR [--health] [--json] [--every SECONDS] | links --forest DIR | accept|reject --forest DIR ID REL TARGET",
		Flags: []cli.Flag{
			forestFlag(),
			&cli.BoolFlag{Name: "health", Usage: "print the read-only health report only"},
			jsonFlag(),
			&cli.IntFlag{Name: "every", Usage: "repeat the cycle every `SECONDS` until interrupted"},
		},
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdRanger(ctx, c, envOf(c))) },
		Commands: []*cli.Command{
			rangerVoteCommand(ranger.Accept, "confirm a proposed link: its confidence becomes 1.0, out of the Ranger's reach"),
			rangerVoteCommand(ranger.Reject, "remove a proposed link (confidence below 1.0)"),
			{
				Name:      "links",
				Usage:     "list the proposed links a person may accept or reject",
				UsageText: "vine ranger links --forest DIR [--json]",
				Flags:     []cli.Flag{forestFlag(), jsonFlag()},
				Action: func(ctx context.Context, c *cli.Command) error {
					return exitWith(cmdRangerLinks(ctx, c, envOf(c)))
				},
			},
		},
	}
}

// rangerVoteCommand is vine ranger accept|reject: a person's vote on one
// proposed link (H.2.1), committed as links(<vote>): <id> <rel>-><target>.
func rangerVoteCommand(vote, usage string) *cli.Command {
	return &cli.Command{
		Name:      vote,
		Usage:     usage,
		UsageText: "vine ranger " + vote + " --forest DIR ID REL TARGET [--json]",
		Flags:     []cli.Flag{forestFlag(), jsonFlag()},
		Action: func(ctx context.Context, c *cli.Command) error {
			return exitWith(cmdRangerVote(ctx, c, vote, envOf(c)))
		},
	}
}

// cmdRangerLinks prints the proposals, one a line as accept and reject
// take them, from a forest opened read-only.
func cmdRangerLinks(ctx context.Context, c *cli.Command, e env) int {
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "ranger")
	if dir == "" {
		return code
	}
	v, r, err := openRanger(ctx, dir, true, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	defer v.Close()
	props, err := r.Proposals(ctx)
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, map[string]any{"links": props})
	}
	for _, p := range props {
		fmt.Fprintf(e.stdout, "%s %s %s (%s)\n", p.ID, p.Rel, p.Target, strconv.FormatFloat(p.Confidence, 'f', -1, 64))
	}
	fmt.Fprintf(e.stdout, "proposed links: %d\n", len(props))
	return exitOK
}

func cmdRangerVote(ctx context.Context, c *cli.Command, vote string, e env) int {
	pos := c.Args().Slice()
	if len(pos) != 3 {
		fmt.Fprintf(e.stderr, "vine ranger %s: name the link as ID REL TARGET, got %d arguments\n", vote, len(pos))
		return exitUsage
	}
	dir, code := openForest(c, e, "ranger")
	if dir == "" {
		return code
	}
	v, r, err := openRanger(ctx, dir, false, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	defer v.Close()
	res, err := r.Vote(ctx, []ranger.LinkVote{{ID: pos[0], Rel: pos[1], Target: pos[2], Vote: vote}})
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, res[0])
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", res[0].Result, res[0].LinkVote)
	return exitOK
}

// cmdRanger runs one maintenance cycle (Part H) and prints its report;
// --every repeats it until interrupted (service mode), re-reading
// _meta/ranger.yaml each cycle; --health prints the read-only health
// report alone, opening the forest read-only and writing nothing.
func cmdRanger(ctx context.Context, c *cli.Command, e env) int {
	f := rangerFlags{dir: forestDir(c), health: c.Bool("health"), json: c.Bool("json"), every: int(c.Int("every"))}
	if msg := f.check(c.Args().Slice()); msg != "" {
		fmt.Fprintln(e.stderr, "vine ranger: "+msg)
		return exitUsage
	}
	if err := checkForest(e, "ranger", f.dir); err != nil {
		return refuse(e.stdout, "ranger", err)
	}
	if f.health {
		return rangerHealth(ctx, f, e)
	}
	return rangerRun(ctx, f, e)
}

// check returns what is wrong with the command line, or "".
func (f rangerFlags) check(pos []string) string {
	switch {
	case len(pos) > 0:
		return fmt.Sprintf("takes no arguments besides flags, got %q", strings.Join(pos, " "))
	case f.dir == "":
		return "--forest DIR is required"
	case f.every < 0:
		return fmt.Sprintf("--every got %d, expected a number of seconds of at least 1", f.every)
	case f.health && f.every > 0:
		return "--health is one read-only report; --every repeats the maintenance cycle"
	}
	return ""
}

func rangerHealth(ctx context.Context, f rangerFlags, e env) int {
	v, r, err := openRanger(ctx, f.dir, true, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	defer v.Close()
	h, err := r.Health(ctx)
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	if f.json {
		return printJSON(e.stdout, h)
	}
	printHealth(e.stdout, h)
	return exitOK
}

// rangerRun holds the writer for as long as it runs: one cycle, or every
// cycle of service mode. In service mode a failed cycle is reported and
// the next one still runs; an interrupt ends it with exit 0.
func rangerRun(ctx context.Context, f rangerFlags, e env) int {
	bar := newProgressBar(e.stderr)
	v, err := vine.Open(ctx, f.dir, &vine.Options{Fetcher: payloadFetcher(), Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	defer v.Close()
	for {
		code := rangerCycle(ctx, v, f, bar, e)
		if f.every == 0 {
			return code
		}
		select {
		case <-ctx.Done():
			return exitOK
		case <-time.After(time.Duration(f.every) * time.Second):
		}
	}
}

func rangerCycle(ctx context.Context, v *vine.Vine, f rangerFlags, bar *progressBar, e env) int {
	r, err := ranger.New(v, ranger.WithProgress(bar.update))
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	rep, err := r.Run(ctx)
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "ranger", err)
	}
	if f.json {
		return printJSON(e.stdout, rep)
	}
	printReport(e.stdout, rep)
	return exitOK
}

func printReport(w io.Writer, rep *ranger.Report) {
	ev := rep.Evaporation
	fmt.Fprintf(w, "evaporation: %d decayed, %d removed, %d stale sessions cleared\n",
		ev.Decayed, ev.Removed, ev.StaleSessionsCleared)
	fmt.Fprintf(w, "payload cache: %d evicted, %d bytes kept\n", rep.PayloadCache.Evicted, rep.PayloadCache.KeptBytes)
	l := rep.Links
	fmt.Fprintf(w, "links: %d promoted, %d pruned, %d refused\n", len(l.Promoted), len(l.Pruned), len(l.Refused))
	printItems(w, "promoted ", l.Promoted)
	printItems(w, "pruned ", l.Pruned)
	printItems(w, "refused ", l.Refused)
	state := "unchanged"
	if rep.Landmarks.Changed {
		state = "refreshed"
	}
	fmt.Fprintf(w, "landmarks: %d (%s)\n", rep.Landmarks.Landmarks, state)
	fmt.Fprintf(w, "gc: %s\n", rep.GC)
	fmt.Fprintln(w, "health:")
	printHealth(w, rep.Health)
}

func printHealth(w io.Writer, h *ranger.Health) {
	for _, l := range []struct {
		name string
		ids  []string
	}{
		{"needs_split", h.NeedsSplit}, {"fat_nodes", h.FatNodes}, {"stale_passports", h.StalePassports},
		{"changed_sources", h.ChangedSources}, {"needs_description", h.NeedsDescription},
		{"orphans", h.Orphans}, {"missing_payloads", h.MissingPayloads}, {"payload_drift", h.PayloadDrift},
	} {
		fmt.Fprintf(w, "  %s: %d\n", l.name, len(l.ids))
		printItems(w, "  ", l.ids)
	}
	fmt.Fprintf(w, "  broken_wikilinks: %d\n", len(h.BrokenWikilinks))
	for _, b := range h.BrokenWikilinks {
		fmt.Fprintf(w, "    %s -> [[%s]]\n", b.ID, b.Target)
	}
	fmt.Fprintf(w, "  lint: %d errors, %d warnings (vine validate lists them)\n", h.Lint.Errors, h.Lint.Warnings)
	fmt.Fprintf(w, "  uncertain_links: %s\n", confidenceCounts(h.UncertainLinks))
	fmt.Fprintf(w, "  heat: %d rows, max %g, mean %g\n", h.Heat.Rows, h.Heat.Max, h.Heat.Mean)
	fmt.Fprintf(w, "  lock: %s%s\n", h.Lock.State, holder(h))
}

// printItems lists items one a line, indented, each after prefix.
func printItems(w io.Writer, prefix string, items []string) {
	for _, it := range items {
		fmt.Fprintf(w, "  %s%s\n", prefix, it)
	}
}

func confidenceCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d at %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}

func holder(h *ranger.Health) string {
	c := h.Lock.Holder
	if c == nil {
		return ""
	}
	return fmt.Sprintf(" (pid %d on %s since %s)", c.PID, c.Host, c.Since)
}

// openRanger opens the forest (read-only for a report) and its Ranger.
func openRanger(ctx context.Context, dir string, readOnly bool, e env) (*vine.Vine, *ranger.Ranger, error) {
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: readOnly, Logger: cliLogger(e.stderr)})
	if err != nil {
		return nil, nil, err
	}
	r, err := ranger.New(v)
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	return v, r, nil
}
