// SPDX-License-Identifier: Apache-2.0

package mcp

import (
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
// Behind the guard, every transport failure is a JSON-RPC error object
// with a standard code and no Go type name (see rpcMount).
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
	return hosts.Guard(rpcMount(h))
}
