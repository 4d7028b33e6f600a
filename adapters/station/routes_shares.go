// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/adapters/station/shares"
	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
)

// The share routes of 09 §11 (J.17): a person with read on a node hands
// out a link that opens that node alone, for a bounded time, on their own
// authority, re-read at every serve. Every dead link answers one
// byte-identical not-found, on both paths and under any Accept.

// shareHops bounds the waymarks a shared node follows (decision 10): a
// chain of moves is short, a loop must end.
const shareHops = 8

// shareDesk is what the share routes keep: the table, their own failure
// window per client host, and the forest gate of the REST surface (same
// unknown-forest bytes).
type shareDesk struct {
	store   *shares.Store
	window  *failureLimiter
	forests *wire.Forests
}

// openShares migrates the shares table and readies the share routes.
func (s *Server) openShares(ctx context.Context) error {
	store, err := shares.New(ctx, s.reg.DB(), &shares.Options{Now: s.opt.Now})
	if err != nil {
		return err
	}
	s.shares = shareDesk{store: store, window: newFailureLimiter(s.now),
		forests: wire.NewForests(s.forests, "GET /v1/forests lists the forests this key may use")}
	return nil
}

// shareRoutes are the share routes, served by the REST surface so the
// Host guard, request ids and access log cover /s/{token} as well.
func (s *Server) shareRoutes() []rest.Route {
	return []rest.Route{
		{Method: "POST", Path: "/v1/forests/{forest}/share", Op: "share.create", Summary: "share one node by a link that expires (09 §11)", Auth: true, Handler: s.createShare},
		{Method: "GET", Path: "/v1/forests/{forest}/shares", Op: "shares", Summary: "the live shares you issued, or all of the forest's for an unrestricted admin", Auth: true, Handler: s.listShares},
		{Method: "DELETE", Path: "/v1/forests/{forest}/shares/{id}", Op: "share.revoke", Summary: "revoke a share: its issuer or an unrestricted admin", Auth: true, Handler: s.revokeShare},
		{Method: "GET", Path: "/v1/share/{token}", Op: "share", Summary: "the node a share link opens; no key", Handler: s.serveShare},
		{Method: "GET", Path: "/s/{token}", Op: "share.page", Summary: "a share link: a reading page for a browser, else /v1/share/{token}", Handler: s.sharePage},
	}
}

// shareGate resolves the forest of a share route for the caller: an
// ungranted forest is the unknown forest, and read is required after
// the key's mask.
func (s *Server) shareGate(r *http.Request) (*keys.Principal, string, vine.Policy, error) {
	who := rest.Caller(r.Context())
	id, pol, err := s.shares.forests.Grant(who, r.PathValue("forest"))
	if err == nil {
		_, err = s.forests.Dir(id) // the owner is granted every id, served or not
	}
	if err != nil {
		return nil, "", vine.Policy{}, s.shares.forests.Opened(who, r.PathValue("forest"), err)
	}
	return who, id, pol, nil
}

// needsRead is the refusal of a share route without read.
func needsRead(pol vine.Policy) *vine.Error {
	hint := "this key holds no capability"
	if len(pol.Caps) > 0 {
		names := make([]string, len(pol.Caps))
		for i, c := range pol.Caps {
			names[i] = string(c)
		}
		hint = "this key holds: " + strings.Join(names, ", ")
	}
	return &vine.Error{Code: vine.EForbidden, Message: "'share' requires the 'read' capability", Hint: hint}
}

// createShare serves POST /v1/forests/{forest}/share {node, days?}.
func (s *Server) createShare(w http.ResponseWriter, r *http.Request) {
	const op = "share.create"
	who, forestID, pol, err := s.shareGate(r)
	if err == nil && !pol.Has(vine.CapRead) {
		err = needsRead(pol)
	}
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	m, err := doorBody(r)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	node := text(m, "node")
	if strings.TrimSpace(node) == "" {
		s.api.Refuse(w, op, &vine.Error{Code: vine.ESchema, Message: "share requires a 'node' (string)"})
		return
	}
	days, err := shares.Days(m["days"])
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	v, err := s.forests.Forest(r.Context(), forestID)
	if err != nil {
		s.api.Refuse(w, op, s.shares.forests.Opened(who, forestID, err))
		return
	}
	rec, err := sharedRecord(r.Context(), v, pol, node)
	if code := vine.CodeOf(err); code == vine.ENotFound || code == vine.EMoved {
		err = &vine.Error{Code: vine.ENotFound, Message: "node not found: " + node, Hint: "Use locate() to find entry points."}
	}
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	made, err := s.shares.store.Create(r.Context(), forestID, rec.ID, who.Name, days)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	s.noteShare(r, who.Name, forestID, "share.created", map[string]any{"share": made.ID, "days": days}, rec.ID)
	s.api.WriteJSON(w, op, http.StatusOK, map[string]any{"id": made.ID, "url": "/s/" + made.Token, "expires": made.Expires})
}

