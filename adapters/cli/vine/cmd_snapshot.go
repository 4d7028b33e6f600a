package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/monkeyllm/vine/snapshot"
)

func init() {
	register("snapshot", command{
		"snapshot create --forest DIR [--out DIR] [--no-payloads] [--json] | restore FILE --forest NEWDIR [--payloads SIDECAR] [--max-bytes N] [--json]",
		cmdSnapshot})
}

// cmdSnapshot writes a .forest file (create) or makes a new forest from
// one (restore), drawing progress on stderr.
func cmdSnapshot(ctx context.Context, args []string, e env) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(e.stderr, "vine snapshot: name the action first: vine snapshot create --forest DIR, or vine snapshot restore FILE --forest NEWDIR")
		return exitUsage
	}
	switch args[0] {
	case "create":
		return snapshotCreate(ctx, args[1:], e)
	case "restore":
		return snapshotRestore(ctx, args[1:], e)
	}
	fmt.Fprintf(e.stderr, "vine snapshot: unknown action %q, expected create or restore\n", args[0])
	return exitUsage
}

func snapshotCreate(ctx context.Context, args []string, e env) int {
	var dir, out string
	var noPayloads, asJSON bool
	fs := flag.NewFlagSet("snapshot create", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&dir, "forest", "", "forest directory")
	fs.StringVar(&out, "out", "", "directory for the .forest file (default: the forest's parent)")
	fs.BoolVar(&noPayloads, "no-payloads", false, "leave the payloads out (metadata only; reported)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	pos, err := parseAnywhere(fs, args)
	if err != nil {
		return exitUsage
	}
	switch {
	case len(pos) > 0:
		fmt.Fprintf(e.stderr, "vine snapshot create: takes no arguments besides flags, got %q\n", strings.Join(pos, " "))
		return exitUsage
	case dir == "":
		fmt.Fprintln(e.stderr, "vine snapshot create: --forest DIR is required")
		return exitUsage
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

func snapshotRestore(ctx context.Context, args []string, e env) int {
	var dir, sidecar string
	var maxBytes int64
	var asJSON bool
	fs := flag.NewFlagSet("snapshot restore", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&dir, "forest", "", "new forest directory (absent or empty)")
	fs.StringVar(&sidecar, "payloads", "", "legacy payload sidecar (<bundle>.payloads.zip) for a bare bundle")
	fs.Int64Var(&maxBytes, "max-bytes", snapshot.DefaultMaxBytes, "uncompressed ceiling of the archive")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	pos, err := parseAnywhere(fs, args)
	if err != nil {
		return exitUsage
	}
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
