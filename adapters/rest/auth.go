// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"net/http"

	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
)

type principalKey struct{}

// callerOf is the principal authenticated for this request.
func callerOf(ctx context.Context) *keys.Principal {
	p, _ := ctx.Value(principalKey{}).(*keys.Principal)
	return p
}

// CallerOf is the principal a request's context was authenticated as,
// nil outside an authenticated request. Hosts read it in the hooks the
// server calls with a request's context (Options.GardenerFor), to act
// for the person who asked.
func CallerOf(ctx context.Context) *keys.Principal { return callerOf(ctx) }

// authed authenticates a request by its key before h runs: no valid key
// is 401 E_FORBIDDEN, a key past its rate 429. Every response carries
// Server-Timing (ServeHTTP's writer stamps it), refusals included: timing
// only successes would tell a caller which forests exist.
func (s *Server) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		who, ok := s.authenticate(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="vine"`)
			writeEnvelope(w, http.StatusUnauthorized, wire.MissingKey())
			return
		}
		if x := exchangeOf(r.Context()); x != nil {
			x.principal = who.Name
		}
		if e := s.limits.allow(w, who); e != nil {
			writeEnvelope(w, http.StatusTooManyRequests, e)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, who)))
	}
}

func (s *Server) authenticate(r *http.Request) (*keys.Principal, bool) {
	if s.opt.Keys == nil {
		return keys.LocalOwner(), true
	}
	return s.opt.Keys.Resolve(r.Context(), wire.Secret(r.Header))
}
