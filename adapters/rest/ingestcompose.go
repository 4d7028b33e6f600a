// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/keys"
)

// compose serves POST …/ingest with mode compose (J.8): one authored
// document, answered in place (200), never a job. stage previews its
// draft and writes nothing; draft plants a reviewed one as approved. It
// runs on the writer lane, between the steps of any batch, and its
// commit carries the caller's trailer.
func (s *Server) compose(w http.ResponseWriter, r *http.Request, who *keys.Principal, id string, pol vine.Policy, req ingestreq.Request) {
	opt := s.gardenerOptions(r.Context(), id)
	var out *ingestreq.ComposeResult
	ctx := stamped(r.Context(), who)
	err := s.on(ctx, who, id, false, func(v *vine.Vine) error {
		sc, err := v.Scoped(pol)
		if err != nil {
			return err
		}
		if err := ingestreq.Check(ctx, v, sc, req, s.opt.IngestRoots); err != nil {
			return err
		}
		out, err = ingestreq.Compose(ctx, v, sc, opt, req)
		return err
	})
	if err != nil {
		s.refuse(w, ingestName, err)
		return
	}
	noteOf(r).setCommit(out) // the audit row names the commit an accept made; a stage made none
	s.writeJSON(w, ingestName, http.StatusOK, out)
}
