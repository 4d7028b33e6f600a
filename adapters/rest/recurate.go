// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"net/http"
	"path/filepath"
	"slices"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/gardener"
)

// recurateSignature is POST /v1/admin/recurate's body.
var recurateSignature = vine.Signature{
	Name: "recurate",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest to re-derive"},
		{Name: "derive", Type: vine.TStringList, Required: true, Doc: `what to re-derive: "aliases" (from the forest's own passports) and/or "scent" (through the host's ingest model)`},
	},
}

// recurateAnswer is the route's answer: the forest and the report.
type recurateAnswer struct {
	Forest string `json:"forest"`
	*gardener.RecurateReport
	// Job is the scent recurate's job (J.13.6.1), when scent was asked.
	Job *jobView `json:"job,omitempty"`
}

// recurate serves POST /v1/admin/recurate {forest, derive} (J.13.6):
// like reindex it needs admin over the whole forest, and a read-only
// forest refuses it (E_READONLY) before any write. "aliases" runs on the
// writer lane while the caller waits, each changed node one commit
// stamped with the caller. "scent" asks the Curator of the forest's
// gardener options (E_SCHEMA when none is bound) and runs as an ingest
// job (J.9): the answer is 202 with the job, whose total is the bill,
// stated before the first model call.
func (s *Server) recurate(w http.ResponseWriter, r *http.Request) {
	const op = "recurate"
	note := s.noteCall(r, "", op)
	a, ok := s.postArgs(w, r, op, recurateSignature, note)
	if !ok {
		return
	}
	note.setForest(record.Clip(a.String("forest")))
	who := callerOf(r.Context())
	ctx := stamped(r.Context(), who)
	derive := a.Strings("derive")
	id, pol, err := s.forests.Grant(who, a.String("forest"))
	if err == nil {
		err = gardener.CheckDerive(derive)
	}
	if err == nil {
		err = wholeForestAdmin(op, pol)
	}
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	out := recurateAnswer{Forest: id}
	scent := slices.Contains(derive, "scent")
	var j *job
	var steps *gardener.Steps
	var before string
	if scent {
		if j, err = s.jobs.reserve(id, ingestreq.ModeRecurate, who.Name); err != nil {
			s.refuse(w, op, err)
			return
		}
	}
	err = s.on(ctx, who, id, false, func(v *vine.Vine) error {
		opt := s.gardenerOptions(ctx, filepath.Base(v.Dir()))
		opt.Progress = nil
		g := gardener.New(v, &opt)
		if scent { // every refusal of the job before the aliases write
			before = ingestreq.Head(v.Dir())
			if steps, err = g.RecurateScentSteps(ctx); err != nil {
				return err
			}
		}
		if others := slices.DeleteFunc(slices.Clone(derive), func(m string) bool { return m == "scent" }); len(others) > 0 {
			out.RecurateReport, err = g.Recurate(ctx, gardener.RecurateOptions{Derive: others})
		}
		return err
	})
	if err != nil {
		if j != nil {
			s.jobs.abandon(id, j)
		}
		s.refuse(w, op, err)
		return
	}
	if !scent {
		s.writeJSON(w, op, http.StatusOK, out)
		return
	}
	j.update(func(v *jobView) { v.Total = steps.Total() })
	s.jobs.begin(id, j)
	go s.runJob(j, id, ingestreq.ModeRecurate, before, steps, newJobAudit(r, who))
	view := j.snapshot()
	out.Job = &view
	w.Header().Set("Location", jobPath(id, view.ID))
	s.writeJSON(w, op, http.StatusAccepted, out)
}
