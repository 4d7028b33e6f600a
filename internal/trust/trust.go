// SPDX-License-Identifier: Apache-2.0

// Package trust carries authority that only code inside this module can
// hand out. The engine's trusted-ingest switches (G.2.5 "adopted", the
// Gardener's refresh writes) take a Grant; a transport decodes JSON into
// wire types that have no Grant field, and code outside the module cannot
// import this package, so no request can ever carry one.
package trust

// Grant is an operator's authority over one write. The zero value grants
// nothing.
type Grant struct {
	adopted bool
}

// Ingest is the Gardener's grant: the bytes come from a source the
// operator owns, so the C.7.1 count limits and the C.7.5 media payload
// check do not apply, and passport fields only ingest maintains
// (source_hash, payload_hash, ...) may be rewritten.
func Ingest() Grant { return Grant{adopted: true} }

// Adopted reports whether the grant is trusted ingest.
func (g Grant) Adopted() bool { return g.adopted }
