// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"
	"slices"
	"strings"
)

// route is one entry of the route map: what ServeMux routes, what the
// OpenAPI document lists, and what a wrong method is told is allowed.
type route struct {
	method  string // GET also answers HEAD
	path    string // a ServeMux path; {name} is the primitive
	op      string // the access log's and metrics' name, the OpenAPI operationId
	summary string
	auth    bool // past authentication: a key is required
	h       http.HandlerFunc
}

// table is the route map of spec 08 §2. Literal routes (payload, export,
// jobs) are more specific than the {name} catch-all, so ServeMux matches
// them first; {node...} spans slashes.
func (s *Server) table() []route {
	rts := []route{
		{"GET", "/v1/health", "health", "liveness, mode and counts; no key", false, s.health},
		{"GET", "/v1/openapi.json", "openapi", "this API's OpenAPI 3.1 document; no key", false, s.openapi},
		{"GET", "/v1/me", "me", "this key's grants, masked", true, s.me},
		{"GET", "/v1/forests", "forests", "the forests this key may use", true, s.listForests},
		{"POST", "/v1/forests/{forest}/{name}", "call", "call a primitive with its JSON arguments", true, s.call},
		{"GET", "/v1/forests/{forest}/payload/{node...}", "payload", "a media node's bytes", true, s.payload},
		{"GET", "/v1/forests/{forest}/export/{node...}", "export", "a node as markdown; ?recursive=true zips a branch", true, s.export},
		{"GET", "/v1/forests/{forest}/graph", "graph", "the region's nodes and edges, under this key's scope (?scope=&limit=)", true, s.graph},
		{"GET", "/v1/forests/{forest}/trails", "trails", "the region's persistent heat, hottest first (?scope=&limit=)", true, s.trails},
		{"GET", "/v1/forests/{forest}/answer/{run}/events", "answer-events", "live events of an answer call that named this run (server-sent events)", true, s.answerEvents},
		{"GET", "/v1/forests/{forest}/ingest", "ingest-status", "what ingest can do here: the recorded source, sync, host paths, formats", true, s.ingestInfo},
		{"GET", "/v1/forests/{forest}/jobs", "jobs", "the ingest jobs this key may see, newest first", true, s.listJobs},
		{"GET", "/v1/forests/{forest}/jobs/{job}", "job", "one ingest job", true, s.getJob},
		{"POST", "/v1/forests/{forest}/jobs/{job}/cancel", "cancel", "stop a job at its next step", true, s.cancelJob},
		{"GET", "/v1/forests/{forest}/links", "links", "the proposed links a person may vote on, in this key's scope (?limit=)", true, s.listProposals},
		{"POST", "/v1/forests/{forest}/links/vote", "link-vote", "accept or reject proposed links, each named; a person's vote, not a model's", true, s.voteLinks},
		{"POST", "/v1/admin/reindex", "reindex", "rebuild a forest's catalog from its files", true, s.reindex},
		{"POST", "/v1/admin/recurate", "recurate", "re-derive a forest's aliases, or its scent through the ingest model", true, s.recurate},
		{"POST", "/v1/admin/forests", "create-forest", "create a forest (registry mode): admin on a forest, or the owner", true, s.createForest},
		{"GET", "/v1/admin/health", "health-report", "the Ranger's health report of a whole forest (?forest=)", true, s.adminHealth},
		{"GET", "/v1/admin/snapshots", "snapshots", "a forest's snapshot files, newest first (?forest=)", true, s.snapshots},
		{"POST", "/v1/admin/snapshots", "snapshot", "pack a forest into a snapshot file on the host", true, s.takeSnapshot},
		{"GET", "/v1/admin/snapshots/{forest}/{file}", "snapshot-download", "a snapshot file's bytes; owner only", true, s.downloadSnapshot},
		{"GET", "/v1/admin/locks", "locks", "the writer lock's state, probed without opening the forest (?forest=)", true, s.locks},
		{"POST", "/v1/admin/unlock", "unlock", "remove an orphaned writer lock", true, s.unlock},
		{"GET", "/v1/admin/canopy", "canopy-status", "the dense layer's state (?forest=)", true, s.canopyStatus},
		{"POST", "/v1/admin/canopy", "canopy", "build the dense layer, or refresh its stale nodes", true, s.canopyBuild},
		{"GET", "/v1/admin/heat-mode", "heat-mode", "how the forest's reads weigh heat: unconditioned or conditioned (?forest=)", true, s.heatMode},
		{"POST", "/v1/admin/heat-mode", "set-heat-mode", "set how the forest's reads weigh heat: per node, or per question", true, s.setHeatMode},
		{"GET", "/v1/admin/remotes", "remotes", "a forest's git remotes (?forest=)", true, s.remotes},
		{"POST", "/v1/admin/remotes", "set-remote", "record a forest's git remote URL; credentials are never stored", true, s.setRemote},
		{"POST", "/v1/admin/push", "push", "send a forest's commits to its git remote", true, s.push},
		{"POST", "/v1/admin/pull", "pull", "fast-forward or merge a forest's git remote into it; conflicts answer 409", true, s.pull},
	}
	rts = append(rts, s.hostRoutes()...)
	if s.metrics != nil {
		rts = append(rts, route{"GET", "/v1/metrics", "metrics", "Prometheus metrics; no key", false, s.metricsRoute})
	}
	return rts
}

// routes builds the mux from the table. Anything else under /v1/ is no
// endpoint, or a route asked with the wrong method.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range s.table() {
		mux.HandleFunc(rt.method+" "+rt.path, s.handle(rt))
	}
	mux.HandleFunc("/", s.unrouted)
	return mux
}

// handle names the exchange for the log and metrics, then authenticates
// when the route needs a key.
func (s *Server) handle(rt route) http.HandlerFunc {
	h := rt.h
	if rt.auth {
		h = s.authed(h)
	}
	return s.named(rt.op, h)
}

func (s *Server) named(op string, h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if x := exchangeOf(r.Context()); x != nil {
			x.op = op
		}
		h.ServeHTTP(w, r)
	}
}

// unrouted answers a request no route matched: 405 with Allow when the
// path is a route's under another method, else no endpoint.
func (s *Server) unrouted(w http.ResponseWriter, r *http.Request) {
	if allow := s.allowed(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeEnvelope(w, http.StatusMethodNotAllowed, methodRefusal(r.Method, allow))
		return
	}
	s.noEndpoint(w, r)
}

// callPattern is the primitive route's ServeMux pattern.
const callPattern = "POST /v1/forests/{forest}/{name}"

// routed reports whether pattern is a route for path: the primitive
// route only for a name it serves, so GET …/jobs is not told to POST.
func (s *Server) routed(pattern, path string) bool {
	switch pattern {
	case "", "/":
		return false
	case callPattern:
		return slices.Contains(s.served, path[strings.LastIndexByte(path, '/')+1:])
	}
	return true
}

// allowed lists the methods some route serves on r's path, asking the mux
// itself so the answer cannot drift from the routing. GET brings HEAD.
func (s *Server) allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); s.routed(pattern, r.URL.Path) {
			out = append(out, m)
			if m == http.MethodGet {
				out = append(out, http.MethodHead)
			}
		}
	}
	if len(out) > 0 && len(s.opt.CORSOrigins) > 0 {
		out = append(out, http.MethodOptions)
	}
	slices.Sort(out)
	return out
}
