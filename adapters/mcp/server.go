// SPDX-License-Identifier: Apache-2.0

// Package mcp serves forests to any agent over the Model Context Protocol:
// every primitive of the engine's signature table becomes a tool, plus
// forests, which lists what is served. It runs on the official Go SDK
// over stdio (NewServer with any SDK transport) or streamable HTTP
// (Handler).
//
// Each tool has a title, its input schema from the signature table, an
// object outputSchema and the table's hints (graft, which can replace
// bodies and remove links, is destructive). A result is structuredContent
// and the same JSON as one compact text block, for clients older than
// structured output.
//
// Every call is validated by the engine's one signature table before the
// primitive runs, never by the SDK, so a refusal reads the same on every
// surface: a normal tool result with isError set and the envelope
// {"error":{code,message,hint}} as its only text block. An unknown tool
// answers E_NOT_FOUND naming the served tools; a panic answers E_INTERNAL
// naming the tool.
//
// Every forest is reached through a vine.Scoped (spec 08 §7): the caller
// of each tool call is authenticated from the key its own HTTP request
// carries (Options.Keys), a forest it holds no grant on answers exactly
// as one that does not exist, and every id and count is gated by its
// policy. Without Keys every caller is the local owner, as over stdio.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/answer"
)

// Options configure a server. The zero value serves with the build's
// version, local Host names only (HTTP), and no logging.
type Options struct {
	// Version is serverInfo.version and the station of forests(); empty
	// means the installed build's version.
	Version string

	// AllowedHosts are the Host header values Handler serves (a port is
	// part of the value; "*" turns the Host and Origin checks off). Nil
	// means localhost, 127.0.0.1 and [::1] on any port; an empty non-nil
	// list serves no Host at all.
	AllowedHosts []string

	// Logger receives what never reaches the wire (panics with their
	// stacks). Nil discards it.
	Logger *slog.Logger

	// Keys authenticates the caller of every tool call from the key its
	// HTTP request carries (Authorization: Bearer, or X-API-Key) and says
	// what it may do in each forest; a call without a valid key answers
	// E_FORBIDDEN. Nil serves every caller as keys.LocalOwner, which is
	// right for stdio and for a local server started with --open, and
	// wrong for anything reachable by others.
	Keys keys.Resolver

	// Recorder, when set, gets one audit row per tool call on a forest
	// (spec 09 §9), refusals included, once its result is decided. The
	// forests tool and a call without a valid key are not scoped calls
	// and write none. Record must not block: it runs on the call's
	// goroutine. Nil keeps no audit trail.
	Recorder record.Recorder

	// Ingest, when set, serves the ingest tool (spec 06 §17): callers
	// holding the ingest capability send documents, and a batch answers
	// its job record. Nil serves no ingest tool.
	Ingest *IngestOptions

	// Extensions, when set, adds the tools extensions contribute, each
	// key seeing those of the forests it reaches that enable them.
	Extensions ExtTools
}

// server is the state every tool handler shares.
type server struct {
	reg     *vine.Registry
	forests *wire.Forests
	keys    keys.Resolver // nil: everyone is the local owner
	rec     record.Recorder
	forest  wire.ForestArg
	version string
	log     *slog.Logger
	tools   []string  // served tool names, sorted
	ingest  *ingester // nil: no ingest tool
	ext     ExtTools  // nil: no extension tools
}

