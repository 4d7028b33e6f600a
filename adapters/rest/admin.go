// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"math"
	"net/http"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
)

// reindexSignature is POST /v1/admin/reindex's body.
var reindexSignature = vine.Signature{
	Name:   "reindex",
	Params: []vine.Param{{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest whose catalog to rebuild"}},
}

type reindexAnswer struct {
	Forest string  `json:"forest"`
	Nodes  int     `json:"nodes"`
	MS     float64 `json:"ms"`
}

// reindex serves POST /v1/admin/reindex {forest} (J.13.3): the catalog
// rebuilt from the files on the writer lane while the caller waits, then
// the forest's read-only instances reset so every read sees the new
// catalog. It needs admin over the whole forest: a key that sees part of
// it is refused with the reason, never served a partial repair. A
// missing forest is a schema refusal before any authorisation (C.12 r6).
func (s *Server) reindex(w http.ResponseWriter, r *http.Request) {
	const op = "reindex"
	note := s.noteCall(r, "", op)
	a, ok := s.postArgs(w, r, op, reindexSignature, note)
	if !ok {
		return
	}
	note.setForest(record.Clip(a.String("forest")))
	ctx := r.Context()
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, a.String("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	if err := wholeForestAdmin(op, pol); err != nil {
		s.refuse(w, op, err)
		return
	}
	var out reindexAnswer
	err = s.on(ctx, who, id, false, func(v *vine.Vine) error {
		start := time.Now()
		res, err := v.Reindex(ctx)
		if err != nil {
			return err
		}
		out = reindexAnswer{Forest: id, Nodes: res.Nodes, MS: math.Round(float64(time.Since(start).Microseconds())/100) / 10}
		return nil
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	if err := s.lanes.reset(id); err != nil {
		s.log.Warn("closing read-only instances after reindex", "forest", id, "err", err)
	}
	note.setSize(int64(out.Nodes)) // spec 09 §9: a reindex row's size is its node count
	s.writeJSON(w, op, http.StatusOK, out)
}
