package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/envelope"
	"github.com/monkeyllm/vine/payload"
)

// payloadFacts is what a stat (never an open) says about a node's payload:
// the answer to "will view or query work?" (C.2.2). Every door that
// follows a payload (look, view, query, tend, coverage, prune, transplant,
// the payload and export routes) reads it from statPayload, so one rule
// decides for all of them.
type payloadFacts struct {
	declared bool   // the passport names a payload
	remote   bool   // a URI with a scheme (G.9), never touched by a read
	escapes  bool   // the name itself breaks the payload rule (forest.PayloadRule)
	rel      string // forest-relative slash path of the name as written
	realRel  string // the same with symlinks resolved: the payload's identity
	path     string // its file, symlinks resolved
	present  bool   // a regular file is there, the rule holds, the caller may see it
	size     int64
}

// missing is C.2.2's payload_missing: no payload named, or a local file
// that is absent, breaks the payload rule, or lies where the call's policy
// cannot see. A remote payload is never missing as far as a read can tell.
func (p payloadFacts) missing() bool { return !p.remote && !p.present }

// statPayload applies the payload rule (forest.Root.Payload) and the
// call's policy to a passport payload and stats the file. A payload that
// the rule allows but that resolves, through a symlink, somewhere the rule
// forbids, or that lies under a prefix the policy hides, is reported as
// not present: out of scope answers exactly as absent. Only a name that
// breaks the rule by itself is reported as escaping, since the caller
// can see that from the passport alone.
func (v *Vine) statPayload(ctx context.Context, nodeID, name string) payloadFacts {
	f := payloadFacts{declared: name != ""}
	switch {
	case name == "":
		return f
	case payload.IsRemote(name):
		f.remote = true
		return f
	}
	pf, err := v.root.Payload(nodeID, name)
	if err != nil {
		var pe *forest.PayloadError
		f.escapes = errors.As(err, &pe) && !pe.Linked
		return f
	}
	f.rel, f.realRel, f.path = lexicalPayloadRel(nodeID, name), pf.Rel, pf.Abs
	if !scopeOf(ctx).in(pf.Rel) || !scopeOf(ctx).in(f.rel) {
		return f
	}
	if fi, err := os.Stat(pf.Abs); err == nil && fi.Mode().IsRegular() {
		f.present, f.size = true, fi.Size()
	}
	return f
}

// lexicalPayloadRel is the forest-relative path a payload name spells,
// before any symlink is followed: the file a move or a burial carries,
// so that a link travels and never the file it points at.
func lexicalPayloadRel(nodeID, name string) string {
	return path.Join(path.Dir(nodeID), name)
}

// payloadIdentity names the file behind a dataset's payload for table
// grants: the forest-relative file, symlinks resolved, for a local payload;
// the URI for a remote one; "" when the payload breaks the rule.
func (v *Vine) payloadIdentity(id, name string) string {
	if payload.IsRemote(name) {
		return "uri:" + name
	}
	pf, err := v.root.Payload(id, name)
	if err != nil {
		return ""
	}
	return "file:" + pf.Rel
}

// noTable is an allow-list entry no table can match: SQLite names are C
// strings, so none holds a NUL. A list of it alone withholds every table.
const noTable = "\x00"

// grantedTables narrows a statement's host arguments by the call's policy
// (C.5.3). A grant names a dataset node, but what it protects is the file
// behind it: every grant whose node's payload is the same file as this
// one's applies, so a second passport planted onto that file inherits the
// allow-list instead of escaping it. Several lists intersect. A host that
// already set a list keeps it.
func (v *Vine) grantedTables(ctx context.Context, h sqlHost, rec catalog.Record) sqlHost {
	s := scopeOf(ctx)
	if h.tables != nil || s == nil || len(s.tables) == 0 {
		return h
	}
	self := v.payloadIdentity(rec.ID, rec.Payload)
	var lists [][]string
	for id, tables := range s.tables {
		if len(tables) == 0 || (id != rec.ID && !v.samePayload(ctx, id, self)) {
			continue
		}
		lists = append(lists, tables)
	}
	if len(lists) > 0 {
		h.tables = intersectTables(lists)
	}
	return h
}

// samePayload reports whether the dataset node id names the payload file
// identified by self. The grant's node is read unscoped: the policy's own
// entries are the host's, not the caller's.
func (v *Vine) samePayload(ctx context.Context, id, self string) bool {
	if self == "" {
		return false
	}
	rec, ok, err := v.cat.Get(ctx, id)
	if err != nil || !ok || rec.Payload == "" {
		return false
	}
	return v.payloadIdentity(rec.ID, rec.Payload) == self
}

// intersectTables is the tables every list allows (case-insensitive, as
// SQLite compares names); noTable when none is left.
func intersectTables(lists [][]string) []string {
	out := slices.Clone(lists[0])
	for _, l := range lists[1:] {
		out = slices.DeleteFunc(out, func(t string) bool {
			return !slices.ContainsFunc(l, func(u string) bool { return strings.EqualFold(t, u) })
		})
	}
	if len(out) == 0 {
		return []string{noTable}
	}
	return out
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
	f := v.statPayload(ctx, rec.ID, rec.Payload)
	switch {
	case f.remote:
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("remote payload scheme '%s' is not served", payload.Scheme(rec.Payload)),
			"only local bytes are served; vine prefetch brings a remote payload into the forest's cache")
	case f.escapes:
		return nil, envelope.New(envelope.Schema, "payload escapes its node's folder", forest.PayloadRule)
	case !f.present:
		return nil, notFound(id)
	}
	file, err := os.Open(f.path)
	if err != nil {
		return nil, notFound(id)
	}
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		file.Close()
		return nil, notFound(id)
	}
	return &PayloadFile{File: file, ID: rec.ID, Hash: rec.PayloadHash, MediaType: MediaTypeOf(f.path),
		Size: fi.Size(), ModTime: fi.ModTime()}, nil
}
