// SPDX-License-Identifier: Apache-2.0

package ext

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Conversion is what a converters handler answers (06 §3): the same
// fields as the engine's convert.Conversion, in their wire form. An
// unknown field fails the claimant.
type Conversion struct {
	Kind     string                       `json:"kind"` // markdown, dataset or payload
	Title    string                       `json:"title,omitempty"`
	Markdown string                       `json:"markdown,omitempty"`
	Schema   map[string]map[string]string `json:"schema,omitempty"`
	Rows     map[string][][]any           `json:"rows,omitempty"`
	Tables   []string                     `json:"tables,omitempty"`
	Samples  map[string][][]any           `json:"samples,omitempty"`
	Counts   map[string]int64             `json:"counts,omitempty"`
}

// HandlerError is a handler's own failure as the host sees it.
type HandlerError struct {
	Seam    Seam
	Handler string
	Message string
}

func (e *HandlerError) Error() string {
	return fmt.Sprintf("ext: %s handler %q: %s", e.Seam, e.Handler, e.Message)
}

// Invoke runs handler of seam with params, the JSON object of the
// seam's contract, and returns its result as JSON. Hosts and the sdk
// dispatch through it, so both deployments decode the same way. A
// missing handler, undecodable params or the handler's own error come
// back as a *HandlerError; a panic in the handler is one too.
func (a *API) Invoke(ctx context.Context, s Seam, handler string, params json.RawMessage) (out json.RawMessage, err error) {
	a.mu.Lock()
	fn, ok := a.handlers[s][handler]
	a.mu.Unlock()
	fail := func(format string, args ...any) (json.RawMessage, error) {
		return nil, &HandlerError{Seam: s, Handler: handler, Message: fmt.Sprintf(format, args...)}
	}
	if !ok {
		return fail("not contributed")
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = fail("panic: %v", p)
		}
	}()
	var res any
	switch fn := fn.(type) {
	case ConvertFunc:
		var p struct {
			Path string `json:"path"`
		}
		if err := decodeParams(params, &p); err != nil {
			return fail("%v", err)
		}
		res, err = fn(ctx, p.Path)
	case CurateFunc:
		var p struct {
			Draft json.RawMessage `json:"draft"`
		}
		if err := decodeParams(params, &p); err != nil {
			return fail("%v", err)
		}
		var d json.RawMessage
		d, err = fn(ctx, p.Draft)
		if d != nil {
			res = d
		}
	case EventFunc:
		var e Event
		if err := decodeParams(params, &e); err != nil {
			return fail("%v", err)
		}
		err = fn(ctx, e)
	case JobFunc:
		var p struct {
			Forest string `json:"forest"`
		}
		if err := decodeParams(params, &p); err != nil {
			return fail("%v", err)
		}
		res, err = fn(ctx, p.Forest)
	case ToolFunc:
		var p struct {
			Args json.RawMessage `json:"args"`
		}
		if err := decodeParams(params, &p); err != nil {
			return fail("%v", err)
		}
		res, err = fn(ctx, p.Args)
	case RouteFunc:
		var p struct {
			Forest string          `json:"forest"`
			Body   json.RawMessage `json:"body"`
		}
		if err := decodeParams(params, &p); err != nil {
			return fail("%v", err)
		}
		res, err = fn(ctx, p.Forest, p.Body)
	case RankFunc:
		var p struct {
			Query   string   `json:"query"`
			Results []Ranked `json:"results"`
		}
		if err := decodeParams(params, &p); err != nil {
			return fail("%v", err)
		}
		res, err = fn(ctx, p.Query, p.Results)
	case PromptFunc:
		var p struct {
			Mode     string `json:"mode"`
			Question string `json:"question"`
			System   string `json:"system"`
		}
		if err := decodeParams(params, &p); err != nil {
			return fail("%v", err)
		}
		res, err = fn(ctx, p.Mode, p.Question, p.System)
	default:
		return fail("unknown handler type %T", fn)
	}
	if err != nil {
		return fail("%v", err)
	}
	if res == nil {
		return json.RawMessage("null"), nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return fail("result: %v", err)
	}
	return raw, nil
}

// decodeParams decodes a seam's parameters, refusing names the seam
// does not pass: a host and an extension that disagree on a contract
// fail loudly instead of dropping a field.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("params: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("params: data after the object")
	}
	return nil
}

// DecodeConversion reads a converters handler's answer strictly: an
// unknown field or an unknown kind fails the claimant.
func DecodeConversion(raw json.RawMessage) (*Conversion, error) {
	var c Conversion
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("ext: conversion: %w", err)
	}
	switch c.Kind {
	case "markdown", "dataset", "payload":
		return &c, nil
	}
	return nil, fmt.Errorf("ext: conversion: kind %q is not markdown, dataset or payload", c.Kind)
}

// Refusal is the host's answer when it refuses a callback (a primitive
// through [API.Vine], a model call): the envelope exactly as the host
// wrote it, so an out-of-scope id reads as the same bytes as an absent
// one.
type Refusal struct {
	Code     string
	Message  string
	Envelope json.RawMessage // {"code", "message", "hint", ...}
}

func (r *Refusal) Error() string { return r.Code + ": " + r.Message }
