// SPDX-License-Identifier: Apache-2.0

package station

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/adapters/mcp"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/authoring"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/model"
)

// The routes seam (spec 11 §3, §8): POST /v1/ext/<id>/<name>?forest=<f>
// runs an extension's route handler for a caller granted f, only where
// f enables the extension. Every miss — a forest the key does not
// reach, one that does not enable the extension, an unknown name —
// answers the same bytes, whose hint is the key's menu computed the same
// way on every path. Callbacks run with the caller's own scope.

// extCallRoutes serve the routes seam, appended to routes().
func (s *Server) extCallRoutes() []rest.Route {
	return []rest.Route{
		{Method: "POST", Path: "/v1/ext/{id}/{name}", Op: "ext.route",
			Summary: "an extension's route, on a forest that enables it", Auth: true, Handler: s.extRoute},
		{Method: "GET", Path: "/v1/extensions/authoring", Op: "extensions.authoring",
			Summary: "how to write an extension: seams and manifest schema, derived from the contracts", Auth: true, Handler: s.authoring},
	}
}

// authoring serves GET /v1/extensions/authoring[?as=markdown&doc=seams|
// manifest] to anyone signed in: writing is not installing, so it is not
// gated on install authority, and it accepts, installs and runs nothing.
func (s *Server) authoring(w http.ResponseWriter, r *http.Request) {
	const op = "extensions.authoring"
	d, err := authoring.Build(firstNonEmpty(s.opt.Version, wire.Version()))
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	if r.URL.Query().Get("as") != "markdown" {
		s.api.WriteJSON(w, op, http.StatusOK, d)
		return
	}
	md, err := d.Markdown(r.URL.Query().Get("doc"))
	if err != nil {
		s.api.Refuse(w, op, &vine.Error{Code: vine.ESchema, Message: err.Error(), Hint: "doc is seams or manifest"})
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	_, _ = io.WriteString(w, md)
}

// maxExtRouteBody bounds a route's JSON body.
const maxExtRouteBody = 1 << 20

func (s *Server) extRoute(w http.ResponseWriter, r *http.Request) {
	const op = "ext.route"
	who := rest.Caller(r.Context())
	id, name, forestID := r.PathValue("id"), r.PathValue("name"), r.URL.Query().Get("forest")
	wk, handler := s.extRouteHandler(who, forestID, id, name)
	if wk == nil {
		s.api.Refuse(w, op, s.unknownExtRoute(who))
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxExtRouteBody+1))
	var body json.RawMessage
	if err != nil || len(data) > maxExtRouteBody || (len(data) > 0 && json.Unmarshal(data, &body) != nil) {
		s.api.Refuse(w, op, &vine.Error{Code: vine.ESchema, Message: "the body must be a JSON value of at most 1 MiB"})
		return
	}
	if len(data) == 0 {
		body = json.RawMessage("{}")
	}
	caller := newCaller(who)
	call := ext.Call{Forest: forestID, Principal: who.Name, Auth: caller}
	out, err := wk.Call(ext.WithCall(r.Context(), call), call, ext.SeamRoutes, handler, map[string]any{"forest": forestID, "body": body})
	s.governVia(r, who.Name, forestID, "ext."+id+"."+name, id, nil, outcome(err))
	if err != nil {
		s.refuseExtCall(w, op, caller, err)
		return
	}
	s.api.WriteJSON(w, op, http.StatusOK, out)
}

// extRouteHandler is the worker and handler of route name of extension
// id on forest for who, nil when any of it is missing.
func (s *Server) extRouteHandler(who *keys.Principal, forestID, id, name string) (*worker.Worker, string) {
	if _, _, err := s.api.Grant(who, forestID); err != nil {
		return nil, ""
	}
	for _, wk := range s.loadFor(forestID) {
		if wk.ID() != id {
			continue
		}
		for _, h := range wk.Manifest().Contributes.Routes {
			if h.Name == name {
				return wk, h.HandlerName()
			}
		}
	}
	return nil, ""
}

