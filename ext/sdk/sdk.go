// SPDX-License-Identifier: Apache-2.0

// Package sdk runs an [ext.Extension] as its own executable, speaking
// vine-ext/1 on its standard input and output: the same value an author
// registers with ext.Register in a host's build, deployed as a separate
// process the host starts, isolates and may kill.
//
//	func main() {
//		if err := sdk.Serve(recipes{}); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// Standard error is the extension's log; standard output belongs to the
// protocol, so a handler must not print to it.
package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/internal/rpc"
)

// MaxMessage caps one protocol line, in bytes, in both directions.
const MaxMessage = 16 << 20

// Serve runs e on the process's standard input and output until the
// host sends shutdown or closes the pipe.
func Serve(e ext.Extension) error {
	out := os.Stdout
	// A stray fmt.Println in a handler would corrupt the protocol: the
	// handlers' stdout is the log instead.
	os.Stdout = os.Stderr
	return ServeOn(e, os.Stdin, out)
}

// ServeOn is Serve on the given pipes.
func ServeOn(e ext.Extension, r io.Reader, w io.Writer) error {
	s := &server{e: e, stop: make(chan struct{})}
	s.conn = rpc.New(r, w, MaxMessage, s.handle)
	select {
	case <-s.stop:
		return nil
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil && err != io.EOF {
			return err
		}
		return nil
	}
}

type server struct {
	e    ext.Extension
	conn *rpc.Conn

	mu     sync.Mutex
	api    *ext.API
	config map[string]any
	stop   chan struct{}
	once   sync.Once
}

func (s *server) handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch {
	case method == rpc.MethodInitialize:
		return s.initialize(params)
	case method == rpc.MethodConfigChanged:
		var cfg map[string]any
		if err := json.Unmarshal(params, &cfg); err != nil {
			return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
		}
		s.mu.Lock()
		s.config = cfg
		s.mu.Unlock()
		return nil, nil
	case method == rpc.MethodShutdown:
		s.once.Do(func() { close(s.stop) })
		return nil, nil
	case strings.HasPrefix(method, rpc.MethodSeamPrefix):
		return s.call(ctx, ext.Seam(strings.TrimPrefix(method, rpc.MethodSeamPrefix)), params)
	}
	return nil, &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "unknown method " + method}
}

func (s *server) initialize(params json.RawMessage) (any, error) {
	var p rpc.InitializeParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
	}
	if p.Protocol != rpc.Protocol {
		return nil, fmt.Errorf("protocol %q, this extension speaks %q", p.Protocol, rpc.Protocol)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.api != nil {
		return nil, fmt.Errorf("initialize: already initialized")
	}
	s.config = p.Config
	api := ext.NewAPI(s.e.Manifest(), backend{s})
	if err := s.e.Register(api); err != nil {
		return nil, fmt.Errorf("register: %w", err)
	}
	if err := api.Seal(); err != nil {
		return nil, err
	}
	s.api = api
	res := rpc.InitializeResult{Protocol: rpc.Protocol, Handlers: map[string][]rpc.HandlerDecl{}}
	for seam, names := range api.Handlers() {
		c, _ := ext.ContractOf(seam)
		for _, n := range names {
			d := rpc.HandlerDecl{Name: n, Params: []rpc.ParamDecl{}}
			for _, p := range c.Params {
				d.Params = append(d.Params, rpc.ParamDecl{Name: p})
			}
			res.Handlers[string(seam)] = append(res.Handlers[string(seam)], d)
		}
	}
	return res, nil
}

func (s *server) call(ctx context.Context, seam ext.Seam, params json.RawMessage) (any, error) {
	s.mu.Lock()
	api := s.api
	s.mu.Unlock()
	if api == nil {
		return nil, fmt.Errorf("seam call before initialize")
	}
	var fixed rpc.SeamParams
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fixed); err != nil {
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
	}
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
	}
	delete(fields, "handler")
	delete(fields, "ctx")
	rest, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	ctx = ext.WithCall(ctx, ext.Call{Forest: fixed.Ctx.Forest, Principal: fixed.Ctx.Principal})
	ctx = context.WithValue(ctx, tokenKey{}, fixed.Ctx)
	out, err := api.Invoke(ctx, seam, fixed.Handler, rest)
	if err != nil {
		return nil, err
	}
	return out, nil
}

type tokenKey struct{}

// backend answers the API's host calls by calling back over the pipe,
// carrying the ctx of the handler call they come from.
type backend struct{ s *server }

func callCtx(ctx context.Context) rpc.CallCtx {
	c, _ := ctx.Value(tokenKey{}).(rpc.CallCtx)
	return c
}

func (b backend) Config(context.Context) map[string]any {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	out := make(map[string]any, len(b.s.config))
	for k, v := range b.s.config {
		out[k] = v
	}
	return out
}

func (b backend) Complete(ctx context.Context, role string, req json.RawMessage) (json.RawMessage, error) {
	return refused(b.s.conn.Call(ctx, rpc.MethodComplete, rpc.CompleteParams{Ctx: callCtx(ctx), Role: role, Request: req}))
}

func (b backend) Transcribe(ctx context.Context, role, audio string, req json.RawMessage) (json.RawMessage, error) {
	return refused(b.s.conn.Call(ctx, rpc.MethodTranscribe, rpc.TranscribeParams{Ctx: callCtx(ctx), Role: role, Audio: audio, Request: req}))
}

func (b backend) CallVine(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return refused(b.s.conn.Call(ctx, rpc.MethodVineCall, rpc.VineCallParams{Ctx: callCtx(ctx), Name: name, Args: args}))
}

// refused turns the host's refusal of a callback into an *ext.Refusal
// carrying its envelope.
func refused(out json.RawMessage, err error) (json.RawMessage, error) {
	var re *rpc.Error
	if errors.As(err, &re) && re.Code == rpc.CodeRefused {
		r := &ext.Refusal{Message: re.Message, Envelope: re.Data}
		var env struct{ Code, Message string }
		if json.Unmarshal(re.Data, &env) == nil && env.Code != "" {
			r.Code, r.Message = env.Code, env.Message
		}
		return nil, r
	}
	return out, err
}

func (b backend) Log(ctx context.Context, level slog.Level, msg string) {
	_ = b.s.conn.Notify(rpc.MethodLog, rpc.LogParams{Ctx: callCtx(ctx), Level: level.String(), Msg: msg})
}
