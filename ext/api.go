// SPDX-License-Identifier: Apache-2.0

package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
)

// Handler functions, one type per seam: the compiler checks that an
// extension's handler fits what its seam passes. The call's forest and
// principal are in ctx ([CallOf]).
type (
	// ConvertFunc converts the file at path (a copy the host made for
	// this call; the extension sees no forest).
	ConvertFunc func(ctx context.Context, path string) (*Conversion, error)
	// CurateFunc edits a new draft (its JSON form); nil means unchanged.
	CurateFunc func(ctx context.Context, draft json.RawMessage) (json.RawMessage, error)
	// EventFunc hears an event after the act succeeded.
	EventFunc func(ctx context.Context, e Event) error
	// JobFunc runs a job an admin pulled on forest.
	JobFunc func(ctx context.Context, forest string) (any, error)
	// ToolFunc answers an MCP tool call with its arguments.
	ToolFunc func(ctx context.Context, args json.RawMessage) (any, error)
	// RouteFunc answers POST /v1/ext/<id>/<name> on forest with body.
	RouteFunc func(ctx context.Context, forest string, body json.RawMessage) (any, error)
	// RankFunc orders harvest's items: the ids it returns, drawn from
	// results; others are dropped, unknown ones ignored.
	RankFunc func(ctx context.Context, query string, results []Ranked) ([]string, error)
	// PromptFunc returns text appended to answer's system message.
	PromptFunc func(ctx context.Context, mode, question, system string) (string, error)
)