// noteShare audits a share's creation or revocation on its forest, as
// govern does. The node is an id here, kept as one: the digest withholds
// "node" elsewhere because plant's carries a body.
func (s *Server) noteShare(r *http.Request, principal, forest, action string, args map[string]any, node string) {
	s.audit.Record(r.Context(), record.Call{Time: s.now(), Principal: principal, Forest: forest, Primitive: action,
		Args: record.DigestValues(action, args).With("node", node), Result: record.OK})
}

// seesAll reports whether a policy sees every share of its forest: an
// admin whose scope is the whole forest.
func seesAll(pol vine.Policy) bool { return pol.Has(vine.CapAdmin) && pol.Unrestricted() }

// listShares serves GET /v1/forests/{forest}/shares: live shares only,
// never a token.
func (s *Server) listShares(w http.ResponseWriter, r *http.Request) {
	const op = "shares"
	who, forestID, pol, err := s.shareGate(r)
	if err == nil && !pol.Has(vine.CapRead) {
		err = needsRead(pol)
	}
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	issuer := who.Name
	if seesAll(pol) {
		issuer = ""
	}
	list, err := s.shares.store.Active(r.Context(), forestID, issuer)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	s.api.WriteJSON(w, op, http.StatusOK, map[string]any{"shares": list})
}

// revokeShare serves DELETE /v1/forests/{forest}/shares/{id}: a share the
// caller may not see is the share not-found, as an unknown one.
func (s *Server) revokeShare(w http.ResponseWriter, r *http.Request) {
	const op = "share.revoke"
	who, forestID, pol, err := s.shareGate(r)
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	ctx := r.Context()
	sh, ok, err := s.shares.store.Get(ctx, forestID, r.PathValue("id"))
	if err == nil && (!ok || (sh.Issuer != who.Name && !seesAll(pol))) {
		err = shares.NotFound()
	}
	if err == nil {
		err = s.shares.store.Revoke(ctx, sh.ID)
	}
	if err != nil {
		s.api.Refuse(w, op, err)
		return
	}
	s.noteShare(r, who.Name, forestID, "share.revoked", map[string]any{"share": sh.ID}, sh.Node)
	s.api.WriteJSON(w, op, http.StatusOK, map[string]any{"id": sh.ID, "revoked": true})
}

// sharedRecord is the catalog row of node seen through pol, a moved
// node followed while its destination is in scope (decision 10). Any
// failure means the node cannot be shared or served.
func sharedRecord(ctx context.Context, v *vine.Vine, pol vine.Policy, node string) (catalog.Record, error) {
	sc, err := v.Scoped(pol)
	if err != nil {
		return catalog.Record{}, err
	}
	ctx = sc.Context(ctx)
	for range shareHops {
		rec, err := v.Record(ctx, node)
		var e *vine.Error
		if vine.CodeOf(err) != vine.EMoved || !errors.As(err, &e) {
			return rec, err
		}
		to, _ := e.Get("moved_to") // the engine names only a destination in scope
		next, ok := to.(string)
		if !ok || next == "" {
			return catalog.Record{}, err
		}
		node = next
	}
	return catalog.Record{}, shares.NotFound()
}

// sharedNode is what a share link shows: one node, its body only.
type sharedNode struct {
	Title    string   `json:"title"`
	Markdown string   `json:"markdown"`
	Outline  []string `json:"outline"`
	Expires  string   `json:"expires"`
}

