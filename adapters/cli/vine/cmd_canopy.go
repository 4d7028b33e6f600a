package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/canopy"
)

func init() {
	register("canopy", command{
		"canopy   build|refresh|status --forest DIR [--embedder hash|llamacpp] [--endpoint URL] [--model M] [--dim N]",
		cmdCanopy,
	})
}

// canopyFlags are the options of every canopy subcommand.
type canopyFlags struct {
	dir, embedder, endpoint, model string
	dim                            int
}

// hashDefaultDim is the dimension of --embedder hash when --dim is absent.
const hashDefaultDim = 384

// cmdCanopy runs the vector layer's maintenance (Part K): build embeds
// every node, refresh the stale ones, status reports the layer. Without
// --embedder, MONKEYLLM_EMBED_ENDPOINT (when set) names an OpenAI-compatible
// server; otherwise no embedder is bound, which status reports and build
// and refresh refuse.
func cmdCanopy(ctx context.Context, args []string, e env) int {
	var f canopyFlags
	fs := flag.NewFlagSet("canopy", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&f.dir, "forest", "", "forest directory")
	fs.StringVar(&f.embedder, "embedder", "", "hash (deterministic, no model) or llamacpp (an OpenAI-compatible /embeddings server)")
	fs.StringVar(&f.endpoint, "endpoint", "", "embedding server base URL, e.g. http://localhost:8080/v1 (llamacpp)")
	fs.StringVar(&f.model, "model", "", "embedding model name (llamacpp: default "+canopy.DefaultModel+"; hash: default hash)")
	fs.IntVar(&f.dim, "dim", hashDefaultDim, "vector dimension (hash only)")
	pos, err := parseAnywhere(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 || (pos[0] != "build" && pos[0] != "refresh" && pos[0] != "status") {
		fmt.Fprintf(e.stderr, "vine canopy: name one action, build, refresh or status; got %q\n", strings.Join(pos, " "))
		return exitUsage
	}
	if f.dir == "" {
		fmt.Fprintln(e.stderr, "vine canopy: --forest DIR is required")
		return exitUsage
	}
	emb, err := f.open()
	if err != nil {
		fmt.Fprintf(e.stderr, "vine canopy: %v\n", err)
		return exitUsage
	}
	return canopyRun(ctx, pos[0], f.dir, emb, e)
}

// open makes the embedder the flags name; nil when none is named and the
// environment names no endpoint.
func (f canopyFlags) open() (canopy.Embedder, error) {
	switch f.embedder {
	case "":
		if f.endpoint != "" {
			return nil, fmt.Errorf("--endpoint needs --embedder llamacpp")
		}
		if h, ok := canopy.HTTPEmbedderFromEnv(); ok {
			return h, nil
		}
		return nil, nil
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
		endpoint := f.endpoint
		if endpoint == "" {
			endpoint = strings.TrimSpace(os.Getenv(canopy.EnvEndpoint))
		}
		if endpoint == "" {
			return nil, fmt.Errorf("--embedder llamacpp needs --endpoint URL (or %s)", canopy.EnvEndpoint)
		}
		model := f.model
		if model == "" {
			model = os.Getenv(canopy.EnvModel)
		}
		return canopy.NewHTTPEmbedder(endpoint, model, os.Getenv(canopy.EnvAPIKey)), nil
	}
	return nil, fmt.Errorf("--embedder got %q, expected hash or llamacpp", f.embedder)
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
