// SPDX-License-Identifier: Apache-2.0

// Command bench is the Monkey Bench: it asks one question set of one
// forest through several arms and compares them.
//
//	go run ./examples/bench --endpoint http://127.0.0.1:8080/v1 --model qwen3-4b \
//	    --forest ./my-forest --questions questions.json
//
// Arms:
//
//	monkey         the walk: the model explores with the read primitives
//	rag-top6       BM25 over body chunks (in memory), top 6, one completion
//	rag-iterative  the same index; the model may search again, 3 rounds
//	sweep          the answer composite's default: harvest + one completion
//
// Metrics per arm: correct answers, how often a banana (an expected node)
// reached the model, hops- and tokens-to-banana (retrieval actions, and
// provider tokens up to the call that first read a banana), banana
// precision (the share of cited nodes that are bananas), tokens per
// question and the median wall time. A question set is a JSON list of
// {id, question, expected_nodes, answer_contains}; expected nodes must
// come from reading the documents, never from running a search.
//
// The bench leaves the forest's heat untouched (sessions close as
// failures), so the order of the arms cannot favour one of them, and it
// never serves an answer from the store.
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

const usage = `usage: bench --endpoint URL --model NAME --forest DIR --questions FILE [flags]

Runs the Monkey Bench: every question through every arm, then a table.

flags:
`

// config is the command line.
type config struct {
	endpoint, model, forest, questions string
	arms                               []string
	hops, k, ragK, rounds, replyTokens int
	jsonOut                            string
}

// AllArms are the arm names, in report order.
var AllArms = []string{"monkey", "rag-top6", "rag-iterative", "sweep"}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "bench:", err)
		}
		return 2
	}
	client, err := llamacpp.New(cfg.endpoint, cfg.model)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	rep, err := bench(ctx, cfg, answer.LlamaCpp(client), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	if err := rep.WriteTable(stdout); err != nil {
		return 1
	}
	if cfg.jsonOut != "" {
		data, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(cfg.jsonOut, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	return 0
}

func parse(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	fs.StringVar(&cfg.endpoint, "endpoint", "", "OpenAI-compatible API base (required)")
	fs.StringVar(&cfg.model, "model", "", "model name (required)")
	fs.StringVar(&cfg.forest, "forest", "", "forest directory (required)")
	fs.StringVar(&cfg.questions, "questions", "", "question set, a JSON list (required)")
	arms := fs.String("arms", strings.Join(AllArms, ","), "arms to run, comma-separated")
	fs.IntVar(&cfg.hops, "hops", answer.DefaultHops, "the monkey's hop budget")
	fs.IntVar(&cfg.k, "k", 3, "entry search size (monkey) and bundle size (sweep)")
	fs.IntVar(&cfg.ragK, "rag-k", 6, "chunks per RAG retrieval")
	fs.IntVar(&cfg.rounds, "rounds", 3, "rounds of iterative RAG")
	fs.IntVar(&cfg.replyTokens, "reply-tokens", 0, "reply cap of every arm (0: 1500)")
	fs.StringVar(&cfg.jsonOut, "json", "", "also write the full report (every trial) to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 || cfg.endpoint == "" || cfg.model == "" || cfg.forest == "" || cfg.questions == "" {
		fs.Usage()
		return nil, flag.ErrHelp
	}
	for _, a := range strings.Split(*arms, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		known := false
		for _, k := range AllArms {
			known = known || k == a
		}
		if !known {
			return nil, fmt.Errorf("unknown arm %q; arms are %s", a, strings.Join(AllArms, ", "))
		}
		cfg.arms = append(cfg.arms, a)
	}
	return cfg, nil
}

// bench opens the forest, builds the arms over model and runs them.
func bench(ctx context.Context, cfg *config, model answer.Model, stderr io.Writer) (*Report, error) {
	qs, err := LoadQuestions(cfg.questions)
	if err != nil {
		return nil, err
	}
	v, err := vine.Open(ctx, cfg.forest, &vine.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	arms, err := newArms(cfg, v, model)
	if err != nil {
		return nil, err
	}
	r := &Runner{Arms: arms, Progress: func(done, total int, rec Record) {
		mark := "wrong"
		if rec.Correct {
			mark = "correct"
		}
		if rec.Error != "" {
			mark = "error: " + rec.Error
		}
		fmt.Fprintf(stderr, "[%d/%d] %s %s: %s\n", done, total, rec.Arm, rec.Question, mark)
	}}
	return r.Run(ctx, qs)
}

// newArms builds the named arms. Each meters its own calls; the answer
// arms never use the store, so every ask reaches the model.
func newArms(cfg *config, v *vine.Vine, model answer.Model) ([]Arm, error) {
	answerer := func(m answer.Model) *answer.Answerer {
		return answer.New(m, &answer.Options{Binding: answer.Binding{Provider: "llamacpp", Model: cfg.model},
			Store: answer.StoreOptions{Disabled: true}})
	}
	var ix *Index
	index := func() (*Index, error) {
		if ix != nil {
			return ix, nil
		}
		chunks, err := Chunks(v.Dir())
		if err != nil {
			return nil, err
		}
		ix = NewIndex(chunks)
		return ix, nil
	}
	var arms []Arm
	for _, name := range cfg.arms {
		m := &meter{m: model}
		switch name {
		case "monkey":
			arms = append(arms, &monkey{a: answerer(m), v: v, m: m, hops: cfg.hops, k: cfg.k, replyToken: cfg.replyTokens})
		case "sweep":
			arms = append(arms, &sweep{a: answerer(m), v: v, m: m, k: cfg.k, replyToken: cfg.replyTokens})
		case "rag-top6", "rag-iterative":
			idx, err := index()
			if err != nil {
				return nil, err
			}
			reply := cfg.replyTokens
			if reply == 0 {
				reply = answer.DefaultMaxTokens
			}
			if name == "rag-top6" {
				arms = append(arms, &ragTopK{ix: idx, m: m, k: cfg.ragK, reply: reply})
			} else {
				arms = append(arms, &ragIterative{ix: idx, m: m, k: cfg.ragK, rounds: cfg.rounds, reply: reply})
			}
		}
	}
	return arms, nil
}
