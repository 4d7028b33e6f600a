// SPDX-License-Identifier: Apache-2.0

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/canopy"
)

func init() {
	registerCommand(canopyCommand)
}

// canopyFlags are the options of every canopy subcommand.
type canopyFlags struct {
	embedder, endpoint, model string
	dim                       int
}

// The environment of vine canopy, read here and nowhere in the library:
// MONKEYLLM_EMBED_ENDPOINT names an OpenAI-compatible embeddings server
// (used when no --embedder is given, and as --embedder llamacpp's default
// --endpoint), MONKEYLLM_EMBED_MODEL its model when --model is absent,
// MONKEYLLM_EMBED_API_KEY the bearer token sent to it.
const (
	embedEndpointEnv = "MONKEYLLM_EMBED_ENDPOINT"
	embedModelEnv    = "MONKEYLLM_EMBED_MODEL"
	embedAPIKeyEnv   = "MONKEYLLM_EMBED_API_KEY"
)

// hashDefaultDim is the dimension of --embedder hash when --dim is absent.
const hashDefaultDim = 384

// canopyCommand runs the vector layer's maintenance (Part K): build embeds
// every node, refresh the stale ones, status reports the layer. Without
// --embedder, MONKEYLLM_EMBED_ENDPOINT (when set) names an OpenAI-compatible
// server; otherwise no embedder is bound, which status reports and build
// and refresh refuse. The flags belong to canopy and its three actions
// share them, so they may come before or after the action.
func canopyCommand() *cli.Command {
	action := func(name, usage string) *cli.Command {
		return &cli.Command{
			Name:      name,
			Usage:     usage,
			UsageText: "vine canopy " + name + " --forest DIR [--embedder hash|llamacpp] [--endpoint URL] [--model M] [--dim N]",
			Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdCanopy(ctx, c, envOf(c))) },
		}
	}
	return &cli.Command{
		Name:      "canopy",
		Usage:     "build, refresh or report the vector layer (semantic search)",
		UsageText: "vine canopy build|refresh|status --forest DIR [--embedder hash|llamacpp] [--endpoint URL] [--model M] [--dim N]",
		Flags: []cli.Flag{
			forestFlag(),
			&cli.StringFlag{Name: "embedder", Usage: "`KIND`: hash (deterministic, no model) or llamacpp (an OpenAI-compatible /embeddings server)"},
			&cli.StringFlag{Name: "endpoint", Usage: "embedding server base `URL`, e.g. http://localhost:8080/v1 (llamacpp)"},
			&cli.StringFlag{Name: "model", Usage: "embedding model `NAME` (llamacpp: default " + canopy.DefaultModel + "; hash: default hash)"},
			&cli.IntFlag{Name: "dim", Value: hashDefaultDim, Usage: "vector dimension `N` (hash only)"},
			alwaysJSON(),
		},
		Commands: []*cli.Command{
			action("build", "embed every node"),
			action("refresh", "embed the nodes changed since the last build"),
			action("status", "report the layer: embedder, model, vectors, stale nodes"),
		},
		Action: func(_ context.Context, c *cli.Command) error {
			fmt.Fprintf(c.Root().ErrWriter, "vine canopy: name one action, build, refresh or status; got %q\n", strings.Join(c.Args().Slice(), " "))
			return exitCode(exitUsage)
		},
	}
}

func cmdCanopy(ctx context.Context, c *cli.Command, e env) int {
	f := canopyFlags{embedder: c.String("embedder"), endpoint: c.String("endpoint"), model: c.String("model"), dim: int(c.Int("dim"))}
	if c.Args().Present() {
		fmt.Fprintf(e.stderr, "vine canopy: name one action, build, refresh or status; got %q\n", c.Name+" "+strings.Join(c.Args().Slice(), " "))
		return exitUsage
	}
	dir, ok := needForest(c, e)
	if !ok {
		return exitUsage
	}
	emb, err := f.open()
	if err != nil {
		fmt.Fprintf(e.stderr, "vine canopy: %v\n", err)
		return exitUsage
	}
	if err := checkForest(e, "canopy "+c.Name, dir); err != nil {
		return refuse(e.stdout, "canopy "+c.Name, err)
	}
	return canopyRun(ctx, c.Name, dir, emb, e)
}

