// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"context"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
)

// RollUp rolls up v's ingested branches at the end of a batch that
// finished with a model bound (G.4.4 rule 7, J.9: opt.Curator set, not
// cancelled), and adds its counters to the batch's curation. It answers
// nil when no model is bound. A rollup that fails returns what it did
// and its error: the batch's documents stand, and the caller logs it.
// Run it where the forest's writes run (a host's writer lane).
func RollUp(ctx context.Context, v *vine.Vine, opt gardener.Options, rep *gardener.IngestReport) (*gardener.RollupReport, error) {
	if opt.Curator == nil || rep == nil {
		return nil, nil
	}
	opt.Progress = nil
	roll, err := gardener.New(v, &opt).Rollup(ctx, gardener.RollupOptions{})
	if roll != nil {
		rep.Curation.Merge(roll.Curation)
	}
	return roll, err
}
