// SPDX-License-Identifier: Apache-2.0

// Command troop runs the Troop lab (Part E): N walkers explore one forest
// from distinct entry points, sharing session heat and a call cache; a
// judge (one more model call) writes the answer, and only the trails it
// cites earn persistent heat. It measures rounds against a solo walk and
// the tokens spent.
//
//	go run ./examples/troop --endpoint http://127.0.0.1:8080/v1 --model qwen3-4b \
//	    --forest ./my-forest --n 3 --policy quorum "Which boats had incidents at night?"
//
// The Troop is an accuracy amplifier, not a speed-up, and stays a lab:
// the answer composite has no multi-agent parameter.
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

const usage = `usage: troop --endpoint URL --model NAME --forest DIR [flags] QUESTION

N walkers answer QUESTION from distinct entry points; a judge synthesises.

flags:
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("troop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	endpoint := fs.String("endpoint", "", "OpenAI-compatible API base (required)")
	model := fs.String("model", "", "model name (required)")
	dir := fs.String("forest", "", "forest directory (required)")
	n := fs.Int("n", 3, "walkers")
	hops := fs.Int("hops", answer.DefaultHops, "hop budget per walker")
	policy := fs.String("policy", StopFirst, "stop policy: first, quorum or none")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	words, err := parseAnywhere(fs, args)
	question := strings.TrimSpace(strings.Join(words, " "))
	if err == nil && (*endpoint == "" || *model == "" || *dir == "" || question == "") {
		fs.Usage()
		err = flag.ErrHelp
	}
	if err == nil && *policy != StopFirst && *policy != StopQuorum && *policy != StopNone {
		err = fmt.Errorf("--policy must be first, quorum or none, got %q", *policy)
	}
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "troop:", err)
		}
		return 2
	}
	client, err := llamacpp.New(*endpoint, *model)
	if err != nil {
		fmt.Fprintln(stderr, "troop:", err)
		return 1
	}
	res, err := hunt(ctx, answer.LlamaCpp(client), *dir, *model, *n, *hops, *policy, question, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "troop:", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return 1
		}
		return 0
	}
	report(stdout, res)
	return 0
}

func hunt(ctx context.Context, m answer.Model, dir, model string, n, hops int, policy, question string,
	stderr io.Writer) (*Result, error) {
	v, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	a := answer.New(m, &answer.Options{Binding: answer.Binding{Provider: "llamacpp", Model: model}})
	defer a.Close()
	tr := &Troop{Forest: v, Answerer: a, Judge: m, N: n, Hops: hops, Policy: policy,
		Progress: func(w int, h answer.Hop) {
			fmt.Fprintf(stderr, "[walker %d hop %d] %s %s ok=%v\n", w+1, h.N, h.Tool, h.ID, h.OK)
		}}
	return tr.Hunt(ctx, question)
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

func report(w io.Writer, res *Result) {
	fmt.Fprintln(w, res.Answer)
	fmt.Fprintln(w)
	for i, wk := range res.Walkers {
		status := "no answer"
		switch {
		case wk.Error != "":
			status = "failed: " + wk.Error
		case wk.Confident:
			status = "answered"
		}
		fmt.Fprintf(w, "walker %d from %s: %d hops, %s, evidence %v\n", i+1, wk.Entry, wk.Hops, status, wk.Evidence)
	}
	fmt.Fprintf(w, "winners %v; rounds %d vs solo %d hops; %d tokens; %d calls from the shared cache\n",
		res.Winners, res.Rounds, res.SoloHops, res.Tokens, res.CacheServed)
}