func newServer(reg *vine.Registry, opts *Options) *server {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &server{reg: reg, forests: wire.NewForests(reg, "call forests() to list them"), keys: o.Keys,
		forest: wire.ForestOptional, version: o.Version, log: o.Logger, rec: o.Recorder, ext: o.Extensions}
	if reg.Mode() == vine.ModeRegistry {
		s.forest = wire.ForestRequired
	}
	if s.version == "" {
		s.version = wire.Version()
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.tools = []string{wire.ForestsTool}
	if o.Ingest != nil {
		s.ingest = newIngester(o.Ingest)
		s.tools = append(s.tools, ingestSig.Name)
	}
	for _, sig := range vine.Signatures() {
		s.tools = append(s.tools, sig.Name)
	}
	slices.Sort(s.tools)
	return s
}

// NewServer returns an MCP server of the forests reg serves, to run over
// any SDK transport (sdk.StdioTransport for a local agent). In registry
// mode every tool but forests requires the forest argument; serving one
// forest, it is optional.
//
// Only tools are announced: no resources or prompts back this server, so
// those method families answer "method not found".
func NewServer(reg *vine.Registry, opts *Options) *sdk.Server {
	s := newServer(reg, opts)
	srv := sdk.NewServer(&sdk.Implementation{Name: "vine", Version: s.version}, &sdk.ServerOptions{
		Instructions: s.instructions(),
		Logger:       slog.New(quiet{s.log.Handler()}),
		// Not announcing logging (the SDK's default) nor listChanged:
		// nothing backs either, and a capability announced empty misleads.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	srv.AddTool(&sdk.Tool{
		Name:         wire.ForestsTool,
		Title:        wire.Title(wire.ForestsTool),
		Description:  wire.ForestsDescription,
		InputSchema:  wire.ForestsSchema(),
		OutputSchema: outputSchema(wire.ForestsTool),
		Annotations:  annotations(wire.ForestsTool, true, false, true),
	}, s.guarded(wire.ForestsTool, s.listForests))
	for _, sig := range vine.Signatures() {
		srv.AddTool(&sdk.Tool{
			Name:         sig.Name,
			Title:        wire.Title(sig.Name),
			Description:  wire.Description(sig),
			InputSchema:  wire.InputSchema(sig, s.forest),
			OutputSchema: outputSchema(sig.Name),
			Annotations:  annotations(sig.Name, sig.ReadOnly, wire.Destructive(sig), sig.Idempotent),
		}, s.guarded(sig.Name, func(ctx context.Context, who *keys.Principal, raw json.RawMessage) *sdk.CallToolResult {
			return s.call(ctx, who, sig, raw)
		}))
	}
	s.addIngest(srv)
	srv.AddReceivingMiddleware(s.withhold)
	return srv
}

// quiet passes on the SDK's warnings and errors only: it logs every
// session at info, and a stateless HTTP mount opens one per request.
type quiet struct{ slog.Handler }

func (q quiet) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && q.Handler.Enabled(ctx, l)
}

func (q quiet) WithAttrs(as []slog.Attr) slog.Handler { return quiet{q.Handler.WithAttrs(as)} }
func (q quiet) WithGroup(g string) slog.Handler       { return quiet{q.Handler.WithGroup(g)} }

func annotations(tool string, readOnly, destructive, idempotent bool) *sdk.ToolAnnotations {
	closed := false
	return &sdk.ToolAnnotations{Title: wire.Title(tool), ReadOnlyHint: readOnly, DestructiveHint: &destructive,
		IdempotentHint: idempotent, OpenWorldHint: &closed}
}

// outputSchema is every tool's outputSchema: a JSON object, the same one
// the text block carries. The signature table describes arguments, not
// results, so the schema states the shape MCP requires and no more; a
// refusal (isError) carries the envelope instead.
func outputSchema(tool string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object",
		Description: "the result of " + tool + ", the same JSON as the text block; a refusal is {\"error\":{code,message,hint}} with isError"}
}

// instructions name every registered tool (spec 08 §4.3 r5) and the few
// moves a model needs before its first call.
func (s *server) instructions() string {
	var b strings.Builder
	b.WriteString("A MonkeyLLM knowledge forest: markdown nodes under branch indexes, searched and read within token budgets. ")
	if s.forest == wire.ForestRequired {
		b.WriteString("Several forests are served: call forests first and pass forest=<id> to every other tool. ")
	}
	b.WriteString("Find nodes with locate (titles, summaries, tags) or sniff (exact words in bodies); " +
		"look digests a node, pick reads its body, move walks its edges. " +
		"A refusal is a result with isError and {\"error\":{code,message,hint}}: the hint names the next move. ")
	b.WriteString("Tools: " + strings.Join(s.tools, ", ") + ".")
	return b.String()
}

