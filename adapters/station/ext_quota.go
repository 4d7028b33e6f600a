// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/adapters/station/quota"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
)

// Quotas and metering of the model calls extensions make (spec 11 §6
// Quota, F.177, F.178). Each call an extension makes through its bound
// caller is checked against the extension's ceiling on the caller's
// forest before the provider is called, charged after with its cost
// from the provider's price listing, and audited as model.<role> for
// the person the act served, with via. A refusal is audited too, reaches
// the extension as the E_EXT_QUOTA envelope, and — when the extension
// then fails the act a person called — answers that person 429 with
// Retry-After at the window's rollover.

// quotaRoutes are the quota routes, appended to extensionRoutes().
func (s *Server) quotaRoutes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Path: "/v1/admin/extensions/quota", Op: "admin.extensions.quota", Summary: "what an extension spent on a forest's models, and its ceiling", Auth: true, Handler: s.admin(s.extQuota)},
		{Method: "POST", Path: "/v1/admin/extensions/quota", Op: "admin.extension.quota", Summary: "set an extension's spending ceiling on a forest", Auth: true, Handler: s.admin(s.setExtQuota)},
	}
}

// usage is the metered tokens of a provider call; nil when the call is
// not metered per token (transcription).
type usage struct{ prompt, completion int }

// extModelCall runs one provider call of call's extension for role on
// the model m: quota first, run, then the audit row and the charge. The
// error is the quota refusal or run's failure as the extension reads it.
// Calls already admitted when the ceiling is reached still finish and
// are charged: the check is before the call, the cost known only after,
// so a window may end a few calls past its ceiling, never more than its
// concurrent calls.
func (s *Server) extModelCall(ctx context.Context, call ext.Call, role string, m providers.Model, run func() (*usage, error)) error {
	row := record.Call{Principal: firstNonEmpty(call.Principal, "-"), Forest: call.Forest, Primitive: "model." + role, Via: record.Via(call.Ext)}
	args := map[string]any{"model": m.Model}
	if st, err := s.quotas.Admit(ctx, call.Ext, call.Forest); err != nil {
		args["window"] = st.Window
		row.Time, row.Args, row.Result, row.ErrorCode = s.now(), record.DigestValues(row.Primitive, args), record.Error, string(vine.CodeOf(err))
		s.audit.Record(ctx, row)
		if c, ok := call.Auth.(*extCaller); ok && errors.Is(err, envelope.ExtQuota) {
			c.refused(err, st.RetryAfter(s.now()))
		}
		return err
	}
	start := time.Now()
	u, err := run()
	row.ModelMS = record.Millis(time.Since(start))
	if u != nil {
		args["prompt_tokens"], args["completion_tokens"] = u.prompt, u.completion
		if r, priced := s.models.Price(ctx, m); priced {
			usd := r.Cost(u.prompt, u.completion)
			row.CostUSD = &usd
		}
	}
	row.Time, row.Args, row.Result = s.now(), record.DigestValues(row.Primitive, args), record.OK
	if err != nil {
		row.Result, row.ErrorCode = record.Error, string(envelope.ExtWorker)
	}
	s.audit.Record(ctx, row)
	if _, qerr := s.quotas.Charge(ctx, call.Ext, call.Forest, row.CostUSD); qerr != nil {
		s.log.Error("station: an extension's model call was not charged", "ext", call.Ext, "forest", call.Forest, "err", qerr)
	}
	if err != nil {
		return envelope.New(envelope.ExtWorker, fmt.Sprintf("model.%s: %v", role, err), "")
	}
	return nil
}

// extCaller is the host's record of whom an extension call serves
// (ext.Call.Auth): the caller's key, and the quota refusal one of the
// extension's model calls met while serving it, so the act can answer
// 429 with Retry-After.
type extCaller struct {
	who *keys.Principal

	mu         sync.Mutex
	quotaErr   error
	retryAfter int
}

func newCaller(who *keys.Principal) *extCaller { return &extCaller{who: who} }

