// SPDX-License-Identifier: Apache-2.0

package station

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

// The doors of 09 §4: unauthenticated POSTs that end in an ordinary key.
// The door decides how a principal was established, never what it may
// do: every key they mint is resolved by the one resolver.

// maxDoorBody bounds a door's JSON body: a name, a password, a label.
const maxDoorBody = 64 << 10

// pairCeiling is what a paired key may carry at most (v0.82).
var pairCeiling = []vine.Capability{vine.CapRead, vine.CapIngest, vine.CapAnswer}

// Pair key defaults and bounds.
const (
	pairDays    = 90
	pairMaxDays = 365
	pairLabel   = "clipper"
)

// doorBody reads a door's JSON object; anything else is E_SCHEMA
// "invalid JSON body".
func doorBody(r *http.Request) (map[string]json.RawMessage, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxDoorBody+1))
	var m map[string]json.RawMessage
	if err != nil || len(data) > maxDoorBody || json.Unmarshal(data, &m) != nil || m == nil {
		return nil, &vine.Error{Code: vine.ESchema, Message: "invalid JSON body",
			Hint: "send a JSON object with Content-Type: application/json"}
	}
	return m, nil
}

// text reads a string field; absent, null and non-strings are "".
func text(m map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := m[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// healthFields are the Station's additions to GET /v1/health: whether
// the setup route exists now, and whether a password door does.
func (s *Server) healthFields(r *http.Request) map[string]any {
	open, err := s.reg.SetupOpen(r.Context())
	if err != nil {
		s.log.Warn("station: reading the setup window", "err", err)
	}
	login := s.reg.BreakGlassConfigured()
	if !login {
		people, err := s.reg.Principals(r.Context())
		if err == nil {
			login = slices.ContainsFunc(people, func(p registry.Principal) bool { return p.HasPassword })
		}
	}
	out := map[string]any{"setup_required": open, "password_login": login}
	if s.opt.Origin != nil {
		out["origin"] = s.opt.Origin()
	}
	return out
}

// setup serves POST /v1/auth/setup (J.2.4): the owner with a password and
// a first session, once. Outside the window, and to the loser of a race,
// it is a path no route serves, byte for byte.
func (s *Server) setup(w http.ResponseWriter, r *http.Request) {
	const op = "auth.setup"
	if open, err := s.reg.SetupOpen(r.Context()); err != nil || !open {
		s.api.NoEndpoint(w, r)
		return
	}
	m, err := doorBody(r)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	user, pw := strings.TrimSpace(text(m, "username")), text(m, "password")
	if user == "" || pw == "" {
		s.api.Refuse(w, op, &vine.Error{Code: vine.ESchema, Message: "username and password are required"})
		return
	}
	sess, err := s.reg.Setup(r.Context(), user, pw, text(m, "email"))
	if errors.Is(err, registry.ErrSetupClosed) {
		s.api.NoEndpoint(w, r)
		return
	}
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	s.govern(r, user, "", op, nil, record.OK)
	s.api.WriteJSON(w, op, http.StatusOK, sess)
}

// tooMany is the door's rate-limit refusal, the same for known and
// unknown users.
func tooMany() *vine.Error {
	return &vine.Error{Code: vine.EForbidden, Message: "too many attempts; try again shortly"}
}

// verify is the one password check of login and pair, behind their
// shared failure window, checked before any hashing. ok is false after
// the refusal has been answered and audited.
func (s *Server) verify(w http.ResponseWriter, r *http.Request, op, user, pw string) bool {
	host := clientHost(r, s.opt.TrustedProxies)
	window := "password\x00" + user + "\x00" + host
	if s.doors.blocked(window) {
		s.api.RefuseWith(w, http.StatusTooManyRequests, tooMany())
		s.govern(r, user, "", op, map[string]any{"username": user, "host": host}, record.Refused)
		return false
	}
	ok, err := s.reg.VerifyPassword(r.Context(), user, pw)
	if err != nil {
		s.api.Refuse(w, op, err)
		return false
	}
	if !ok {
		s.doors.fail(window)
		s.api.RefuseWith(w, http.StatusUnauthorized, registry.ErrInvalidLogin())
		s.govern(r, user, "", op, map[string]any{"username": user, "host": host}, record.Refused)
		if op == "auth.login" {
			s.emit("auth.login.failed", "", user, map[string]any{"username": user, "host": host})
		}
		return false
	}
	s.doors.clear(window)
	return true
}

// login serves POST /v1/auth/login (J.2.1): a 12-hour session.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	const op = "auth.login"
	m, err := doorBody(r)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	user, pw := strings.TrimSpace(text(m, "username")), text(m, "password")
	if !s.verify(w, r, op, user, pw) {
		return
	}
	sess, err := s.reg.OpenSession(r.Context(), user)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	s.govern(r, user, "", op, nil, record.OK)
	s.emit("auth.login.succeeded", "", user, map[string]any{"username": user, "host": clientHost(r, s.opt.TrustedProxies)})
	s.api.WriteJSON(w, op, http.StatusOK, sess)
}

type paired struct {
	APIKey    string            `json:"api_key"`
	Principal string            `json:"principal"`
	Caps      []vine.Capability `json:"caps"`
	ExpiresAt string            `json:"expires_at"`
}

// pair serves POST /v1/auth/pair (J.2.6): a masked, expiring key for a
// browser extension, through the same verifier and window as login.
func (s *Server) pair(w http.ResponseWriter, r *http.Request) {
	const op = "auth.pair"
	m, err := doorBody(r)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	caps, days, err := pairTerms(m)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	user, pw := strings.TrimSpace(text(m, "username")), text(m, "password")
	if !s.verify(w, r, op, user, pw) {
		return
	}
	label := text(m, "label")
	if label == "" {
		label = pairLabel
	}
	minted, err := s.reg.Mint(r.Context(), user, registry.MintOptions{Label: label, Mask: caps,
		ExpiresIn: time.Duration(days * float64(24*time.Hour))})
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	s.govern(r, user, "", op, map[string]any{"username": user, "caps": caps, "prefix": minted.Key.Prefix,
		"expires_in_days": days}, record.OK)
	s.emit("pair.issued", "", user, map[string]any{"principal": user, "caps": caps, "prefix": minted.Key.Prefix,
		"expires_in_days": days})
	s.api.WriteJSON(w, op, http.StatusOK, paired{APIKey: minted.Secret, Principal: user, Caps: caps,
		ExpiresAt: minted.Key.ExpiresAt})
}

// pairTerms validates a pairing's caps and life, stating every bound
// rather than clamping.
func pairTerms(m map[string]json.RawMessage) ([]vine.Capability, float64, error) {
	caps := slices.Clone(pairCeiling)
	if raw, ok := m["caps"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		var list []vine.Capability
		if json.Unmarshal(raw, &list) != nil {
			return nil, 0, &vine.Error{Code: vine.ESchema, Message: "caps must be a list"}
		}
		for _, c := range list {
			if !slices.Contains(pairCeiling, c) {
				return nil, 0, &vine.Error{Code: vine.ESchema, Message: "pair caps must be within [read, ingest, answer]"}
			}
		}
		if len(list) > 0 {
			caps = slices.Compact(slices.Sorted(slices.Values(list)))
		}
	}
	days, err := pairDaysOf(m["expires_in_days"])
	return caps, days, err
}

func pairDaysOf(raw json.RawMessage) (float64, error) {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" || string(v) == `""` {
		return pairDays, nil
	}
	var days float64
	if json.Unmarshal(v, &days) != nil || math.IsNaN(days) || math.IsInf(days, 0) {
		return 0, &vine.Error{Code: vine.ESchema, Message: "expires_in_days must be a number"}
	}
	switch {
	case days == 0:
		return pairDays, nil
	case days < 0:
		return 0, &vine.Error{Code: vine.ESchema, Message: "expires_in_days must be positive"}
	case days > pairMaxDays:
		return 0, &vine.Error{Code: vine.ESchema, Message: "expires_in_days must be at most 365"}
	}
	return days, nil
}
