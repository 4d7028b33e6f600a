// SPDX-License-Identifier: Apache-2.0

package payloadplace

import (
	"context"

	"github.com/monkeyllm/vine/envelope"
)

// Target is one node with a remote payload to bring home.
type Target struct{ ID, URI, Hash string }

// Prefetched is what a prefetch did (G.9 rule 5).
type Prefetched struct {
	Fetched      []string // ids whose payload this call downloaded
	AlreadyLocal int      // payloads whose cached copy already passed its hash
	Errors       []string // "<id>: <message>" per payload not brought home
}

// Prefetch brings every target's payload into the cache. One payload's
// failure is reported in Errors and does not stop the others; only the
// end of ctx stops the run. progress, when set, is told of each step.
func (p *Place) Prefetch(ctx context.Context, targets []Target, progress func(done, total int)) (*Prefetched, error) {
	if progress == nil {
		progress = func(int, int) {}
	}
	res := &Prefetched{Fetched: []string{}, Errors: []string{}}
	for i, t := range targets {
		progress(i, len(targets))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		_, fetched, err := p.cache.Get(ctx, t.URI, t.Hash)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Errors = append(res.Errors, t.ID+": "+prefetchMessage(t, err))
		case fetched:
			res.Fetched = append(res.Fetched, t.ID)
		default:
			res.AlreadyLocal++
		}
	}
	progress(len(targets), len(targets))
	return res, nil
}

// prefetchMessage is the message a caller sees for one failed payload:
// the envelope's text for a refusal, the error itself otherwise (prefetch
// is a host operation, so no caller is shielded from the detail).
func prefetchMessage(t Target, err error) string {
	if e, ok := Refusal("prefetch", t.ID, t.URI, err).(*envelope.Error); ok {
		return e.Message
	}
	return err.Error()
}
