// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/gardener"
)

// rollUp rolls up the forest's ingested branches at the end of a job
// that finished with a model bound (ingestreq.RollUp), on the writer
// lane. A rollup that fails is logged and left out: the batch's
// documents stand.
func (s *Server) rollUp(ctx context.Context, forestID string, opt gardener.Options, rep *gardener.IngestReport) *gardener.RollupReport {
	var roll *gardener.RollupReport
	err := s.lanes.withWriter(ctx, forestID, func(v *vine.Vine) error {
		var err error
		roll, err = ingestreq.RollUp(ctx, v, opt, rep)
		return err
	})
	if err != nil {
		s.log.Warn("rollup after ingest", "forest", forestID, "err", err)
	}
	return roll
}
