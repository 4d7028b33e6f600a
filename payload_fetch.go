package vine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/envelope"
	"github.com/monkeyllm/vine/payload"
)

// defaultFetcher is shared by every Vine opened without a Fetcher, so the
// S3 client is built once per process.
var defaultFetcher = sync.OnceValue(func() payload.Fetcher { return payload.DefaultRegistry() })

// payloadFetcher is the fetcher of this forest's remote payloads.
func (v *Vine) payloadFetcher() payload.Fetcher {
	if v.fetcher != nil {
		return v.fetcher
	}
	return defaultFetcher()
}

// payloads is the forest's G.9 cache, _derived/payloads.
func (v *Vine) payloads() payload.Cache {
	return payload.Cache{
		Dir:     filepath.Join(v.root.Dir(), forest.DerivedDir, "payloads"),
		Fetcher: v.payloadFetcher(),
		Now:     v.now,
	}
}

// remoteFollowed refuses a remote payload that the call may not follow:
// under an access policy, a file:// URI is followed only when the
// forest's fetcher confines file:// to roots the host chose
// (payload.Confiner). A passport is content any writer controls, and an
// unconfined file:// would copy any file the server can read (another
// forest's catalog, a hidden branch's dataset) into this caller's reach.
// Unscoped calls are the host's own and keep every served scheme.
func (v *Vine) remoteFollowed(ctx context.Context, op, id, uri string) error {
	if scopeOf(ctx) == nil || payload.Scheme(uri) != "file" || payload.Confined(v.payloadFetcher(), "file") {
		return nil
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("%s: %s has a file:// payload, and this server follows file:// payloads only under roots its host configured", op, id),
		"keep the payload beside its node, or ask the host to confine file:// payloads to a root (vine serve --file-root DIR)").
		With("scheme", "file")
}

// remotePayload returns the verified cache copy of a remote payload,
// fetching it on a miss (G.9 rule 1). The copy is checked against
// payload_hash before anyone reads it; a mismatch is refused and caches
// nothing.
func (v *Vine) remotePayload(ctx context.Context, op string, rec catalog.Record) (string, error) {
	if err := v.remoteFollowed(ctx, op, rec.ID, rec.Payload); err != nil {
		return "", err
	}
	file, _, err := v.payloads().Get(ctx, rec.Payload, rec.PayloadHash)
	if err != nil {
		return "", fetchRefusal(op, rec.ID, rec.Payload, err)
	}
	return file, nil
}

// fetchRefusal turns a fetch failure into its envelope (G.9 rule 1): an
// unserved scheme or a hash mismatch is E_SCHEMA, a URI naming nothing
// E_NOT_FOUND. Anything else (network, disk) is the host's failure and
// stays an internal error.
func fetchRefusal(op, id, uri string, err error) error {
	var se *payload.SchemeError
	var he *payload.HashError
	switch {
	case errors.As(err, &se):
		served := strings.Join(se.Served, ", ")
		if served == "" {
			served = "none"
		}
		return envelope.New(envelope.Schema,
			fmt.Sprintf("%s: %s has a remote payload with scheme %q, which this engine does not fetch", op, id, se.Scheme),
			"schemes served: "+served+"; keep the payload local, or give the engine a fetcher for that scheme").
			With("scheme", se.Scheme)
	case errors.As(err, &he):
		return envelope.New(envelope.Schema,
			fmt.Sprintf("%s: the bytes fetched for %s do not match its payload_hash; nothing was cached", op, id),
			"the remote object changed or the passport is stale: restore the object or correct payload_hash").
			With("payload_hash", he.Want).With("fetched_hash", he.Got)
	case errors.Is(err, fs.ErrNotExist):
		return envelope.New(envelope.NotFound, "payload missing: "+uri,
			"the store holds nothing at this URI; put the object back or correct the passport's payload")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("vine: %s: fetch payload of %s: %w", op, id, err)
}
