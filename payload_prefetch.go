// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"

	"github.com/monkeyllm/vine/internal/payloadplace"
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
	where, args := scopeIDSQL(prefix)
	where, args = andScope(ctx, "id", where, args)
	st, err := v.stmts.Prepare(ctx, "SELECT id, payload, coalesce(payload_hash, '') FROM nodes "+
		"WHERE payload LIKE '%://%' AND "+where+" ORDER BY id")
	if err != nil {
		return nil, err
	}
	targets, err := remotePayloads(ctx, st, args)
	if err != nil {
		return nil, err
	}
	var progress func(done, total int)
	if v.progress != nil {
		progress = func(done, total int) { v.progress(Progress{Op: "prefetch", Done: done, Total: total}) }
	}
	got, err := v.place.Prefetch(ctx, targets, progress)
	if err != nil {
		return nil, err
	}
	if scope == "" {
		scope = "_index"
	}
	return &PrefetchResult{Scope: scope, Fetched: got.Fetched, AlreadyLocal: got.AlreadyLocal, Errors: got.Errors}, nil
}

// remotePayloads reads the nodes st lists (id, payload, payload_hash)
// whose payload is a URI, in the statement's order.
func remotePayloads(ctx context.Context, st *sql.Stmt, args []any) ([]payloadplace.Target, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []payloadplace.Target
	for rows.Next() {
		var t payloadplace.Target
		if err := rows.Scan(&t.ID, &t.URI, &t.Hash); err != nil {
			return nil, err
		}
		if payload.IsRemote(t.URI) {
			out = append(out, t)
		}
	}
	return out, rows.Err()
}
