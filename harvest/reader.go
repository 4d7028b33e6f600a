// SPDX-License-Identifier: Apache-2.0

// Package harvest is the zero-model composite of C.6c, spec 05 (composite
// retrieval): one call gives a bring-your-own-model client ranked evidence
// for a question. It fuses the entry search (locate, over curated
// metadata) and the literal body search (sniff) by reciprocal rank, refines
// each hit to its rarest matching sections, serves small bodies whole and
// large ones as the matched sections, annotates time order and
// supersession, and stays inside a 4000-token wall with explicit
// truncation. It never calls a model.
//
// The operator's cap on k is the host's to set with [SetMaxK]; the
// package reads no environment.
package harvest

import (
	"context"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/catalog"
)

// Reader is what a sweep reads through. The engine satisfies it through
// Engine; a scoped view that filters every read by a policy satisfies it
// too, so scope filtering happens before budgeting. A sweep calls its
// Reader from several goroutines at once (the two legs, then the items),
// so an implementation must be safe for concurrent use, as a Vine is.
type Reader interface {
	Locate(ctx context.Context, query string, opt vine.LocateOptions) (*vine.LocateResult, error)
	Sniff(ctx context.Context, terms []string, opt vine.SniffOptions) (*vine.SniffResult, error)
	// SniffEach is sniff([t], scope=id, k=1) for each term t, from one
	// read of the node's body.
	SniffEach(ctx context.Context, id string, terms []string) ([]vine.SniffHit, error)
	Pick(ctx context.Context, id string, opt vine.PickOptions) (*vine.Content, error)
	// Record is a node's catalog row with its declared out-edges.
	Record(ctx context.Context, id string) (catalog.Record, error)
	// InEdges are the declared links pointing at id.
	InEdges(ctx context.Context, id string) ([]catalog.InEdge, error)
	// Notes is the `## Notes` text of a dataset or media node, header
	// dropped and clipped to 200 tokens ("" when it has none).
	Notes(ctx context.Context, id string) (string, error)
}

// Engine adapts an open forest to Reader.
func Engine(v *vine.Vine) Reader { return engine{v} }

type engine struct{ v *vine.Vine }

func (e engine) Locate(ctx context.Context, q string, o vine.LocateOptions) (*vine.LocateResult, error) {
	return e.v.Locate(ctx, q, o)
}

func (e engine) Sniff(ctx context.Context, t []string, o vine.SniffOptions) (*vine.SniffResult, error) {
	return e.v.Sniff(ctx, t, o)
}

func (e engine) SniffEach(ctx context.Context, id string, t []string) ([]vine.SniffHit, error) {
	return e.v.SniffEach(ctx, id, t)
}

func (e engine) Pick(ctx context.Context, id string, o vine.PickOptions) (*vine.Content, error) {
	return e.v.Pick(ctx, id, o)
}

func (e engine) Record(ctx context.Context, id string) (catalog.Record, error) {
	return e.v.Record(ctx, id)
}

func (e engine) InEdges(ctx context.Context, id string) ([]catalog.InEdge, error) {
	return e.v.InEdges(ctx, id)
}

func (e engine) Records(ctx context.Context, ids []string) (map[string]catalog.Record, error) {
	return e.v.Records(ctx, ids)
}

// recordsReader is the optional batch read a Reader may offer: one query
// for many rows instead of one per candidate.
type recordsReader interface {
	Records(ctx context.Context, ids []string) (map[string]catalog.Record, error)
}

func (e engine) BodyOf(ctx context.Context, rec catalog.Record) (*vine.Body, error) {
	return e.v.BodyOf(ctx, rec)
}

// bodyReader is the optional one-read path of an item: the Reader reads
// the body of a node whose row the sweep holds once, and the item sniffs
// and picks that read.
type bodyReader interface {
	BodyOf(ctx context.Context, rec catalog.Record) (*vine.Body, error)
}

// nodeReads are the reads an item makes of its own node.
type nodeReads interface {
	SniffEach(ctx context.Context, terms []string) ([]vine.SniffHit, error)
	Pick(ctx context.Context, opt vine.PickOptions) (*vine.Content, error)
}

// readsOf opens a candidate's reads: one body read when the Reader offers
// it and the candidate's row was read, else a call on the Reader per read.
// A failed body read takes the per-call path, whose reads then fail as
// they would have.
func readsOf(ctx context.Context, r Reader, c *candidate) nodeReads {
	if br, ok := r.(bodyReader); ok && c.found {
		if b, err := br.BodyOf(ctx, c.rec); err == nil {
			return bodyReads{b}
		}
	}
	return readerReads{r, c.id}
}

type bodyReads struct{ b *vine.Body }

func (b bodyReads) SniffEach(_ context.Context, terms []string) ([]vine.SniffHit, error) {
	return b.b.SniffEach(terms)
}

func (b bodyReads) Pick(_ context.Context, opt vine.PickOptions) (*vine.Content, error) {
	return b.b.Pick(opt)
}

type readerReads struct {
	r  Reader
	id string
}

func (r readerReads) SniffEach(ctx context.Context, terms []string) ([]vine.SniffHit, error) {
	return r.r.SniffEach(ctx, r.id, terms)
}

func (r readerReads) Pick(ctx context.Context, opt vine.PickOptions) (*vine.Content, error) {
	return r.r.Pick(ctx, r.id, opt)
}

func (e engine) Notes(ctx context.Context, id string) (string, error) {
	d, err := e.v.Look(ctx, id, vine.LookOptions{Fields: []string{"notes"}})
	if err != nil {
		return "", err
	}
	return d.Notes, nil
}
