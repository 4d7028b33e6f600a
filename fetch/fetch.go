// SPDX-License-Identifier: Apache-2.0

// Package fetch is the contract between the engine and the fetchers that
// bring a remote payload home (G.9): a passport whose payload is a URI
// (file:///srv/data/sales.db, s3://bucket/sales.db) is read through a
// local copy, and a [Fetcher] is what copies the bytes. It imports only
// the standard library, so a host serves its own scheme without linking
// the engine, as a database driver implements database/sql/driver.
//
// A fetcher implements [Fetcher] for the URIs of one or more schemes:
//
//	type memFetcher map[string][]byte
//
//	func (m memFetcher) Fetch(ctx context.Context, uri string, w io.Writer) error {
//		b, ok := m[uri]
//		if !ok {
//			return fmt.Errorf("mem: %s: %w", uri, fs.ErrNotExist)
//		}
//		_, err := w.Write(b)
//		return err
//	}
//
// The host registers it under its scheme in a payload.Registry and hands
// that to the engine (vine.Options.Fetcher). The engine checks the bytes
// against the passport's payload_hash itself, so a fetcher need not. A
// fetcher that keeps a scheme's URIs inside roots its host chose also
// implements [Confiner]: an engine serving callers under an access policy
// follows a file:// payload only through a fetcher that confines it.
package fetch

import (
	"context"
	"io"
)

// Fetcher copies the bytes a payload URI names into w.
//
// A URI that names nothing (no such file, key or bucket) answers an error
// wrapping [io/fs.ErrNotExist]. Fetch may have written part of the bytes
// when it fails; callers write into a scratch file (as payload.Cache
// does), never into the final one.
type Fetcher interface {
	Fetch(ctx context.Context, uri string, w io.Writer) error
}

// Confiner is implemented by a Fetcher that can tell whether it keeps
// the URIs of a scheme inside roots its host chose. A passport is content
// any writer controls, so an engine serving callers under an access policy
// follows a file:// payload only when its fetcher confines that scheme.
type Confiner interface {
	Confines(scheme string) bool
}