// Event is what the events seam receives: a webhook's rationed payload.
type Event struct {
	Event     string          `json:"event"`
	Forest    string          `json:"forest"`
	Principal string          `json:"principal"`
	Data      json.RawMessage `json:"data,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// Ranked is one harvest item handed to a ranking handler.
type Ranked struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Type    string  `json:"type"`
	Score   float64 `json:"score"`
	Summary string  `json:"summary"`
}

// Call is who a handler works for: the forest and principal of the act
// that reached it. Quota, metering and attribution name them.
type Call struct {
	Forest    string `json:"forest,omitempty"`
	Principal string `json:"principal,omitempty"`
	// Auth is the host's own record of the caller (its key, its
	// grants), handed back to the host's callbacks so they answer with
	// exactly the caller's scope. It never leaves the host.
	Auth any `json:"-"`
	// Ext is the extension a callback comes from, set by the host's
	// worker; handlers never set it.
	Ext string `json:"-"`
	// Files are the paths the host handed this call (a converter's copy
	// of its file). A callback that takes a path (models.transcribe)
	// accepts only these: an extension reads nothing else through the
	// host.
	Files []string `json:"-"`
}

type callKey struct{}

// WithCall returns ctx carrying c; hosts call it before a handler runs.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf is the call ctx carries (zero outside a handler).
func CallOf(ctx context.Context) Call {
	c, _ := ctx.Value(callKey{}).(Call)
	return c
}

// Backend is what the host behind an API provides: the engine in
// process, or the host at the other end of a vine-ext/1 pipe. Every
// method receives the handler's ctx, so the host answers for the
// caller it names.
type Backend interface {
	// Config is the extension's settings: stored values over declared
	// defaults, read at every call.
	Config(ctx context.Context) map[string]any
	// Complete calls the model bound to role (chat or vision): req is an
	// OpenAI-style chat request without a model, the reply its answer.
	Complete(ctx context.Context, role string, req json.RawMessage) (json.RawMessage, error)
	// Transcribe sends the audio file to the model bound to role.
	Transcribe(ctx context.Context, role, audio string, req json.RawMessage) (json.RawMessage, error)
	// CallVine calls a primitive with the caller's scope.
	CallVine(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
	// Log writes to the host's log, tagged with the extension.
	Log(ctx context.Context, level slog.Level, msg string)
}

// API is what an extension's Register receives: the one way to claim a
// seam, and the enumerated host capabilities a handler may use. Claims
// are refused once Register has returned.
type API struct {
	man     Manifest
	backend Backend

	mu       sync.Mutex
	sealed   bool
	handlers map[Seam]map[string]any
}

// NewAPI is the API a host (or the sdk) hands to e's Register. Hosts
// call it; extension authors never do.
func NewAPI(m Manifest, b Backend) *API {
	return &API{man: m, backend: b, handlers: map[Seam]map[string]any{}}
}

// ErrSealed refuses a claim made after Register returned.
var ErrSealed = errors.New("ext: contributions are closed once Register returns")

func (a *API) contribute(s Seam, name string, fn any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sealed {
		return ErrSealed
	}
	if !nameRE.MatchString(name) {
		return fmt.Errorf("ext: %s handler %q must match %s", s, name, nameRE)
	}
	if a.handlers[s] == nil {
		a.handlers[s] = map[string]any{}
	}
	if _, dup := a.handlers[s][name]; dup {
		return fmt.Errorf("ext: %s handler %q contributed twice", s, name)
	}
	a.handlers[s][name] = fn
	return nil
}

// Converter contributes a converters handler.
func (a *API) Converter(name string, fn ConvertFunc) error {
	return a.contribute(SeamConverters, name, fn)
}

// Curation contributes a curation handler.
func (a *API) Curation(name string, fn CurateFunc) error {
	return a.contribute(SeamCuration, name, fn)
}

// Events contributes an events handler.
func (a *API) Events(name string, fn EventFunc) error { return a.contribute(SeamEvents, name, fn) }

// Job contributes a jobs handler.
func (a *API) Job(name string, fn JobFunc) error { return a.contribute(SeamJobs, name, fn) }

// Tool contributes a tools handler.
func (a *API) Tool(name string, fn ToolFunc) error { return a.contribute(SeamTools, name, fn) }

// Route contributes a routes handler.
func (a *API) Route(name string, fn RouteFunc) error { return a.contribute(SeamRoutes, name, fn) }

// Ranking contributes a ranking handler.
func (a *API) Ranking(name string, fn RankFunc) error { return a.contribute(SeamRanking, name, fn) }

// Prompt contributes a prompt handler.
func (a *API) Prompt(name string, fn PromptFunc) error { return a.contribute(SeamPrompt, name, fn) }

// Config is the extension's settings, read live.
func (a *API) Config(ctx context.Context) map[string]any { return a.backend.Config(ctx) }

// Complete calls the model bound to role for the caller in ctx.
func (a *API) Complete(ctx context.Context, role string, req json.RawMessage) (json.RawMessage, error) {
	return a.backend.Complete(ctx, role, req)
}

// Transcribe sends audio to the model bound to role.
func (a *API) Transcribe(ctx context.Context, role, audio string, req json.RawMessage) (json.RawMessage, error) {
	return a.backend.Transcribe(ctx, role, audio, req)
}

// Vine calls the primitive name with args (any JSON-encodable value),
// within the scope of the caller in ctx: an id outside it answers
// exactly as an absent one.
func (a *API) Vine(ctx context.Context, name string, args any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("ext: vine %s: %w", name, err)
	}
	return a.backend.CallVine(ctx, name, raw)
}

// Namespace is the prefix of the extension's tools and tables.
func (a *API) Namespace() string { return Namespace(a.man.ID) }

// Log writes msg to the host's log, tagged with the extension.
func (a *API) Log(ctx context.Context, level slog.Level, msg string) {
	a.backend.Log(ctx, level, msg)
}

// Seal closes contributions and checks them against the manifest: every
// handler the manifest claims must be registered, and nothing else.
func (a *API) Seal() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sealed = true
	want := a.man.Handlers()
	for _, s := range append([]Seam{SeamConverters}, namedSeams...) {
		for _, h := range want[s] {
			if _, ok := a.handlers[s][h]; !ok {
				return fmt.Errorf("ext: %s: the manifest claims %s handler %q, Register did not contribute it", a.man.ID, s, h)
			}
		}
		for h := range a.handlers[s] {
			if !slices.Contains(want[s], h) {
				return fmt.Errorf("ext: %s: %s handler %q is not claimed in the manifest", a.man.ID, s, h)
			}
		}
	}
	return nil
}

// Handlers lists the contributed handlers by seam, names sorted.
func (a *API) Handlers() map[Seam][]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[Seam][]string{}
	for s, hs := range a.handlers {
		for h := range hs {
			out[s] = append(out[s], h)
		}
		slices.Sort(out[s])
	}
	return out
}
