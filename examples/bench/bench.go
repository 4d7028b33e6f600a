// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
)

// Question is one item of a question set. Expected nodes are the bananas:
// the nodes whose text answers it, written by reading the documents,
// never by running a search. AnswerContains are phrases a correct answer
// must carry (compared case- and accent-insensitively).
type Question struct {
	ID             string   `json:"id"`
	Question       string   `json:"question"`
	ExpectedNodes  []string `json:"expected_nodes"`
	AnswerContains []string `json:"answer_contains"`
}

// LoadQuestions reads a question set (a JSON list).
func LoadQuestions(path string) ([]Question, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []Question
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, q := range qs {
		if q.ID == "" || strings.TrimSpace(q.Question) == "" || len(q.ExpectedNodes) == 0 {
			return nil, fmt.Errorf("%s: question %d needs id, question and expected_nodes", path, i+1)
		}
	}
	return qs, nil
}

// Arm is one way of answering: the monkey's walk, a RAG pipeline, ...
type Arm interface {
	Name() string
	Ask(ctx context.Context, q Question) (Trial, error)
}

// Trial is what an arm did for one question. The banana is the first
// expected node whose text reached the model: HopsToBanana counts the
// retrieval actions up to it (walk hops, RAG rounds), TokensToBanana the
// provider's tokens of every model call up to and including the one that
// first read it. Both are nil when no banana was ever read.
type Trial struct {
	Answer         string   `json:"answer"`
	AnswerNodes    []string `json:"answer_nodes"`
	Truncated      bool     `json:"truncated,omitempty"`
	HopsToBanana   *int     `json:"hops_to_banana"`
	TokensToBanana *int     `json:"tokens_to_banana"`
	Tokens         int      `json:"tokens"`
	Calls          int      `json:"calls"`
}

// Record is one scored trial.
type Record struct {
	Arm      string   `json:"arm"`
	Question string   `json:"question"`
	Trial    Trial    `json:"trial"`
	Correct  bool     `json:"correct"`
	Precise  *float64 `json:"banana_precision"`
	WallMS   float64  `json:"wall_ms"`
	Error    string   `json:"error,omitempty"`
}

// ArmSummary aggregates one arm over the question set.
type ArmSummary struct {
	Arm            string   `json:"arm"`
	Questions      int      `json:"questions"`
	Correct        int      `json:"correct"`
	Bananas        int      `json:"bananas"` // trials that read a banana
	HopsToBanana   *float64 `json:"hops_to_banana"`
	TokensToBanana *float64 `json:"tokens_to_banana"`
	Precision      *float64 `json:"banana_precision"`
	Tokens         float64  `json:"tokens"`
	WallMS         float64  `json:"wall_ms"` // median
	Errors         int      `json:"errors"`
}

// Report is a bench run.
type Report struct {
	Arms    []ArmSummary `json:"arms"`
	Records []Record     `json:"records"`
}

// Runner asks every arm every question.
type Runner struct {
	Arms []Arm
	// Progress, when set, hears each finished trial: done of total.
	Progress func(done, total int, r Record)
}

// Run runs the bench. Arms run one question at a time so wall times are
// comparable; an arm's failure on one question is recorded, not fatal.
func (r *Runner) Run(ctx context.Context, qs []Question) (*Report, error) {
	rep := &Report{}
	total, done := len(qs)*len(r.Arms), 0
	for _, arm := range r.Arms {
		for _, q := range qs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			start := time.Now()
			trial, err := arm.Ask(ctx, q)
			rec := score(arm.Name(), q, trial)
			rec.WallMS = float64(time.Since(start).Microseconds()) / 1000
			if err != nil {
				rec.Error, rec.Correct = err.Error(), false
			}
			rep.Records = append(rep.Records, rec)
			done++
			if r.Progress != nil {
				r.Progress(done, total, rec)
			}
		}
	}
	for _, arm := range r.Arms {
		rep.Arms = append(rep.Arms, summarise(arm.Name(), rep.Records))
	}
	return rep, nil
}

