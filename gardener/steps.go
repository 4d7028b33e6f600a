// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"iter"

	"github.com/monkeyllm/vine"
)

// Step is one document taken (G.10): its source-relative path, how many
// steps are done including this one, the total, and what happened — the
// first report list the step grew, in the precedence planted, updated,
// unchanged, unsupported, error, stale ("skipped" when none grew).
type Step struct {
	File   string `json:"file"`
	Index  int    `json:"index"`
	Total  int    `json:"total"`
	Action string `json:"action"`
}

// Steps is a batch being taken one whole document at a time. Everything
// that can refuse the batch was checked when it was made; each Next
// converts, curates and plants exactly one document, so abandoning it
// after k steps leaves exactly k documents, each committed. Steps is not
// safe for concurrent use.
type Steps struct {
	r     *run
	tasks []task
	done  int
}

// Total is the number of steps the batch will take.
func (s *Steps) Total() int { return len(s.tasks) }

// Done is the number of steps taken.
func (s *Steps) Done() int { return s.done }

// Next takes one step. ok is false when the batch is exhausted. An error
// is the context's end (or another reason the batch cannot go on); the
// document in hand was then not written, and the steps already taken
// stand. Per-file failures are not errors: they are "error" steps.
func (s *Steps) Next(ctx context.Context) (step Step, ok bool, err error) {
	if s.done >= len(s.tasks) {
		return Step{}, false, nil
	}
	if err := ctx.Err(); err != nil {
		return Step{}, false, err
	}
	t := s.tasks[s.done]
	// A step only appends to the report's lists and adds to its counters,
	// so a shallow copy is enough to take it back: the lists' headers
	// keep their old lengths. A deep one cost a copy of every list per
	// step, the planted ids of thousands of documents included.
	snapshot := *s.r.report
	before := s.r.report.sizes()
	if err := s.r.do(ctx, t); err != nil {
		*s.r.report = snapshot // an absent document leaves no trace in the report either
		return Step{}, false, err
	}
	s.done++
	step = Step{File: t.file(), Index: s.done, Total: len(s.tasks), Action: s.r.report.actionSince(before)}
	if p := s.r.c.opt.Progress; p != nil {
		p(vine.Progress{Op: s.r.op, Done: s.done, Total: len(s.tasks)})
	}
	return step, true, nil
}

// All ranges over the remaining steps; an error ends the sequence after
// being yielded once.
func (s *Steps) All(ctx context.Context) iter.Seq2[Step, error] {
	return func(yield func(Step, error) bool) {
		for {
			step, ok, err := s.Next(ctx)
			if err != nil {
				yield(step, err)
				return
			}
			if !ok || !yield(step, nil) {
				return
			}
		}
	}
}

// Partial is a copy of the report so far, readable at any time.
func (s *Steps) Partial() *IngestReport { return s.r.report.clone() }

// Result is the unabridged report once every step is taken, else nil.
func (s *Steps) Result() *IngestReport {
	if s.done < len(s.tasks) {
		return nil
	}
	return s.r.report.clone()
}

// Drain takes every remaining step and returns the report. On an error
// it returns the partial report beside it.
func (s *Steps) Drain(ctx context.Context) (*IngestReport, error) {
	for {
		_, ok, err := s.Next(ctx)
		if err != nil {
			return s.Partial(), err
		}
		if !ok {
			return s.Result(), nil
		}
	}
}

func (t task) file() string {
	if t.scentID != "" {
		return t.scentID
	}
	return t.rel
}