// open makes the embedder the flags name; nil when none is named and the
// environment names no endpoint.
func (f canopyFlags) open() (canopy.Embedder, error) {
	switch f.embedder {
	case "":
		if f.endpoint != "" {
			return nil, fmt.Errorf("--endpoint needs --embedder llamacpp")
		}
		if strings.TrimSpace(os.Getenv(embedEndpointEnv)) == "" {
			return nil, nil
		}
		return f.llamacpp()
	case "hash":
		if f.dim < 1 {
			return nil, fmt.Errorf("--dim got %d, expected at least 1", f.dim)
		}
		model := f.model
		if model == "" {
			model = "hash"
		}
		return canopy.NewHash(model, f.dim), nil
	case "llamacpp":
		return f.llamacpp()
	}
	return nil, fmt.Errorf("--embedder got %q, expected hash or llamacpp", f.embedder)
}

// llamacpp makes the OpenAI-compatible client of the flags, the
// environment filling what they leave out.
func (f canopyFlags) llamacpp() (canopy.Embedder, error) {
	endpoint := f.endpoint
	if endpoint == "" {
		endpoint = strings.TrimSpace(os.Getenv(embedEndpointEnv))
	}
	if endpoint == "" {
		return nil, fmt.Errorf("--embedder llamacpp needs --endpoint URL (or %s)", embedEndpointEnv)
	}
	model := cmp.Or(f.model, os.Getenv(embedModelEnv), canopy.DefaultModel)
	var opts []llamacpp.Option
	if key := os.Getenv(embedAPIKeyEnv); key != "" {
		opts = append(opts, llamacpp.WithAPIKey(key))
	}
	c, err := llamacpp.New(endpoint, model, opts...)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return c, nil
}

// embedFlags bind an embedder to the forests a command opens (call,
// serve), so hybrid locate and the Gauntlet frontier run outside the
// library too (Part K); the environment fills in as for canopy.
func embedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "embedder", Usage: "bind an embedder `KIND`: hash or llamacpp (default: llamacpp when $MONKEYLLM_EMBED_ENDPOINT is set, else none)"},
		&cli.StringFlag{Name: "embed-endpoint", Usage: "embedding server base `URL` (llamacpp)"},
		&cli.StringFlag{Name: "embed-model", Usage: "embedding model `NAME` (llamacpp: default " + canopy.DefaultModel + ")"},
		&cli.IntFlag{Name: "embed-dim", Value: hashDefaultDim, Usage: "vector dimension `N` (hash only)"},
	}
}

// embedderOf reads embedFlags; nil when none is named and the
// environment names no endpoint.
func embedderOf(c *cli.Command) (canopy.Embedder, error) {
	f := canopyFlags{embedder: c.String("embedder"), endpoint: c.String("embed-endpoint"),
		model: c.String("embed-model"), dim: int(c.Int("embed-dim"))}
	emb, err := f.open()
	if err != nil {
		return nil, errors.New(strings.NewReplacer("--endpoint", "--embed-endpoint", "--dim", "--embed-dim").Replace(err.Error()))
	}
	return emb, nil
}

// canopyRun opens the forest read-only — the layer lives in _derived, so
// maintenance runs beside a live writer — and runs the action.
func canopyRun(ctx context.Context, action, dir string, emb canopy.Embedder, e env) int {
	bar := newProgressBar(e.stderr)
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: true, Embedder: emb, Progress: bar.update, Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "canopy "+action, err)
	}
	defer v.Close()
	var res any
	switch action {
	case "build":
		res, err = v.CanopyBuild(ctx)
	case "refresh":
		res, err = v.CanopyRefresh(ctx)
	default:
		res, err = v.CanopyStatus(ctx)
	}
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "canopy "+action, err)
	}
	return printJSON(e.stdout, res)
}
