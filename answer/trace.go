// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/trails"
)

// traceFile is where the forest appends a session's events (Part D): the
// layout is part of the format, so a composite can slice what its own
// calls appended without a second stopwatch.
func traceFile(dir, session string) string {
	return filepath.Join(dir, forest.DerivedDir, "traces", session+".jsonl")
}

// traceMark is the size of the session's trace before a call: the events
// of the call are what lies after it.
func traceMark(dir, session string) int64 {
	fi, err := os.Stat(traceFile(dir, session))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// traceSince reads the events appended after mark. Telemetry never fails
// an answer: an unreadable trace is an empty slice.
func traceSince(dir, session string, mark int64) []trails.Event {
	f, err := os.Open(traceFile(dir, session))
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(mark, io.SeekStart); err != nil {
		return nil
	}
	events, _ := readEvents(f)
	return events
}

// maxTraceLine bounds one trace line; an event is a few hundred bytes.
const maxTraceLine = 1 << 20

// readEvents parses a JSON-lines trace: primitive events are kept in
// order, session outcomes and unparseable lines skipped (a line cut by a
// crash must not hide the rest).
func readEvents(r io.Reader) ([]trails.Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTraceLine)
	var out []trails.Event
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e trails.Event
		if json.Unmarshal(line, &e) != nil || e.Primitive == "" {
			continue
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return out, err
	}
	return out, nil
}

// steps turns events into trace steps.
func steps(events []trails.Event) []Step {
	out := make([]Step, 0, len(events))
	for _, e := range events {
		s := Step{Step: e.Primitive, MS: e.ElapsedMS, Tokens: e.TokensOut, EmbedMS: e.EmbedMS, DenseMS: e.DenseMS}
		if e.ID != nil {
			s.ID = *e.ID
		}
		out = append(out, s)
	}
	return out
}

// newTrace sums a call's steps, adding the model step when a provider
// ran (modelMS ≥ 0).
func newTrace(st []Step, model string, modelMS float64) *Trace {
	t := &Trace{Steps: nonNil(st)}
	var embed, dense float64
	for _, s := range st {
		t.RetrievalMS += s.MS
		if s.EmbedMS != nil {
			embed += *s.EmbedMS
		}
		if s.DenseMS != nil {
			dense += *s.DenseMS
		}
	}
	t.TotalMS = t.RetrievalMS
	if modelMS >= 0 {
		t.Steps = append(t.Steps, Step{Step: "model", MS: round1(modelMS), Detail: model})
		t.TotalMS += modelMS
	}
	t.RetrievalMS, t.TotalMS = round1(t.RetrievalMS), round1(t.TotalMS)
	if embed > 0 {
		e := round1(embed)
		t.EmbedMS = &e
	}
	if dense > 0 {
		d := round1(dense)
		t.DenseMS = &d
	}
	return t
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
