// SPDX-License-Identifier: Apache-2.0

package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/payload"
	"github.com/monkeyllm/vine/snapshot"
)

func init() {
	registerCommand(snapshotCommand)
}

// snapshotCommand writes a .forest file (create) or makes a new forest
// from one (restore), drawing progress on stderr.
func snapshotCommand() *cli.Command {
	const first = "vine snapshot: name the action first: vine snapshot create --forest DIR, or vine snapshot restore FILE --forest NEWDIR"
	return &cli.Command{
		Name:      "snapshot",
		Usage:     "write a forest to one .forest file, or restore one as a new forest",
		UsageText: "vine snapshot create --forest DIR [--out DIR] [--no-payloads] [--to URI] [--json] | restore FILE --forest NEWDIR [--payloads SIDECAR] [--max-bytes N] [--json]",
		Commands: []*cli.Command{
			{
				Name:      "create",
				Usage:     "write the forest, its history and payloads to one .forest file",
				UsageText: "vine snapshot create --forest DIR [--out DIR] [--no-payloads] [--to URI] [--json]",
				Flags: []cli.Flag{
					forestFlag(),
					&cli.StringFlag{Name: "out", Usage: "`DIR` for the .forest file (default: the forest's parent)", TakesFile: true},
					&cli.BoolFlag{Name: "no-payloads", Usage: "leave the payloads out (metadata only; reported)"},
					&cli.StringFlag{Name: "to", Usage: "also send the file to `URI`: file:///DIR/ or s3://BUCKET/PREFIX/ (store: " + payload.EnvS3Endpoint + ", keys: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)"},
					jsonFlag(),
				},
				Action: func(ctx context.Context, c *cli.Command) error { return exitWith(snapshotCreate(ctx, c, envOf(c))) },
			},
			{
				Name:      "restore",
				Usage:     "make a new forest from a .forest file",
				UsageText: "vine snapshot restore FILE --forest NEWDIR [--payloads SIDECAR] [--max-bytes N] [--json]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "forest", Usage: "new forest `DIR` (absent or empty)", TakesFile: true},
					&cli.StringFlag{Name: "payloads", Usage: "legacy payload `SIDECAR` (<bundle>.payloads.zip) for a bare bundle", TakesFile: true},
					&cli.Int64Flag{Name: "max-bytes", Value: snapshot.DefaultMaxBytes, Usage: "uncompressed ceiling of the archive, in `BYTES`"},
					jsonFlag(),
				},
				Action: func(ctx context.Context, c *cli.Command) error { return exitWith(snapshotRestore(ctx, c, envOf(c))) },
			},
		},
		Action: func(_ context.Context, c *cli.Command) error { return snapshotNoAction(c, first) },
		// A flag before the action lands here: no action was named.
		OnUsageError: func(_ context.Context, c *cli.Command, _ error, _ bool) error { return snapshotNoAction(c, first) },
	}
}

// snapshotNoAction refuses "vine snapshot" without create or restore.
func snapshotNoAction(c *cli.Command, first string) error {
	if c.Args().Present() {
		fmt.Fprintf(c.Root().ErrWriter, "vine snapshot: unknown action %q, expected create or restore\n", c.Args().First())
	} else {
		fmt.Fprintln(c.Root().ErrWriter, first)
	}
	return exitCode(exitUsage)
}

func snapshotCreate(ctx context.Context, c *cli.Command, e env) int {
	out, noPayloads, asJSON, to := c.String("out"), c.Bool("no-payloads"), c.Bool("json"), c.String("to")
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "snapshot")
	if dir == "" {
		return code
	}
	bar := &phasedBar{w: e.stderr}
	res, err := snapshot.Create(ctx, dir, snapshot.CreateOptions{OutDir: out, NoPayloads: noPayloads, Progress: bar.update,
		To: to, Targets: snapshotTargets()})
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "snapshot", err)
	}
	if asJSON {
		return printJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d bytes): %d payloads packed, %d omitted\n", res.File, res.Bytes, res.Payloads, res.PayloadsOmitted)
	for _, s := range res.Skipped {
		fmt.Fprintf(e.stdout, "skipped %s: its name cannot travel in a snapshot\n", s)
	}
	if noPayloads && res.PayloadsOmitted > 0 {
		fmt.Fprintln(e.stdout, "metadata only: a restore of this file will report those payloads missing")
	}
	if res.Uploaded != "" {
		fmt.Fprintf(e.stdout, "sent to %s\n", res.Uploaded)
	}
	return exitOK
}

// snapshotTargets are where --to may send a snapshot: file://, and s3://
// at the store MONKEYLLM_S3_ENDPOINT names (AWS without it), signed with
// the AWS_* keys of the environment. The command reads them; the snapshot
// package never does.
func snapshotTargets() snapshot.Targets {
	t := snapshot.DefaultTargets()
	t["s3"] = snapshot.S3Target{
		Endpoint:     os.Getenv(payload.EnvS3Endpoint),
		Region:       cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION")),
		AccessKey:    os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretKey:    os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("AWS_SESSION_TOKEN"),
	}
	return t
}

func snapshotRestore(ctx context.Context, c *cli.Command, e env) int {
	dir, sidecar := expandHome(c.String("forest")), c.String("payloads")
	maxBytes, asJSON := c.Int64("max-bytes"), c.Bool("json")
	pos := c.Args().Slice()
	switch {
	case len(pos) != 1:
		fmt.Fprintf(e.stderr, "vine snapshot restore: name one snapshot file, got %d arguments\n", len(pos))
		return exitUsage
	case dir == "":
		fmt.Fprintln(e.stderr, "vine snapshot restore: --forest NEWDIR is required")
		return exitUsage
	case maxBytes <= 0:
		fmt.Fprintf(e.stderr, "vine snapshot restore: --max-bytes got %d, expected a positive number of bytes\n", maxBytes)
		return exitUsage
	}
	bar := newProgressBar(e.stderr)
	res, err := snapshot.Restore(ctx, pos[0], dir, snapshot.RestoreOptions{MaxBytes: maxBytes, Sidecar: sidecar, Progress: bar.update})
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "snapshot", err)
	}
	if asJSON {
		return printJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "restored %s: %d nodes, %d payloads restored, %d payloads missing\n",
		res.Forest, res.Nodes, res.RestoredPayloads, res.PayloadsMissing)
	return exitOK
}

// phasedBar draws each phase of a snapshot (bundle, payloads, upload) as
// a bar of its own: one bar's tenths would stop at the first phase's end.
type phasedBar struct {
	w   io.Writer
	op  string
	bar *progressBar
}

// update is called from Create's working goroutine only.
func (p *phasedBar) update(pr vine.Progress) {
	if p.bar == nil || pr.Op != p.op {
		p.done()
		p.op, p.bar = pr.Op, newProgressBar(p.w)
	}
	p.bar.update(pr)
}

func (p *phasedBar) done() {
	if p.bar != nil {
		p.bar.done()
	}
}