// toolFunc answers one tool call for an authenticated caller; it never
// fails at the protocol level.
type toolFunc func(ctx context.Context, who *keys.Principal, args json.RawMessage) *sdk.CallToolResult

// guarded adapts fn to the SDK: the caller is authenticated first, from
// this request alone (a principal never outlives its request, and a
// stateless mount has no session to keep one in), and a panic becomes
// E_INTERNAL naming the tool, the stack going to the log.
func (s *server) guarded(tool string, fn toolFunc) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("tool panicked", "tool", tool, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = refused(tool, &vine.Error{Code: vine.EInternal, Message: tool + " failed: internal panic",
					Hint: "server-side defect, not the caller's mistake; the detail is in the log"}), nil
			}
		}()
		who, ok := s.caller(ctx, req.Extra)
		if !ok {
			return refused(tool, wire.MissingKey()), nil
		}
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			switch tool {
			case answer.Signature.Name:
				var flush func()
				ctx, flush = hopProgress(ctx, req.Session, token, req.Params.Arguments)
				defer flush()
			case ingestSig.Name:
				ctx = withProgress(ctx, req.Session, token)
				defer progressOf(ctx).flush() // a refused call sends nothing and stops the sender
			}
		}
		return fn(ctx, who, req.Params.Arguments), nil
	}
}

// caller authenticates a tool call by the key its HTTP request carried;
// stdio carries none.
func (s *server) caller(ctx context.Context, extra *sdk.RequestExtra) (*keys.Principal, bool) {
	if s.keys == nil {
		return keys.LocalOwner(), true
	}
	var h http.Header
	if extra != nil {
		h = extra.Header
	}
	return s.keys.Resolve(ctx, wire.Secret(h))
}

// call runs a primitive: the forest argument set aside and the rest
// checked against the signature table before any forest is looked up (a
// missing parameter is a schema refusal, never a lookup); then the
// forest is granted, opened and seen through the caller's policy, which
// checks the capability and gates every id. Writes carry the caller's
// commit trailer; the outcome, whatever it is, is one audit row.
func (s *server) call(ctx context.Context, who *keys.Principal, sig vine.Signature, raw json.RawMessage) (res *sdk.CallToolResult) {
	n := s.noteCall(who, sig.Name)
	defer func() { s.recordTool(ctx, n, res) }()
	id, args, err := splitForest(sig.Name, raw)
	if err != nil {
		return refused(sig.Name, err)
	}
	n.named(s.forests, who, id, args)
	if _, err := vine.DecodeArgs(sig, args); err != nil {
		return refused(sig.Name, err)
	}
	sc, err := s.forests.Open(ctx, who, id)
	if err != nil {
		return s.refuse(sig.Name, err)
	}
	start := time.Now()
	out, err := sc.Call(stamped(ctx, who), sig.Name, args)
	n.timed(time.Since(start))
	if err != nil {
		return s.refuse(sig.Name, err)
	}
	n.answered(out)
	if view, ok := out.(*vine.ViewResult); ok {
		return s.image(sc.Dir(), view)
	}
	return answered(sig.Name, out)
}

// forestSig validates the forest argument with the engine's own
// sentences (C.12: "parameter 'forest' expects string, got list").
func forestSig(tool string) vine.Signature {
	return vine.Signature{Name: tool, Params: []vine.Param{{Name: wire.ForestParam, Type: vine.TString}}}
}

