package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/monkeyllm/vine/gardener"
)

func init() {
	register("sync", command{"sync     --forest DIR [--path P]... [--source DIR] [--dest BRANCH] [--json] [--dry-run]",
		func(ctx context.Context, a []string, e env) int { return cmdSync(ctx, a, e) }})
}

// pathList collects a repeatable --path flag.
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(s string) error { *p = append(*p, s); return nil }

func cmdSync(ctx context.Context, args []string, e env) int {
	f := newIngestFlags("sync", e.stderr, true)
	var paths pathList
	var source string
	f.fs.Var(&paths, "path", "reconcile only this source-relative file (repeatable)")
	f.fs.StringVar(&source, "source", "", "directory to walk instead of the recorded source_root")
	pos, ok := f.parse(args, e.stderr)
	if !ok {
		return exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintln(e.stderr, "vine sync: takes no positional argument; name files with --path")
		return exitUsage
	}
	r, err := openIngest(ctx, "sync", f, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "sync", err)
	}
	opt := gardener.SyncOptions{Source: source, Dest: f.dest, Paths: paths}
	var rep *gardener.IngestReport
	if f.dry {
		rep, err = gardener.NewPreview(r.v, r.options()).Sync(ctx, opt)
	} else {
		rep, err = gardener.New(r.v, r.options()).Sync(ctx, opt)
	}
	return r.finish(rep, err)
}
