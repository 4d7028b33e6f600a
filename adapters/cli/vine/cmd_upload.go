// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine/gardener"
)

func init() {
	registerCommand(uploadCommand)
}

func uploadCommand() *cli.Command {
	return &cli.Command{
		Name:      "upload",
		Usage:     "send files as bytes, the way a remote client would, and plant them",
		UsageText: "vine upload FILE... --forest DIR [--dest BRANCH] [--json]",
		Flags:     append(ingestCLIFlags(false), visionFlags()...),
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdUpload(ctx, c, envOf(c))) },
	}
}

// cmdUpload sends files as bytes, the way a remote client would: each is
// staged under its base name, planted or refreshed, and removed from the
// staging folder once it landed. The files named stay where they are.
func cmdUpload(ctx context.Context, c *cli.Command, e env) int {
	f, pos, ok := ingestFlagsOf(c, e, false)
	if !ok {
		return exitUsage
	}
	if len(pos) == 0 {
		fmt.Fprintln(e.stderr, "vine upload: name at least one FILE")
		return exitUsage
	}
	vision, err := visionOf(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine upload: %v\n", err)
		return exitUsage
	}
	files := make([]gardener.UploadFile, len(pos))
	for i, p := range pos {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "vine upload: %v\n", err)
			return exitUsage
		}
		files[i] = gardener.UploadFile{Name: filepath.Base(p), Data: data}
	}
	r, err := openIngest(ctx, "upload", f, e)
	if err != nil {
		return fail(e.stdout, e.stderr, "upload", err)
	}
	r.withExtensions(ctx, c)
	opts := r.options()
	opts.Converters = append(opts.Converters, vision...) // uploads are described too (v0.78)
	rep, err := gardener.New(r.v, opts).Upload(ctx, files, f.dest)
	return r.finish(rep, err)
}
