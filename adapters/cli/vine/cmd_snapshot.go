// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

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
		UsageText: "vine snapshot create --forest DIR [--out DIR] [--no-payloads] [--json] | restore FILE --forest NEWDIR [--payloads SIDECAR] [--max-bytes N] [--json]",
		Commands: []*cli.Command{
			{
				Name:      "create",
				Usage:     "write the forest, its history and payloads to one .forest file",
				UsageText: "vine snapshot create --forest DIR [--out DIR] [--no-payloads] [--json]",
				Flags: []cli.Flag{
					forestFlag(),
					&cli.StringFlag{Name: "out", Usage: "`DIR` for the .forest file (default: the forest's parent)", TakesFile: true},
					&cli.BoolFlag{Name: "no-payloads", Usage: "leave the payloads out (metadata only; reported)"},
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
	out, noPayloads, asJSON := c.String("out"), c.Bool("no-payloads"), c.Bool("json")
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "snapshot")
	if dir == "" {
		return code
	}
	bar := newProgressBar(e.stderr)
	res, err := snapshot.Create(ctx, dir, snapshot.CreateOptions{OutDir: out, NoPayloads: noPayloads, Progress: bar.update})
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
	return exitOK
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
