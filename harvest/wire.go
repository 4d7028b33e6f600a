// SPDX-License-Identifier: Apache-2.0

package harvest

import (
	"context"

	"github.com/monkeyllm/vine"
)

// Signature is harvest's entry in the engine's signature table.
var Signature = vine.Signature{
	Name: "harvest",
	Doc: "One-call evidence for a question, without a model: entry search and body search fused, small bodies " +
		"whole, large ones as their matched sections, newest first on ties, replaced nodes left out. " +
		"Budget 4000 tokens; k items (default 3, capped by the server).",
	Budget: Budget,
	Params: []vine.Param{
		{Name: "query", Type: vine.TString, Required: true, Doc: "the question"},
		{Name: "terms", Type: vine.TStringList, Doc: "literal body-search terms; default derived from the question"},
		{Name: "k", Type: vine.TInteger, Default: DefaultK, Doc: "items, capped by the server"},
		{Name: "since", Type: vine.TString, Doc: "window start: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "until", Type: vine.TString, Doc: "window end: YYYY, YYYY-MM or YYYY-MM-DD"},
		{Name: "date_field", Type: vine.TString, Default: "created", Doc: "created or updated"},
		{Name: "include_superseded", Type: vine.TBoolean, Default: false, Doc: "keep replaced nodes, annotated"},
		{Name: "hybrid", Type: vine.TBoolean, Default: false, Doc: "fuse the vector leg into entry search for this call"},
	},
	ReadOnly: true, Idempotent: true,
}

func init() { vine.Register(Signature, run) }

func run(ctx context.Context, v *vine.Vine, a vine.Args) (any, error) {
	return Harvest(ctx, Engine(v), a.String("query"), Options{
		Terms: a.Strings("terms"), K: max(1, a.Int("k")), Since: a.String("since"), Until: a.String("until"),
		DateField: a.String("date_field"), IncludeSuperseded: a.Bool("include_superseded"), Hybrid: a.Bool("hybrid"),
	})
}

// NodeIDs lists the items' ids in order (vine.IDLister), so the engine's
// observer sees what a sweep returned.
func (r *Result) NodeIDs() []string {
	ids := make([]string, len(r.Results))
	for i, it := range r.Results {
		ids[i] = it.ID
	}
	return ids
}
