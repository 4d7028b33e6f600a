// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/gardener"
)

// ingestStatus is the answer of GET /v1/forests/{forest}/ingest (J.8.5):
// what a console needs to offer ingest — the recorded source root, whether
// a bare sync may read it now, whether any host path is served, and the
// formats this forest can ingest, [{extension, via}] (v0.83: one list,
// from supported_formats over the forest's own converters and bindings).
type ingestStatus struct {
	Source   *string           `json:"source"`
	CanSync  bool              `json:"can_sync"`
	HostPath bool              `json:"host_paths"`
	Formats  []gardener.Format `json:"formats"`
}

// ingestInfo serves GET /v1/forests/{forest}/ingest; it needs ingest.
func (s *Server) ingestInfo(w http.ResponseWriter, r *http.Request) {
	const op = "ingest-status"
	ctx := r.Context()
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	if !pol.Has(vine.CapIngest) {
		s.refuse(w, op, needsCaps("ingest", pol.Caps, vine.CapIngest))
		return
	}
	dir, err := s.reg.Dir(id)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	out := ingestStatus{HostPath: len(s.opt.IngestRoots) > 0}
	cfg, err := gardener.LoadConfig(dir)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	if cfg.SourceRoot != "" {
		root := cfg.SourceRoot
		out.Source = &root
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, root)
		}
		out.CanSync = ingestreq.Roots(s.opt.IngestRoots).Allow(root) == nil
	}
	out.Formats = gardener.Formats(cfg.Converters, s.gardenerOptions(ctx, id).Converters)
	s.writeJSON(w, op, http.StatusOK, out)
}