func (c *extCaller) refused(err error, retryAfter int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.quotaErr, c.retryAfter = err, retryAfter
}

// quotaRefusal is the refusal met during the call, if any.
func (c *extCaller) quotaRefusal() (error, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.quotaErr, c.retryAfter
}

// callerOf is the principal call serves, nil when none.
func callerOf(call ext.Call) *keys.Principal {
	switch a := call.Auth.(type) {
	case *extCaller:
		return a.who
	case *keys.Principal:
		return a
	}
	return nil
}

// refuseExtCall answers an extension act that failed: with the quota
// refusal its model call met (429, Retry-After at the rollover) when
// there was one, else with err.
func (s *Server) refuseExtCall(w http.ResponseWriter, op string, c *extCaller, err error) {
	if qerr, secs := c.quotaRefusal(); qerr != nil {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		err = qerr
	}
	s.api.Refuse(w, op, err)
}

// quotaTarget checks ext and forest of a quota request: the caller
// administers the forest, and, to set a ceiling, the extension is
// installed (a removed extension's spending stays readable).
func (s *Server) quotaTarget(c adminCall, id, forestID string, installed bool) error {
	if id == "" {
		return &vine.Error{Code: vine.ESchema, Message: "quota: 'ext' is required", Hint: "GET /v1/admin/extensions lists what is installed"}
	}
	if err := s.forestAdmin(c, forestID); err != nil {
		return err
	}
	if installed && !slices.Contains(s.installedIDs(), id) {
		return &vine.Error{Code: vine.ENotFound, Message: fmt.Sprintf("extension %q is not installed on this Station", id),
			Hint: "GET /v1/admin/extensions lists what is installed"}
	}
	return nil
}

// extQuota serves GET /v1/admin/extensions/quota?ext=&forest= to an
// admin of the forest.
func (s *Server) extQuota(c adminCall) {
	const op = "admin.extensions.quota"
	q := c.r.URL.Query()
	id, forestID := q.Get("ext"), q.Get("forest")
	if err := s.quotaTarget(c, id, forestID, false); err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	st, err := s.quotas.Get(c.r.Context(), id, forestID)
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, st)
}

// setExtQuota serves POST /v1/admin/extensions/quota {ext, forest,
// ceiling, period?}: a ceiling is spending authority over installed
// code, so it needs authority over the whole deployment.
func (s *Server) setExtQuota(c adminCall) {
	const op = "admin.extension.quota"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	id, forestID, period := text(m, "ext"), text(m, "forest"), text(m, "period")
	st, err := s.doSetQuota(c, m, id, forestID, period)
	s.note(c, forestID, "extension.quota", map[string]any{"ext": id, "ceiling": string(m["ceiling"]), "period": period}, outcome(err))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, st)
}

func (s *Server) doSetQuota(c adminCall, m map[string]json.RawMessage, id, forestID, period string) (quota.State, error) {
	if ok, err := s.governs(c); err != nil || !ok {
		if err == nil {
			err = errNotGoverning("setting an extension's spending ceiling")
		}
		return quota.State{}, err
	}
	if err := s.quotaTarget(c, id, forestID, true); err != nil {
		return quota.State{}, err
	}
	var ceiling *float64
	if err := json.Unmarshal(m["ceiling"], &ceiling); err != nil || ceiling == nil {
		return quota.State{}, &vine.Error{Code: vine.ESchema, Message: "quota: 'ceiling' must be a number of US dollars",
			Hint: "for example {\"ext\": \"whisper\", \"forest\": \"acme\", \"ceiling\": 5, \"period\": \"month\"}"}
	}
	if raw, ok := m["period"]; ok && string(raw) != "null" {
		var p string
		if json.Unmarshal(raw, &p) != nil {
			return quota.State{}, &vine.Error{Code: vine.ESchema, Message: "quota: 'period' must be hour, day or month"}
		}
	}
	return s.quotas.Set(c.r.Context(), id, forestID, *ceiling, period)
}
