// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/payloadplace"
	"github.com/monkeyllm/vine/payload"
)

// payloadScope is the call's policy as the payload rules read it: the
// zero Scope for the host's own unscoped call.
func payloadScope(ctx context.Context) payloadplace.Scope {
	s := scopeOf(ctx)
	if s == nil {
		return payloadplace.Scope{}
	}
	return payloadplace.Scope{Bound: true, Sees: s.in, Tables: s.tables}
}

// withGrants narrows a statement's host arguments by the call's table
// grants (C.5.3), following the file behind rec's payload. A host that
// already set a list keeps it.
func withGrants(ctx context.Context, place *payloadplace.Place, h sqlHost, rec catalog.Record) sqlHost {
	if h.tables == nil {
		h.tables = place.GrantedTables(ctx, payloadScope(ctx), rec)
	}
	return h
}

// PayloadFile is a node's local payload opened for reading, after every
// gate: the id resolved under the call's policy, the payload rule, and
// the policy again on the resolved file. Close it when done.
type PayloadFile struct {
	*os.File
	// ID is the node's canonical id.
	ID string
	// Hash is the passport's payload_hash, "" when it records none.
	Hash string
	// MediaType is MediaTypeOf the resolved file's name.
	MediaType string
	// Size and ModTime are the open file's.
	Size    int64
	ModTime time.Time
}

// OpenPayload opens the local payload of node id for reading: what a host
// serves as the node's bytes (J.14). A node that is absent or out of the
// call's scope, that names no payload, or whose payload file is missing,
// breaks the rule through a symlink, or lies where the policy cannot see,
// answers the very not-found of an absent node, so the call is no oracle.
// A payload name that breaks the rule by itself (forest.PayloadRule) and
// a remote URI are E_SCHEMA: both are visible in the passport. Only a
// regular file is opened.
func (v *Vine) OpenPayload(ctx context.Context, id string) (*PayloadFile, error) {
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	f := v.place.Stat(payloadScope(ctx), rec.ID, rec.Payload)
	switch {
	case f.Remote:
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("remote payload scheme '%s' is not served", payload.Scheme(rec.Payload)),
			"only local bytes are served; vine prefetch brings a remote payload into the forest's cache")
	case f.Escapes:
		return nil, envelope.New(envelope.Schema, "payload escapes its node's folder", forest.PayloadRule)
	case !f.Present:
		return nil, notFound(id)
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return nil, notFound(id)
	}
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		file.Close()
		return nil, notFound(id)
	}
	return &PayloadFile{File: file, ID: rec.ID, Hash: rec.PayloadHash, MediaType: MediaTypeOf(f.Path),
		Size: fi.Size(), ModTime: fi.ModTime()}, nil
}
