// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"sync"
	"time"
)

// Event is one primitive call as the trace records it. ID is set only
// for primitives whose first parameter is a node id; a locate query is
// never an id.
type Event struct {
	TS        float64  `json:"ts"`
	Session   string   `json:"session"`
	Primitive string   `json:"primitive"`
	ID        *string  `json:"id"`
	TokensIn  int      `json:"tokens_in"`
	TokensOut int      `json:"tokens_out"`
	ElapsedMS float64  `json:"elapsed_ms"`
	EmbedMS   *float64 `json:"embed_ms,omitempty"`
	DenseMS   *float64 `json:"dense_ms,omitempty"`
	// Extensions name the extensions that changed the answer
	// ("ext:<id>"), absent when none did (spec 11 §3).
	Extensions []string `json:"extensions,omitempty"`
}

// Tracer appends events per session to traces/<session>.jsonl under a
// directory and keeps them in memory for the session close. It is safe
// for concurrent use, and many processes may append to one session's
// file: each event is one write of one whole line to a file opened
// O_APPEND, so lines never interleave. The files stay open between
// events (opening and closing per event was a quarter of a move's cost);
// CloseFiles closes them.
type Tracer struct {
	dir   string
	mu    sync.Mutex
	mem   map[string][]Event
	files traceFiles
}

// NewTracer records under dir (created on first write).
func NewTracer(dir string) *Tracer {
	return &Tracer{dir: dir, mem: map[string][]Event{}}
}

// NewSession returns a random 12-hex-digit session id.
func NewSession() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sessionRE keeps session ids to file-name-safe shapes: a session id
// names a file, and a caller must not steer that name out of traces/.
var sessionRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// ValidSession reports whether s can name a session.
func ValidSession(s string) bool { return sessionRE.MatchString(s) && s != "." && s != ".." }

// Append records e in memory and on disk. The disk write is best effort:
// telemetry must never fail a read, so its error is returned for logging.
func (t *Tracer) Append(e Event) error {
	if !ValidSession(e.Session) {
		return errors.New("trails: invalid session id")
	}
	t.mu.Lock()
	t.mem[e.Session] = append(t.mem[e.Session], e)
	t.mu.Unlock()
	line, err := e.appendJSON(make([]byte, 0, 192))
	if err != nil {
		return err
	}
	return t.appendLine(e.Session, line)
}

func (t *Tracer) appendLine(session string, line []byte) error {
	return t.files.append(t.dir, session, append(line, '\n'))
}

// CloseFiles closes the trace files kept open. The Tracer stays usable:
// a later event opens its file again.
func (t *Tracer) CloseFiles() error {
	return t.files.closeAll()
}

// Events returns a copy of the session's events so far.
func (t *Tracer) Events(session string) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.mem[session])
}

// Forget drops a closed session from memory; its file stays.
func (t *Tracer) Forget(session string) {
	t.mu.Lock()
	delete(t.mem, session)
	t.mu.Unlock()
	_ = t.files.close(session) // nothing was lost: every line was written whole
}

// Metrics measure one hunt (Part D §3.2).
type Metrics struct {
	HopsToBanana   *int     `json:"hops_to_banana"`
	TrailLen       *int     `json:"trail_len"`
	TokensToBanana int      `json:"tokens_to_banana"`
	Calls          int      `json:"calls"`
	AnswerNodes    []string `json:"answer_nodes"`
}

// Outcome is what a session close records and returns.
type Outcome struct {
	TS               float64  `json:"ts"`
	Session          string   `json:"session"`
	Outcome          Result   `json:"outcome"`
	Metrics          Metrics  `json:"metrics"`
	SuggestShortcuts []string `json:"suggest_shortcuts"`
}

// Result is the caller's verdict on the hunt.
type Result struct {
	Success     bool     `json:"success"`
	AnswerNodes []string `json:"answer_nodes"`
}

// ShoutTrailLen is the trail length from which a successful hunt suggests
// its answer nodes as shortcuts.
const ShoutTrailLen = 4

var readCalls = []string{"locate", "sniff", "look", "move", "scan", "pick", "query"}

// Measure computes the metrics of a session's events and the shortcuts a
// success suggests. Failure suggests nothing.
func Measure(events []Event, success bool, answerNodes []string) (Metrics, []string) {
	m := Metrics{Calls: len(events), AnswerNodes: nonNil(answerNodes)}
	hops := 0
	for _, e := range events {
		m.TokensToBanana += e.TokensOut
	}
	for _, e := range events {
		if e.Primitive == "pick" || e.Primitive == "query" {
			m.HopsToBanana = &hops
			break
		}
		if e.Primitive == "look" || e.Primitive == "move" {
			hops++
		}
	}
	reads := 0
	for _, e := range events {
		if (e.Primitive == "pick" || e.Primitive == "query") && e.ID != nil && slices.Contains(answerNodes, *e.ID) {
			m.TrailLen = &reads
			break
		}
		if slices.Contains(readCalls, e.Primitive) {
			reads++
		}
	}
	var shout []string
	if success && m.TrailLen != nil && *m.TrailLen >= ShoutTrailLen {
		shout = slices.Clone(answerNodes)
	}
	return m, nonNil(shout)
}

// Close records the outcome of a session in its trace and returns it.
func (t *Tracer) Close(session string, success bool, answerNodes []string, now time.Time) (Outcome, error) {
	if !ValidSession(session) {
		return Outcome{}, errors.New("trails: invalid session id")
	}
	m, shout := Measure(t.Events(session), success, answerNodes)
	out := Outcome{TS: float64(now.UnixNano()) / 1e9, Session: session,
		Outcome: Result{Success: success, AnswerNodes: nonNil(answerNodes)}, Metrics: m, SuggestShortcuts: shout}
	line, err := json.Marshal(out)
	if err != nil {
		return out, err
	}
	return out, t.appendLine(session, line)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
