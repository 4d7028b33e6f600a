package mcp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
)

// Handler serves the MCP server of reg over streamable HTTP, to be
// mounted at /mcp (the mount root is the endpoint). It is stateless and
// answers JSON, so no request depends on an earlier one and no 404 it
// sends means "session gone".
//
// Keys are per request: initialize and tools/list need none, each tool
// call is authenticated by the Authorization: Bearer (or X-API-Key)
// header of the request that carries it (opts.Keys).
//
// In front of it stands the DNS-rebinding guard (opts.AllowedHosts): a
// Host not allowed is refused with 421 and the envelope
// E_HOST_NOT_ALLOWED, a browser Origin not allowed with 403 E_FORBIDDEN.
func Handler(reg *vine.Registry, opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	srv := NewServer(reg, &o)
	log := slog.New(slog.DiscardHandler)
	if o.Logger != nil {
		log = slog.New(quiet{o.Logger.Handler()})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{
			Stateless:    true,
			JSONResponse: true,
			Logger:       log,
			// The SDK's own localhost check would refuse Hosts the
			// operator allowed; the guard below is the one check.
			DisableLocalhostProtection: true,
		})
	hosts := wire.LocalHostsAnyPort()
	if o.AllowedHosts != nil {
		hosts = wire.NewHosts(o.AllowedHosts)
	}
	return hosts.Guard(softRefusal(h))
}

// softRefusal re-sends a 404 whose body is a JSON-RPC error as 200, body
// untouched (spec 08 §4.4): a client reads a 404 from an MCP endpoint as
// a dead session and gives up, when the server only lacks one method. A
// 404 that is not JSON-RPC (a bad path) stays 404.
func softRefusal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &softWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		sw.finish()
	})
}

// softWriter holds back a 404 until its body shows what it is.
type softWriter struct {
	http.ResponseWriter
	held bool
	body bytes.Buffer
}

func (w *softWriter) WriteHeader(status int) {
	if status == http.StatusNotFound {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *softWriter) Write(p []byte) (int, error) {
	if w.held {
		return w.body.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes through unless a 404 is held (its body is not complete).
func (w *softWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.held {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *softWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *softWriter) finish() {
	if !w.held {
		return
	}
	status := http.StatusNotFound
	if isJSONRPCError(w.body.Bytes()) {
		status = http.StatusOK
		w.Header().Del("Content-Length")
	}
	w.ResponseWriter.WriteHeader(status)
	w.ResponseWriter.Write(w.body.Bytes())
}

func isJSONRPCError(body []byte) bool {
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.JSONRPC == "2.0" && len(msg.Error) > 0
}