// splitForest takes the forest argument out of a call's arguments and
// returns the rest for the engine. Absent and null arguments are no
// arguments; anything but an object is passed on for the engine to
// refuse in its own words.
func splitForest(tool string, raw json.RawMessage) (string, json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return "", nil, nil
	}
	var obj map[string]json.RawMessage
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil {
		return "", raw, nil
	}
	fv, ok := obj[wire.ForestParam]
	if !ok {
		return "", raw, nil
	}
	delete(obj, wire.ForestParam)
	one, _ := json.Marshal(map[string]json.RawMessage{wire.ForestParam: fv})
	a, err := vine.DecodeArgs(forestSig(tool), one)
	if err != nil {
		return "", nil, err
	}
	rest, err := wire.Encode(obj)
	if err != nil {
		return "", nil, err
	}
	return a.String(wire.ForestParam), rest, nil
}

// listForests answers the forests tool: the forests the caller may use.
// It takes no arguments.
func (s *server) listForests(_ context.Context, who *keys.Principal, raw json.RawMessage) *sdk.CallToolResult {
	if _, err := vine.DecodeArgs(vine.Signature{Name: wire.ForestsTool}, nullAsEmpty(raw)); err != nil {
		return refused(wire.ForestsTool, err)
	}
	return answered(wire.ForestsTool, wire.ListForestsFor(s.forests, s.version, who))
}

func nullAsEmpty(raw json.RawMessage) json.RawMessage {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}

// viewHeader is view's text block: what the image is, never where it
// lives on the server.
type viewHeader struct {
	ID          string `json:"id"`
	MediaType   string `json:"media_type"`
	Size        int64  `json:"size"`
	PayloadHash string `json:"payload_hash"`
}

// image answers view with two blocks: the compact header, then the image.
// dir is the forest's directory; the engine contained r.Path in it.
func (s *server) image(dir string, r *vine.ViewResult) *sdk.CallToolResult {
	data, err := readImage(filepath.Join(dir, filepath.FromSlash(r.Path)), r.ID)
	if err != nil {
		return s.refuse("view", err)
	}
	head, err := wire.Encode(viewHeader{ID: r.ID, MediaType: r.MediaType, Size: int64(len(data)), PayloadHash: r.PayloadHash})
	if err != nil {
		return s.refuse("view", err)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: string(head)},
		&sdk.ImageContent{Data: data, MIMEType: r.MediaType},
	}, StructuredContent: structured(head)}
}

// readImage reads at most MaxViewBytes: the file may have grown since
// view measured it.
func readImage(path, id string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, vine.MaxViewBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > vine.MaxViewBytes {
		return nil, &vine.Error{Code: vine.ESchema,
			Message: fmt.Sprintf("view: payload of %s is over the %d-byte (6 MiB) limit", id, vine.MaxViewBytes),
			Hint:    "store a smaller rendition of the image and view that"}
	}
	return data, nil
}

// answered is a result as structuredContent and, for clients older than
// it, the same JSON as one compact text block.
func answered(tool string, out any) *sdk.CallToolResult {
	body, err := wire.Encode(out)
	if err != nil {
		return refused(tool, err)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(body)}},
		StructuredContent: structured(body)}
}

// refuse is refused for an error that may be the server's own: an
// E_INTERNAL's hint sends the operator to the log, so its detail is
// logged here, wherever in the call it arose.
func (s *server) refuse(tool string, err error) *sdk.CallToolResult {
	if vine.CodeOf(vine.AsError(tool, err)) == vine.EInternal {
		s.log.Error("tool failed", "tool", tool, "err", vine.ErrorDetail(err))
	}
	return refused(tool, err)
}

// refused is a refusal as a tool result: isError and the envelope, as
// text and as structuredContent.
func refused(tool string, err error) *sdk.CallToolResult {
	body := wire.Refusal(tool, err)
	return &sdk.CallToolResult{IsError: true,
		Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}, StructuredContent: structured(body)}
}

// structured is body as structuredContent, which MCP wants an object: a
// result that is not one (none of the table's are) is wrapped as
// {"result": body}.
func structured(body []byte) json.RawMessage {
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '{' {
		return json.RawMessage(body)
	}
	return json.RawMessage(`{"result":` + string(body) + `}`)
}
