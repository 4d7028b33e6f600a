// SPDX-License-Identifier: Apache-2.0

package rpc

import "encoding/json"

// Protocol names this protocol in the handshake.
const Protocol = "vine-ext/1"

// Methods of vine-ext/1. The host calls initialize, seam.<name>,
// config.changed and shutdown; the extension calls back only while
// one of its handlers runs, carrying that call's ctx.
const (
	MethodInitialize    = "initialize"
	MethodSeamPrefix    = "seam."
	MethodConfigChanged = "config.changed"
	MethodShutdown      = "shutdown"

	MethodComplete   = "models.complete"
	MethodTranscribe = "models.transcribe"
	MethodVineCall   = "vine.call"
	MethodLog        = "log"
)

// InitializeParams open the session.
type InitializeParams struct {
	Protocol    string         `json:"protocol"`
	HostVersion string         `json:"host_version"`
	ID          string         `json:"id"`
	Config      map[string]any `json:"config,omitempty"`
}

// InitializeResult is the extension's handshake: the handlers it
// contributed, by seam, each with the parameters it reads.
type InitializeResult struct {
	Protocol string                   `json:"protocol"`
	Handlers map[string][]HandlerDecl `json:"handlers"`
}

// HandlerDecl declares one handler and the parameters it reads.
type HandlerDecl struct {
	Name   string      `json:"name"`
	Params []ParamDecl `json:"params"`
}

// ParamDecl is one parameter a handler reads; Optional ones have a
// default.
type ParamDecl struct {
	Name     string `json:"name"`
	Optional bool   `json:"optional,omitempty"`
}

// CallCtx binds a handler call to the act that reached it; callbacks
// carry it back so the host answers for that caller.
type CallCtx struct {
	Token     string `json:"token"`
	Forest    string `json:"forest,omitempty"`
	Principal string `json:"principal,omitempty"`
}

// SeamParams are the fixed fields of a seam.<name> request; the seam's
// own parameters sit beside them in the same object.
type SeamParams struct {
	Handler string  `json:"handler"`
	Ctx     CallCtx `json:"ctx"`
}

// CompleteParams are models.complete's.
type CompleteParams struct {
	Ctx     CallCtx         `json:"ctx"`
	Role    string          `json:"role"`
	Request json.RawMessage `json:"request,omitempty"`
}

// TranscribeParams are models.transcribe's.
type TranscribeParams struct {
	Ctx     CallCtx         `json:"ctx"`
	Role    string          `json:"role"`
	Audio   string          `json:"audio"`
	Request json.RawMessage `json:"request,omitempty"`
}

// VineCallParams are vine.call's.
type VineCallParams struct {
	Ctx  CallCtx         `json:"ctx"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// LogParams are log's (a notification).
type LogParams struct {
	Ctx   CallCtx `json:"ctx"`
	Level string  `json:"level"`
	Msg   string  `json:"msg"`
}
