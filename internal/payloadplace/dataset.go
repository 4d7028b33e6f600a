// SPDX-License-Identifier: Apache-2.0

package payloadplace

import (
	"context"
	"errors"
	"fmt"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/payload"
)

// Dataset is the local SQLite file behind a dataset (C.5 step 7, C.10
// step 6). A remote payload is read through the G.9 cache copy, fetched
// on a miss and checked against payload_hash, and never written (tend
// refuses it: editing a cached copy would fork the dataset).
func (p *Place) Dataset(ctx context.Context, s Scope, op string, rec catalog.Record, write bool) (string, error) {
	if rec.Payload == "" {
		return "", envelope.New(envelope.NotFound, "payload missing: the passport names no payload",
			"a dataset's payload frontmatter names its .db file beside the node")
	}
	f := p.Stat(s, rec.ID, rec.Payload)
	if !f.Remote {
		if f.Escapes {
			return "", envelope.New(envelope.NotFound, "payload missing: "+rec.Payload,
				forest.PayloadRule+"; correct the passport's payload")
		}
		if !f.Present {
			return "", envelope.New(envelope.NotFound, "payload missing: "+rec.Payload,
				"the passport names a file that is not on disk beside the node; restore it or re-ingest the dataset")
		}
		return f.Path, nil
	}
	if write {
		return "", envelope.New(envelope.QueryForbidden,
			fmt.Sprintf("tend: %s has a remote payload (%s); tend edits local payloads only", rec.ID, rec.Payload),
			"datasets are local-first: editing a cached copy would fork it; bring the file into the forest first")
	}
	return p.Remote(ctx, s, op, rec)
}

// ErrHidden is CheckWrite's answer for a payload the rule allows but the
// scope cannot see: the caller words it as its own out-of-grant refusal.
var ErrHidden = errors.New("payloadplace: payload outside the scope")

// CheckWrite applies the payload rule to a passport's payload at write
// time, as every read applies it again (a policy may change after the
// write): a local name must stay in the node's folder, also once
// symlinks are resolved, and under a scope lie where the caller may see;
// a file:// URI needs a confined fetcher under a policy. An empty name
// passes.
func (p *Place) CheckWrite(s Scope, op, id, name string) error {
	switch {
	case name == "":
		return nil
	case payload.IsRemote(name):
		return p.Followed(s, op, id, name)
	}
	pf, err := p.root.Payload(id, name)
	if err != nil {
		var pe *forest.PayloadError
		if errors.As(err, &pe) {
			return envelope.New(envelope.Schema, op+": "+pe.Error(), forest.PayloadRule).With("field", "payload")
		}
		return err
	}
	if !s.sees(pf.Rel) || !s.sees(LexicalRel(id, name)) {
		return ErrHidden
	}
	return nil
}
