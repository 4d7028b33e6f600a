package vine

import (
	"context"

	"github.com/monkeyllm/vine/payload"
)

// PrefetchResult is the answer of Prefetch (G.9 rule 5).
type PrefetchResult struct {
	// Scope echoes the scope as sent ("_index" when none was).
	Scope string `json:"scope"`
	// Fetched lists the ids whose remote payload this call downloaded.
	Fetched []string `json:"fetched"`
	// AlreadyLocal counts remote payloads whose cached copy already
	// passed its payload_hash, so nothing was downloaded.
	AlreadyLocal int `json:"already_local"`
	// Errors holds one "<id>: <message>" per payload that could not be
	// brought home; the others are fetched regardless.
	Errors []string `json:"errors"`
}

// prefetchTarget is one node with a remote payload.
type prefetchTarget struct{ id, uri, hash string }

// Prefetch brings every remote payload under scope into the payload cache
// (G.9 rule 5), so the first query of a cold dataset does not pay the
// download. scope is a branch (x, x/ or x/_index), one node id, or ""
// and "_index" for the whole forest; an unknown scope is E_NOT_FOUND.
//
// Local payloads are not its business and are not counted. One payload's
// failure (missing object, hash mismatch) is reported in Errors and does
// not stop the others. Progress, when configured, counts payloads under
// Op "prefetch". Prefetch writes only the derived layer, so it runs on a
// read-only Vine too.
func (v *Vine) Prefetch(ctx context.Context, scope string) (*PrefetchResult, error) {
	prefix, _, err := scopePrefix(ctx, v.cat, scope)
	if err != nil {
		return nil, err
	}
	targets, err := v.remotePayloads(ctx, prefix)
	if err != nil {
		return nil, err
	}
	res := &PrefetchResult{Scope: scope, Fetched: []string{}, Errors: []string{}}
	if res.Scope == "" {
		res.Scope = "_index"
	}
	cache := v.payloads()
	for i, t := range targets {
		v.prefetchProgress(i, len(targets))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		_, fetched, err := cache.Get(ctx, t.uri, t.hash)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Errors = append(res.Errors, t.id+": "+prefetchMessage(t, err))
		case fetched:
			res.Fetched = append(res.Fetched, t.id)
		default:
			res.AlreadyLocal++
		}
	}
	v.prefetchProgress(len(targets), len(targets))
	return res, nil
}

// prefetchMessage is the message a caller sees for one failed payload:
// the envelope's text for a refusal, the error itself otherwise (prefetch
// is a host operation, so no caller is shielded from the detail).
func prefetchMessage(t prefetchTarget, err error) string {
	refusal := fetchRefusal("prefetch", t.id, t.uri, err)
	if e, ok := refusal.(*Error); ok {
		return e.Message
	}
	return err.Error()
}

func (v *Vine) prefetchProgress(done, total int) {
	if v.progress != nil {
		v.progress(Progress{Op: "prefetch", Done: done, Total: total})
	}
}

// remotePayloads lists the nodes under prefix (as scopePrefix returns it)
// whose payload is a URI, in id order.
func (v *Vine) remotePayloads(ctx context.Context, prefix string) ([]prefetchTarget, error) {
	where, args := scopeIDSQL(prefix)
	where, args = andScope(ctx, "id", where, args)
	st, err := v.stmts.Prepare(ctx, "SELECT id, payload, coalesce(payload_hash, '') FROM nodes "+
		"WHERE payload LIKE '%://%' AND "+where+" ORDER BY id")
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []prefetchTarget
	for rows.Next() {
		var t prefetchTarget
		if err := rows.Scan(&t.id, &t.uri, &t.hash); err != nil {
			return nil, err
		}
		if payload.IsRemote(t.uri) {
			out = append(out, t)
		}
	}
	return out, rows.Err()
}
