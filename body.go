// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"

	"github.com/monkeyllm/vine/catalog"
)

// Body is one read of a node's body, for a caller that reads the same
// node several ways in a row (harvest sniffs an item term by term, then
// picks it whole or by section). Its methods answer as Pick and SniffEach
// would have at the time of the read, without resolving the id or reading
// the file again; later writes are not seen. A Body is immutable and safe
// for concurrent use.
type Body struct {
	rec catalog.Record
	src *pickSource
}

// ReadBody resolves id as every read does (a node out of the call's scope
// is E_NOT_FOUND, a moved one E_MOVED) and reads the body pick serves:
// the node's own body, or the backing file of content: cached and
// content: reference.
func (v *Vine) ReadBody(ctx context.Context, id string) (*Body, error) {
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	return v.bodyOf(rec)
}

// BodyOf reads the body of the node whose catalog row the caller already
// holds (from Record or Records), as ReadBody would, without reading the
// row again. The id is still checked: a node out of the call's scope or
// outside the forest is E_NOT_FOUND.
func (v *Vine) BodyOf(ctx context.Context, rec catalog.Record) (*Body, error) {
	if id, _, ok := v.files.reachable(ctx, rec.ID); !ok || id != rec.ID {
		return nil, notFound(rec.ID)
	}
	return v.bodyOf(rec)
}

func (v *Vine) bodyOf(rec catalog.Record) (*Body, error) {
	src, err := v.files.pickSource(rec)
	if err != nil {
		return nil, err
	}
	return &Body{rec: rec, src: src}, nil
}

// ID is the node's canonical id.
func (b *Body) ID() string { return b.rec.ID }

// Pick answers as Vine.Pick on this node.
func (b *Body) Pick(opt PickOptions) (*Content, error) {
	start, err := opt.check()
	if err != nil {
		return nil, err
	}
	return b.src.pick(opt, start)
}

// SniffEach answers as Vine.SniffEach on this node.
func (b *Body) SniffEach(terms []string) ([]SniffHit, error) {
	folded, err := sniffTerms(terms)
	if err != nil {
		return nil, err
	}
	return sniffEach(b.rec, b.src.body, folded), nil
}
