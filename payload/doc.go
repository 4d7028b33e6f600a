// SPDX-License-Identifier: Apache-2.0

// Package payload brings remote payloads home: G.9 of spec 06
// (gardener), payload fetchers.
//
// A passport's payload is normally a file beside the node, but it may be a
// URI instead: file:///srv/data/sales.db or s3://bucket/sales.db. The
// engine reads such a payload through a local copy in the forest's derived
// layer, _derived/payloads/<sha256(uri)[:16]>-<basename>, fetched on first
// use and checked against the passport's payload_hash before anything reads
// it. A copy that fails its hash never reaches the cache.
//
// A [Fetcher] serves one scheme; a [Registry] picks the fetcher by scheme
// and is itself a Fetcher; a [Cache] turns a URI and its expected hash into
// a verified local file. The contract a fetcher implements,
// [fetch.Fetcher], lives in the stdlib-only leaf package fetch; the names
// here are aliases of it.
package payload
