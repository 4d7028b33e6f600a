// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
)

// curatorBound reports whether the host bound a model Curator to ingest:
// the J.8 result's bound, and the condition of the rollup at finish.
func (s *Server) curatorBound() bool {
	return s.opt.Gardener != nil && s.opt.Gardener.Curator != nil
}

// rollUp rolls up the forest's ingested branches at the end of a job
// that finished (G.4.4 rule 7, J.9: a model bound, not cancelled), on the
// writer lane, and adds its counters to the batch's curation. A rollup
// that fails is logged and left out: the batch's documents stand.
func (s *Server) rollUp(ctx context.Context, forestID string, rep *gardener.IngestReport) *gardener.RollupReport {
	if !s.curatorBound() || rep == nil {
		return nil
	}
	opt := *s.opt.Gardener
	opt.Progress = nil
	var roll *gardener.RollupReport
	err := s.lanes.withWriter(ctx, forestID, func(v *vine.Vine) error {
		var err error
		roll, err = gardener.New(v, &opt).Rollup(ctx, gardener.RollupOptions{})
		return err
	})
	if err != nil {
		s.log.Warn("rollup after ingest", "forest", forestID, "err", err)
	}
	if roll != nil {
		rep.Curation.Merge(roll.Curation)
	}
	return roll
}
