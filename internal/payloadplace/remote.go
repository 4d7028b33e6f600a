// SPDX-License-Identifier: Apache-2.0

package payloadplace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/payload"
)

// Followed refuses a remote payload that the call may not follow: under
// an access policy, a file:// URI is followed only when the forest's
// fetcher confines file:// to roots the host chose (payload.Confiner). A
// passport is content any writer controls, and an unconfined file://
// would copy any file the server can read (another forest's catalog, a
// hidden branch's dataset) into this caller's reach. Unscoped calls are
// the host's own and keep every served scheme.
func (p *Place) Followed(s Scope, op, id, uri string) error {
	if !s.Bound || payload.Scheme(uri) != "file" || payload.Confined(p.cache.Fetcher, "file") {
		return nil
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("%s: %s has a file:// payload, and this server follows file:// payloads only under roots its host configured", op, id),
		"keep the payload beside its node, or ask the host to confine file:// payloads to a root (vine serve --file-root DIR)").
		With("scheme", "file")
}

// Remote returns the verified cache copy of a remote payload, fetching it
// on a miss (G.9 rule 1). The copy is checked against payload_hash before
// anyone reads it; a mismatch is refused and caches nothing.
func (p *Place) Remote(ctx context.Context, s Scope, op string, rec catalog.Record) (string, error) {
	if err := p.Followed(s, op, rec.ID, rec.Payload); err != nil {
		return "", err
	}
	file, _, err := p.cache.Get(ctx, rec.Payload, rec.PayloadHash)
	if err != nil {
		return "", Refusal(op, rec.ID, rec.Payload, err)
	}
	return file, nil
}

// Local is the local file holding a dataset's payload, from facts Stat
// gave: the file itself, or for a remote URI the G.9 cache copy a fetch
// left in _derived/payloads (a read never downloads). "" when there is
// none.
func (p *Place) Local(s Scope, op string, rec catalog.Record, f Facts) string {
	if f.Present {
		return f.Path
	}
	if !f.Remote || p.Followed(s, op, rec.ID, rec.Payload) != nil {
		return ""
	}
	c := p.cache.Path(rec.Payload)
	if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
		return c
	}
	return ""
}

// Refusal turns a fetch failure into its envelope (G.9 rule 1): an
// unserved scheme or a hash mismatch is E_SCHEMA, a URI naming nothing
// E_NOT_FOUND. Anything else (network, disk) is the host's failure and
// stays an internal error.
func Refusal(op, id, uri string, err error) error {
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