// openShare reads what a token opens now: the live row, the issuer's
// authority as it stands (their grants, no key mask), and the node
// through that authority. ok is false for every dead link alike.
func (s *Server) openShare(ctx context.Context, token string) (shares.Share, sharedNode, bool) {
	sh, ok, err := s.shares.store.Resolve(ctx, token)
	if err != nil || !ok {
		return sh, sharedNode{}, s.logShare(err)
	}
	issuer, found, err := s.reg.Live(ctx, sh.Issuer, nil)
	if err != nil || !found {
		return sh, sharedNode{}, s.logShare(err)
	}
	pol, granted := issuer.Policy(sh.Forest)
	if !granted || !pol.Has(vine.CapRead) {
		return sh, sharedNode{}, false // a lapsed grant suspends every share it issued
	}
	v, err := s.forests.Forest(ctx, sh.Forest)
	if err != nil {
		return sh, sharedNode{}, false
	}
	rec, err := sharedRecord(ctx, v, pol, sh.Node)
	if err != nil {
		return sh, sharedNode{}, false
	}
	body, err := sharedBody(v, rec)
	if err != nil {
		return sh, sharedNode{}, false
	}
	title := rec.Title
	if title == "" {
		title = rec.ID
	}
	outline := forest.ParseOutline(body).SectionNames()
	if outline == nil {
		outline = []string{}
	}
	return sh, sharedNode{Title: title, Markdown: body, Outline: outline, Expires: sh.Expires}, true
}

// logShare notes a failure of the registry itself, which the link's
// holder sees as any dead link; it reports false.
func (s *Server) logShare(err error) bool {
	if err != nil {
		s.log.Warn("station: serving a share", "err", err)
	}
	return false
}

// sharedBody is a node's body without its frontmatter, a cached or
// reference body read where it lives (G.7).
func sharedBody(v *vine.Vine, rec catalog.Record) (string, error) {
	root, err := forest.NewRoot(v.Dir())
	if err != nil {
		return "", err
	}
	file, err := root.Path(rec.ID)
	if err != nil {
		return "", err
	}
	data, err := forest.ReadFile(file)
	if err != nil {
		return "", err
	}
	n, err := forest.Parse(rec.ID, data)
	if err != nil {
		return "", err
	}
	if mode := n.Content(); mode == "cached" || mode == "reference" {
		return v.BackedBody(n)
	}
	return n.Body, nil
}

// serveShare serves GET /v1/share/{token}.
func (s *Server) serveShare(w http.ResponseWriter, r *http.Request) { s.answerShare(w, r, false) }

// sharePage serves GET /s/{token}: the reading page when the browser
// asks for HTML, else exactly /v1/share/{token}'s answer. A dead link is
// the same envelope either way.
func (s *Server) sharePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "Accept")
	s.answerShare(w, r, strings.Contains(strings.Join(r.Header.Values("Accept"), ","), "text/html"))
}

// answerShare answers a token behind the share window of the client's
// host: 5 failures in 60 s close it. A success never reopens it, so a
// valid link interleaved with guesses buys no more guesses.
func (s *Server) answerShare(w http.ResponseWriter, r *http.Request, page bool) {
	const op = "share"
	w.Header().Set("Cache-Control", "no-store")
	window := "share\x00" + clientHost(r, s.opt.TrustedProxies)
	if s.shares.window.blocked(window) {
		s.api.RefuseWith(w, http.StatusTooManyRequests, tooMany())
		return
	}
	sh, n, ok := s.openShare(r.Context(), r.PathValue("token"))
	if !ok {
		s.shares.window.fail(window)
		s.api.RefuseWith(w, http.StatusNotFound, shares.NotFound())
		return
	}
	s.audit.Record(r.Context(), record.Call{Time: s.now(), Principal: sh.Issuer, Forest: sh.Forest, Primitive: op,
		Args: record.DigestValues(op, map[string]any{"share": sh.ID}), Result: record.OK, Size: int64(len(n.Markdown))})
	if !page {
		s.api.WriteJSON(w, op, http.StatusOK, n)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := sharePageHTML.Execute(w, n); err != nil {
		s.log.Warn("station: rendering a share page", "err", err)
	}
}

// sharePageHTML is the anonymous reading page (10 §6.5) until the
// console's own arrives: no script, no link into the forest, the
// markdown shown as escaped text.
var sharePageHTML = template.Must(template.New("share").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}}</title>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p>expires {{.Expires}}</p>
{{if .Outline}}<nav><ul>{{range .Outline}}<li>{{.}}</li>{{end}}</ul></nav>
{{end}}<pre>{{.Markdown}}</pre>
</main>
</body>
</html>
`))
