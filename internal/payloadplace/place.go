// SPDX-License-Identifier: Apache-2.0

// Package payloadplace owns a forest's payloads as the engine reaches
// them: where a passport's payload is (the payload rule applied with the
// call's visibility), which file a payload is (its identity, for table
// grants), and how a remote payload comes home (the G.9 cache, filled
// through the forest's fetcher, followed under a policy only when the
// fetcher confines file://).
//
// One [Place] serves one open forest; the root package's *Vine holds it
// and its primitives (look, view, query, tend, plant, prune, transplant,
// Prefetch, OpenPayload) ask it. Every door that follows a payload reads
// the facts from [Place.Stat], so one rule decides for all of them. A
// call's access policy arrives as a [Scope]; the zero Scope is the host's
// own unscoped call.
//
// A Place is safe for concurrent use: it holds no mutable state beyond
// the cache directory, whose entries payload.Cache locks.
package payloadplace

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/payload"
)

// Scope is what a call's access policy says to the payload rules. The
// zero Scope is the host's own unscoped call: it sees every path, has no
// table grants and follows every served scheme.
type Scope struct {
	// Bound reports a call under an access policy.
	Bound bool
	// Sees reports whether the caller may see a forest-relative path;
	// nil sees every path.
	Sees func(rel string) bool
	// Tables are the policy's table grants by dataset node id
	// (datasets.<id>.tables).
	Tables map[string][]string
}

func (s Scope) sees(rel string) bool { return s.Sees == nil || s.Sees(rel) }

// Place is the payloads of one forest: its root, its catalog (for the
// passports table grants name), and the G.9 cache with its fetcher.
type Place struct {
	root  forest.Root
	cat   *catalog.Catalog
	cache payload.Cache
}

// defaultFetcher is shared by every forest opened without a fetcher, so
// the S3 client is built once per process.
var defaultFetcher = sync.OnceValue(func() payload.Fetcher { return payload.DefaultRegistry() })

// New returns the Place of the forest at root. A nil fetcher means
// payload.DefaultRegistry(), shared by the process; now stamps cache hits.
func New(root forest.Root, cat *catalog.Catalog, fetcher payload.Fetcher, now func() time.Time) *Place {
	if fetcher == nil {
		fetcher = defaultFetcher()
	}
	return &Place{root: root, cat: cat, cache: payload.Cache{
		Dir:     filepath.Join(root.Dir(), forest.DerivedDir, "payloads"),
		Fetcher: fetcher,
		Now:     now,
	}}
}

// Cache is the forest's G.9 cache, _derived/payloads.
func (p *Place) Cache() payload.Cache { return p.cache }

// Facts is what a stat (never an open) says about a node's payload: the
// answer to "will view or query work?" (C.2.2).
type Facts struct {
	Declared bool   // the passport names a payload
	Remote   bool   // a URI with a scheme (G.9), never touched by a read
	Escapes  bool   // the name itself breaks the payload rule (forest.PayloadRule)
	Rel      string // forest-relative slash path of the name as written
	RealRel  string // the same with symlinks resolved: the payload's identity
	Path     string // its file, symlinks resolved
	Present  bool   // a regular file is there, the rule holds, the caller may see it
	Size     int64
}

// Missing is C.2.2's payload_missing: no payload named, or a local file
// that is absent, breaks the payload rule, or lies where the call's
// policy cannot see. A remote payload is never missing as far as a read
// can tell.
func (f Facts) Missing() bool { return !f.Remote && !f.Present }

// Stat applies the payload rule (forest.Root.Payload) and the call's
// scope to a passport payload and stats the file. A payload that the rule
// allows but that resolves, through a symlink, somewhere the rule
// forbids, or that lies under a prefix the scope hides, is reported as
// not present: out of scope answers exactly as absent. Only a name that
// breaks the rule by itself is reported as escaping, since the caller
// can see that from the passport alone.
func (p *Place) Stat(s Scope, nodeID, name string) Facts {
	f := Facts{Declared: name != ""}
	switch {
	case name == "":
		return f
	case payload.IsRemote(name):
		f.Remote = true
		return f
	}
	pf, err := p.root.Payload(nodeID, name)
	if err != nil {
		var pe *forest.PayloadError
		f.Escapes = errors.As(err, &pe) && !pe.Linked
		return f
	}
	f.Rel, f.RealRel, f.Path = LexicalRel(nodeID, name), pf.Rel, pf.Abs
	if !s.sees(pf.Rel) || !s.sees(f.Rel) {
		return f
	}
	if fi, err := os.Stat(pf.Abs); err == nil && fi.Mode().IsRegular() {
		f.Present, f.Size = true, fi.Size()
	}
	return f
}

// LexicalRel is the forest-relative path a payload name spells, before
// any symlink is followed: the file a move or a burial carries, so that a
// link travels and never the file it points at.
func LexicalRel(nodeID, name string) string {
	return path.Join(path.Dir(nodeID), name)
}

// OnDisk is the file a node's local payload names, by its lexical path:
// when the payload is a symlink the link travels, never the file it
// points at, which may be another node's. ok is false for remote,
// escaping or absent payloads.
func (p *Place) OnDisk(s Scope, nodeID, name string) (abs, rel string, ok bool) {
	f := p.Stat(s, nodeID, name)
	if !f.Present {
		return "", "", false
	}
	return filepath.Join(p.root.Dir(), filepath.FromSlash(f.Rel)), f.Rel, true
}

// Identity names the file behind a dataset's payload for table grants:
// the forest-relative file, symlinks resolved, for a local payload; the
// URI for a remote one; "" when the payload breaks the rule.
func (p *Place) Identity(id, name string) string {
	if payload.IsRemote(name) {
		return "uri:" + name
	}
	pf, err := p.root.Payload(id, name)
	if err != nil {
		return ""
	}
	return "file:" + pf.Rel
}