// unknownExtRoute is the one refusal of every miss: its hint is the
// key's menu, the routes of the forests it reaches that enable them.
func (s *Server) unknownExtRoute(who *keys.Principal) error {
	var menu []string
	for _, f := range s.forestIDs() {
		if _, _, err := s.api.Grant(who, f); err != nil {
			continue
		}
		for _, wk := range s.loadFor(f) {
			for _, h := range wk.Manifest().Contributes.Routes {
				menu = append(menu, fmt.Sprintf("/v1/ext/%s/%s?forest=%s", wk.ID(), h.Name, f))
			}
		}
	}
	slices.Sort(menu)
	hint := "no extension route is served to this key"
	if len(menu) > 0 {
		hint = "served to this key: " + strings.Join(menu, ", ")
	}
	return &vine.Error{Code: vine.ENotFound, Message: "unknown extension route", Hint: hint}
}

// extHost answers an extension's callbacks for the caller its call
// names: vine.call through that caller's own grant and policy, so an
// id outside the scope reads exactly as an absent one.
type extHost struct{ s *Server }

func (h extHost) CallVine(ctx context.Context, call ext.Call, name string, args json.RawMessage) (json.RawMessage, error) {
	who := callerOf(call)
	if who == nil {
		return nil, &vine.Error{Code: vine.EForbidden, Message: "this call carries no caller to act for",
			Hint: "extensions call primitives only while serving a person's act"}
	}
	out, err := h.s.api.CallAs(ctx, who, call.Forest, name, args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// Complete calls the model the call's forest binds to role: the
// extension names a role, never an endpoint or a key (a bound caller,
// spec 11 §4). req is {messages: [{role, content}], max_tokens?}; the
// answer is {content, finish_reason, usage}. The extension's quota on
// the forest is checked first (extModelCall); the call is audited as
// model.<role> for the person the act served, with via and its cost.
func (h extHost) Complete(ctx context.Context, call ext.Call, role string, req json.RawMessage) (json.RawMessage, error) {
	var r struct {
		Messages  []model.Message `json:"messages"`
		MaxTokens int             `json:"max_tokens"`
	}
	if err := json.Unmarshal(req, &r); err != nil || len(r.Messages) == 0 {
		return nil, &vine.Error{Code: vine.ESchema, Message: "models.complete: request must be {messages: [{role, content}], max_tokens?}"}
	}
	client, m, found := h.s.bound(ctx, call.Forest, role)
	if !found {
		return nil, &vine.Error{Code: vine.ESchema, Message: fmt.Sprintf("role %q is not bound on forest %s", role, call.Forest),
			Hint: "bind it in the Models console (POST /v1/admin/models)"}
	}
	maxTokens := m.MaxTokens
	if r.MaxTokens > 0 && (maxTokens == 0 || r.MaxTokens < maxTokens) {
		maxTokens = r.MaxTokens
	}
	var reply *llamacpp.Reply
	err := h.s.extModelCall(ctx, call, role, m, func() (*usage, error) {
		var err error
		if reply, err = client.Complete(ctx, r.Messages, maxTokens); err == nil && reply == nil {
			err = errors.New("the model answered nothing")
		}
		if err != nil {
			return nil, err
		}
		return &usage{reply.PromptTokens, reply.CompletionTokens}, nil
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"content": reply.Content, "finish_reason": reply.FinishReason,
		"usage": map[string]int{"prompt_tokens": reply.PromptTokens, "completion_tokens": reply.CompletionTokens}})
}

// Transcribe sends an audio file to the model the call's forest binds to
// role, through the same bound caller as Complete. audio is a path the
// host handed this call (the worker refused any other before it got
// here); req is {language?, prompt?}; the answer is {text}. Quota and
// audit as Complete; a transcription is unpriced (no per-token price).
func (h extHost) Transcribe(ctx context.Context, call ext.Call, role, audio string, req json.RawMessage) (json.RawMessage, error) {
	var opt llamacpp.TranscribeOptions
	if len(req) > 0 && string(req) != "null" {
		dec := json.NewDecoder(bytes.NewReader(req))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&opt); err != nil {
			return nil, &vine.Error{Code: vine.ESchema, Message: "models.transcribe: request must be {language?, prompt?}: " + err.Error()}
		}
	}
	client, m, found := h.s.bound(ctx, call.Forest, role)
	if !found {
		return nil, &vine.Error{Code: vine.ESchema, Message: fmt.Sprintf("role %q is not bound on forest %s", role, call.Forest),
			Hint: "bind it in the Models console (POST /v1/admin/models)"}
	}
	f, err := os.Open(audio)
	if err != nil {
		return nil, envelope.New(envelope.NotFound, "models.transcribe: audio: the file handed to this call is gone", "")
	}
	defer f.Close()
	var heard *llamacpp.Transcription
	err = h.s.extModelCall(ctx, call, role, m, func() (*usage, error) {
		var err error
		if heard, err = client.Transcribe(ctx, filepath.Base(audio), f, opt); err == nil && heard == nil {
			err = errors.New("the model answered nothing")
		}
		return nil, err // audio is not priced per token: unpriced
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"text": heard.Text})
}

// extRoles are the model roles installed extensions register, bindable
// after the built-ins.
func (s *Server) extRoles() []providers.Role {
	var out []providers.Role
	list, err := s.opt.Extensions.List()
	if err != nil {
		return nil
	}
	for _, r := range list {
		m, err := s.opt.Extensions.Manifest(r)
		if err != nil || m.Models == nil {
			continue
		}
		for _, reg := range m.Models.Registers {
			out = append(out, providers.Role{Role: reg.Role, Kind: reg.Kind, Ext: r.ID, Description: reg.Description})
		}
	}
	return out
}

// extTools serves the tools extensions contribute over MCP (mcp.ExtTools):
// published on the forests that enable their extension, so a key sees
// the union over the forests it reaches.
type extTools struct{ s *Server }

func (t extTools) Menu(ctx context.Context, who *keys.Principal) []mcp.ExtTool {
	seen := map[string]bool{}
	var out []mcp.ExtTool
	for _, f := range t.s.forestIDs() {
		if _, _, err := t.s.api.Grant(who, f); err != nil {
			continue
		}
		for _, w := range t.s.loadFor(f) {
			for _, h := range w.Manifest().Contributes.Tools {
				if !seen[h.Name] {
					seen[h.Name] = true
					out = append(out, mcp.ExtTool{Name: h.Name, Description: h.Description + " (extension " + w.ID() + "; pass forest and args)"})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b mcp.ExtTool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (t extTools) Call(ctx context.Context, who *keys.Principal, tool, forestID string, args json.RawMessage) (json.RawMessage, bool, error) {
	if _, _, err := t.s.api.Grant(who, forestID); err != nil {
		return nil, false, nil
	}
	for _, w := range t.s.loadFor(forestID) {
		for _, h := range w.Manifest().Contributes.Tools {
			if h.Name != tool {
				continue
			}
			call := ext.Call{Forest: forestID, Principal: who.Name, Auth: newCaller(who)}
			out, err := w.Call(ext.WithCall(ctx, call), call, ext.SeamTools, h.HandlerName(), map[string]any{"args": args})
			// The MCP surface does not record extension tools: the row
			// is the host's, with the extension that acted.
			row := record.Call{Time: t.s.now(), Principal: who.Name, Forest: forestID, Primitive: tool,
				Args: record.Args{}, Result: record.OK, Size: int64(len(out)), Via: record.Via(w.ID())}
			if err != nil {
				row.Result, row.ErrorCode = record.Error, string(vine.CodeOf(err))
			}
			t.s.audit.Record(ctx, row)
			return out, true, err
		}
	}
	return nil, false, nil
}
