// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"context"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
)

// Steps makes an accepted call's batch on the writable forest v:
// everything that can refuse it is checked here, before the first
// document. opt are the host's Gardener options with the surface's
// observers already set.
func Steps(ctx context.Context, v *vine.Vine, opt *gardener.Options, req Request) (*gardener.Steps, error) {
	g := gardener.New(v, opt)
	switch req.Mode {
	case ModeAdopt:
		return g.AdoptSteps(ctx, req.Path, req.Dest)
	case ModeSync:
		so := gardener.SyncOptions{Dest: req.Dest}
		if req.Path != "" {
			so.Paths = []string{req.Path}
		}
		return g.SyncSteps(ctx, so)
	}
	return g.UploadSteps(ctx, req.Files, req.Dest)
}
