package rest

import "net/http"

// routes is the route map of spec 08 §2. Literal routes (payload,
// export, jobs) are more specific than the {name} catch-all, so ServeMux
// matches them first; {node...} spans slashes. Anything else under /v1/
// is no endpoint.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", s.health)
	mux.HandleFunc("GET /v1/me", s.authed(s.me))
	mux.HandleFunc("GET /v1/forests", s.authed(s.listForests))
	mux.HandleFunc("POST /v1/forests/{forest}/{name}", s.authed(s.call))
	mux.HandleFunc("GET /v1/forests/{forest}/payload/{node...}", s.authed(s.payload))
	mux.HandleFunc("GET /v1/forests/{forest}/export/{node...}", s.authed(s.export))
	mux.HandleFunc("GET /v1/forests/{forest}/jobs", s.authed(s.listJobs))
	mux.HandleFunc("GET /v1/forests/{forest}/jobs/{job}", s.authed(s.getJob))
	mux.HandleFunc("POST /v1/forests/{forest}/jobs/{job}/cancel", s.authed(s.cancelJob))
	mux.HandleFunc("POST /v1/admin/reindex", s.authed(s.reindex))
	mux.HandleFunc("/", s.noEndpoint)
	return mux
}