// score judges one trial: correct when the answer carries every expected
// phrase (or, with none listed, cites a banana) and is whole; banana
// precision is the share of cited nodes that are bananas.
func score(arm string, q Question, t Trial) Record {
	rec := Record{Arm: arm, Question: q.ID, Trial: t}
	answer := vine.Fold(strings.ToLower(t.Answer))
	rec.Correct = t.Answer != "" && !t.Truncated
	for _, want := range q.AnswerContains {
		if !strings.Contains(answer, vine.Fold(strings.ToLower(want))) {
			rec.Correct = false
		}
	}
	hits := 0
	for _, id := range t.AnswerNodes {
		if slices.Contains(q.ExpectedNodes, id) {
			hits++
		}
	}
	if len(q.AnswerContains) == 0 && hits == 0 {
		rec.Correct = false
	}
	if len(t.AnswerNodes) > 0 {
		p := float64(hits) / float64(len(t.AnswerNodes))
		rec.Precise = &p
	}
	return rec
}

func summarise(arm string, recs []Record) ArmSummary {
	s := ArmSummary{Arm: arm}
	var hops, tokens, prec, walls []float64
	for _, r := range recs {
		if r.Arm != arm {
			continue
		}
		s.Questions++
		if r.Correct {
			s.Correct++
		}
		if r.Error != "" {
			s.Errors++
		}
		if r.Trial.HopsToBanana != nil {
			s.Bananas++
			hops = append(hops, float64(*r.Trial.HopsToBanana))
			tokens = append(tokens, float64(*r.Trial.TokensToBanana))
		}
		if r.Precise != nil {
			prec = append(prec, *r.Precise)
		}
		s.Tokens += float64(r.Trial.Tokens)
		walls = append(walls, r.WallMS)
	}
	s.HopsToBanana, s.TokensToBanana, s.Precision = mean(hops), mean(tokens), mean(prec)
	if s.Questions > 0 {
		s.Tokens /= float64(s.Questions)
	}
	s.WallMS = median(walls)
	return s
}

func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	m := sum / float64(len(xs))
	return &m
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// WriteTable prints the per-arm summary as an aligned table.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "arm\tcorrect\tbananas\thops-to-banana\ttokens-to-banana\tbanana precision\ttokens/question\twall ms (median)\terrors\t")
	for _, a := range r.Arms {
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%s\t%s\t%s\t%.0f\t%.1f\t%d\t\n", a.Arm, a.Correct, a.Questions,
			a.Bananas, a.Questions, opt(a.HopsToBanana, "%.2f"), opt(a.TokensToBanana, "%.0f"),
			opt(a.Precision, "%.2f"), a.Tokens, a.WallMS, a.Errors)
	}
	return tw.Flush()
}

func opt(f *float64, format string) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf(format, *f)
}

// meter counts a model's calls and metered tokens, call by call, so an
// arm can tell how many tokens it had spent when the banana arrived.
type meter struct {
	m     answer.Model
	mu    sync.Mutex
	spent []int // tokens of each call, in order
}

func (c *meter) Complete(ctx context.Context, msgs []answer.Message, maxTokens int) (*answer.Reply, error) {
	r, err := c.m.Complete(ctx, msgs, maxTokens)
	if err == nil {
		c.mu.Lock()
		c.spent = append(c.spent, r.PromptTokens+r.CompletionTokens)
		c.mu.Unlock()
	}
	return r, err
}

// reset starts a new trial and returns a function that reports the
// tokens of the trial's first n calls (all of them when n < 0) and its
// call count.
func (c *meter) reset() func(n int) (tokens, calls int) {
	c.mu.Lock()
	c.spent = nil
	c.mu.Unlock()
	return func(n int) (int, int) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if n < 0 || n > len(c.spent) {
			n = len(c.spent)
		}
		sum := 0
		for _, s := range c.spent[:n] {
			sum += s
		}
		return sum, len(c.spent)
	}
}
