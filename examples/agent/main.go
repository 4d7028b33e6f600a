// SPDX-License-Identifier: Apache-2.0

// Command agent is the reference agent: a llama.cpp-served model walks a
// forest with the read primitives (the answer composite's walk mode) and
// answers a question, citing the nodes it read.
//
//	llama-server -m qwen3-4b.gguf --port 8080 &
//	go run ./examples/agent --endpoint http://127.0.0.1:8080/v1 --model qwen3-4b \
//	    --forest ./my-forest "How did the Lighthouse pilot go?"
//
// Each hop is reported on stderr as it lands; the answer, its evidence
// and its sources go to stdout (--json prints the whole response). The
// forest is opened read-only, so the agent can run beside a writer.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/answer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// config is the command line.
type config struct {
	endpoint, model, forest string
	hops, k, replyTokens    int
	since, until            string
	asJSON                  bool
	question                string
}

const usage = `usage: agent --endpoint URL --model NAME --forest DIR [flags] QUESTION

A model served by llama.cpp (or any OpenAI-compatible server) explores the
forest with locate, sniff, look, move, pick, scan, query, coverage and
calendar, then answers with the nodes it read.

flags:
`

// run is the whole command, testable in-process: 0 on an answer, 1 on a
// failure, 2 on a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "agent:", err)
		}
		return 2
	}
	if err := walk(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "agent:", err)
		return 1
	}
	return 0
}

func parse(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	fs.StringVar(&cfg.endpoint, "endpoint", "", "OpenAI-compatible API base, e.g. http://127.0.0.1:8080/v1 (required)")
	fs.StringVar(&cfg.model, "model", "", "model name sent to the server (required)")
	fs.StringVar(&cfg.forest, "forest", "", "forest directory (required)")
	fs.IntVar(&cfg.hops, "hops", answer.DefaultHops, "hop budget, 1-16")
	fs.IntVar(&cfg.k, "k", 3, "entry search size and evidence fallback")
	fs.IntVar(&cfg.replyTokens, "reply-tokens", 0, "reply size, 64-4000 tokens (0: 1500)")
	fs.StringVar(&cfg.since, "since", "", "window start: YYYY, YYYY-MM or YYYY-MM-DD")
	fs.StringVar(&cfg.until, "until", "", "window end")
	fs.BoolVar(&cfg.asJSON, "json", false, "print the whole response as JSON")
	words, err := parseAnywhere(fs, args)
	if err != nil {
		return nil, err
	}
	cfg.question = strings.TrimSpace(strings.Join(words, " "))
	if cfg.endpoint == "" || cfg.model == "" || cfg.forest == "" || cfg.question == "" {
		fs.Usage()
		return nil, flag.ErrHelp
	}
	return cfg, nil
}

// parseAnywhere lets flags and the question's words interleave.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return words, nil
		}
		words = append(words, args[0])
		args = args[1:]
	}
}

func walk(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	client, err := llamacpp.New(cfg.endpoint, cfg.model)
	if err != nil {
		return err
	}
	v, err := vine.Open(ctx, cfg.forest, &vine.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer v.Close()
	a := answer.New(answer.LlamaCpp(client), &answer.Options{
		Binding: answer.Binding{Provider: "llamacpp", Model: cfg.model}})
	defer a.Close()
	res, err := a.Walk(ctx, v, cfg.question, answer.Params{
		Hops: cfg.hops, K: cfg.k, ReplyTokens: cfg.replyTokens, Since: cfg.since, Until: cfg.until,
		OnHop: func(h answer.Hop) { fmt.Fprintln(stderr, describe(h, cfg.hops)) },
	})
	if err != nil {
		return err
	}
	if cfg.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printAnswer(stdout, res)
	return nil
}

// describe is one progress line per hop.
func describe(h answer.Hop, budget int) string {
	what := h.ID
	if q, ok := h.Args["query"].(string); ok && what == "" {
		what = fmt.Sprintf("%q", q)
	}
	status := "ok"
	if !h.OK {
		status = h.Out.Error
	}
	return strings.TrimSpace(fmt.Sprintf("[hop %d/%d] %s %s (%s, %.1f ms)", h.N, budget, h.Tool, what, status, h.MS))
}

func printAnswer(w io.Writer, res *answer.Response) {
	switch {
	case res.Exhausted:
		fmt.Fprintln(w, "(no answer: the hop budget ran out)")
	case res.Truncated:
		fmt.Fprintf(w, "(cut at the reply cap, finish_reason %s)\n%s\n", res.FinishReason, res.Answer)
	case res.Cached:
		fmt.Fprintf(w, "%s\n(served from the answer store, first answered %s)\n", res.Answer, res.CachedAt)
	default:
		fmt.Fprintln(w, res.Answer)
	}
	fmt.Fprintln(w, "\nevidence:")
	titles := map[string]string{}
	for _, s := range res.Sources {
		titles[s.ID] = s.Title
	}
	for _, id := range res.Evidence {
		fmt.Fprintf(w, "  %s [%s]\n", titles[id], id)
	}
	if res.Usage != nil {
		fmt.Fprintf(w, "\n%d hops, %d model calls, %d+%d tokens\n", len(res.Hops), res.Usage.Calls,
			res.Usage.Prompt, res.Usage.Completion)
	}
}
