// SPDX-License-Identifier: Apache-2.0

package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
)

// Options are the choices of one install.
type Options struct {
	// Acknowledge accepts what needs a person's word: an unverified
	// install, a tier lower than the installed one's, a verifying
	// identity other than the installed one's or the index's.
	Acknowledge bool
	// Kit is what the conformance kit checks against.
	Kit KitOptions
	// Progress, when set, hears each stage: resolve, kit, stage, record.
	Progress func(stage string)
	// Now stamps the record (default time.Now).
	Now func() time.Time
	// Upload marks the source as a file a browser uploaded (kind
	// "upload", always unverified); UploadName is what it was called.
	Upload     bool
	UploadName string
	// Trust is what signatures and the index are weighed with.
	Trust Trust
}

func (o Options) progress(stage string) {
	if o.Progress != nil {
		o.Progress(stage)
	}
}

// Plan is what an install would do, shown before it does it.
type Plan struct {
	Kit            *KitResult       `json:"kit"`
	Source         string           `json:"source"`
	Kind           string           `json:"kind"`
	Tier           string           `json:"tier"`
	Revision       string           `json:"revision,omitempty"`
	Tracking       string           `json:"tracking,omitempty"`
	Identity       *Identity        `json:"identity,omitempty"`
	Reason         string           `json:"reason,omitempty"`
	ID             string           `json:"id,omitempty"`
	Version        string           `json:"version,omitempty"`
	License        string           `json:"license,omitempty"`
	Permissions    *ext.Permissions `json:"permissions,omitempty"`
	RequiresRoles  []string         `json:"requires_roles"`
	RegistersRoles []ext.RoleSpec   `json:"registers_roles"`
	Contributes    map[string]int   `json:"contributes"`

	tree string
	// expected is the identity the index expects, for an install
	// through the index door.
	expected *Identity
}

// Result is what an install did.
type Result struct {
	Record
	Kit             *KitResult `json:"kit"`
	ConfigRecovered bool       `json:"config_recovered"`
	Updated         bool       `json:"updated"` // an earlier version was replaced
	// PreviousRevision is the revision an update replaced, so a moved
	// tag's new sha is reported beside the old one.
	PreviousRevision string `json:"previous_revision,omitempty"`
	// Changed says an update installed other code than was running.
	Changed bool `json:"changed"`
}

// Plan resolves source and runs the kit without installing anything.
func (h *Home) Plan(ctx context.Context, source string, opt Options) (*Plan, error) {
	work, err := os.MkdirTemp(h.dir, ".plan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	return h.plan(ctx, source, work, opt, !opt.Upload && viaIndex(source))
}

// plan resolves source (an index entry's id when index is set) and runs
// the kit on what it resolved to.
func (h *Home) plan(ctx context.Context, source, work string, opt Options, index bool) (*Plan, error) {
	var expected *Identity
	if index {
		entry, err := opt.Trust.lookup(ctx, source)
		if err != nil {
			return nil, err
		}
		source, expected = entry.Source, entry.expected()
	}
	src, err := ParseSource(source)
	if err != nil {
		return nil, err
	}
	opt.progress("resolve")
	res, err := h.resolve(ctx, src, work, opt.Trust)
	if err != nil {
		return nil, err
	}
	opt.progress("kit")
	kit, m := Kit(ctx, res.dir, opt.Kit)
	if opt.Upload {
		src.Raw, src.Kind, res.reason = "upload:"+opt.UploadName, "upload", "an upload carries no signature"
		res.tier, res.identity = TierUnverified, nil
	}
	p := &Plan{Kit: kit, Source: src.Raw, Kind: src.Kind, Tier: res.tier, Revision: res.revision,
		Tracking: res.tracking, Identity: res.identity, Reason: res.reason, RequiresRoles: []string{}, RegistersRoles: []ext.RoleSpec{},
		Contributes: map[string]int{}, tree: res.dir, expected: expected}
	if index {
		p.Kind = "index"
		p.weighIndex()
	}
	if m != nil {
		p.ID, p.Version, p.License, p.Permissions = m.ID, m.Version, m.License, m.Permissions
		if m.Models != nil {
			p.RequiresRoles = append(p.RequiresRoles, m.Models.Requires...)
			p.RegistersRoles = append(p.RegistersRoles, m.Models.Registers...)
		}
		for s, hs := range m.Handlers() {
			p.Contributes[string(s)] = len(hs)
		}
		if m.Contributes.Panel != "" {
			p.Contributes[string(ext.SeamPanel)] = 1
		}
	}
	return p, nil
}

// Install resolves source, runs the kit, weighs the tier, and, when all
// pass, stages the tree and records it. Installing an id already
// installed is an update: the previous tree keeps running until the
// new record is written, and stays if anything fails.
func (h *Home) Install(ctx context.Context, source string, opt Options) (*Result, error) {
	if !opt.Upload && viaIndex(source) {
		return h.install(ctx, source, opt, source, true)
	}
	return h.install(ctx, source, opt, "", false)
}

// install is Install; when want is set, the source must hold that id
// (an update, or the index entry of that id).
func (h *Home) install(ctx context.Context, source string, opt Options, want string, index bool) (*Result, error) {
	work, err := os.MkdirTemp(h.dir, ".install-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	p, err := h.plan(ctx, source, work, opt, index)
	if err != nil {
		return nil, err
	}
	if !p.Kit.OK {
		return nil, refuse("kit", fmt.Sprintf("the conformance kit failed: %v", p.Kit.Failed), KitNote).With("kit", p.Kit)
	}
	if want != "" && p.ID != want {
		reason := map[bool]string{true: "index", false: "source"}[index]
		return nil, refuse(reason, fmt.Sprintf("the source of %s holds the extension %q", want, p.ID),
			"install "+p.ID+" by its own name; an id names one extension")
	}
	prev, had, err := h.Get(p.ID)
	if err != nil {
		return nil, err
	}
	if err := weigh(p, prev, had, opt.Acknowledge); err != nil {
		return nil, err
	}
	opt.progress("stage")
	hash, err := treeHash(p.tree)
	if err != nil {
		return nil, err
	}
	dest := filepath.Join(h.dir, p.ID, "trees", hash)
	if _, err := os.Stat(dest); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return nil, err
		}
		if err := os.Rename(p.tree, dest); err != nil {
			return nil, err
		}
	}
	opt.progress("record")
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	m, err := h.Manifest(Record{ID: p.ID, Tree: hash})
	if err != nil {
		return nil, err
	}
	rec := Record{ID: p.ID, Version: p.Version, Description: m.Description, Tier: p.Tier, Source: p.Source, Kind: p.Kind,
		InstalledAt: now().UTC().Truncate(time.Second), License: p.License, Revision: p.Revision, Tracking: p.Tracking,
		Identity: p.Identity, Reason: p.Reason, Acknowledged: opt.Acknowledge, Permissions: p.Permissions, Tree: hash, Kit: p.Kit}
	h.mu.Lock()
	err = h.put(rec)
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if had && prev.Tree != hash {
		os.RemoveAll(h.Tree(prev))
	}
	recovered, err := h.recoverConfig(p.ID, now())
	if err != nil {
		return nil, err
	}
	return &Result{Record: rec, Kit: p.Kit, ConfigRecovered: recovered, Updated: had}, nil
}

// weighIndex lifts an install through the index door to verified when
// the identity that verified the artifact is the one the index expects.
func (p *Plan) weighIndex() {
	if p.Tier == TierSigned && p.Identity.same(p.expected) {
		p.Tier = TierVerified
		p.Reason += ", the identity the index expects"
	}
}

const ackHint = "install it anyway only if you trust the source: pass acknowledge"

// weigh applies the tier rules: anything unverified needs
// acknowledgement, and so do an artifact the index does not vouch for,
// a verifying identity other than the installed one's, and a tier
// lower than the installed one's.
func weigh(p *Plan, prev Record, had, ack bool) error {
	if ack {
		return nil
	}
	if p.expected != nil && p.Tier != TierVerified {
		if p.Identity != nil {
			return refuse("identity_changed", fmt.Sprintf("the index expects %s to be signed by %s; this tag is signed by %s", p.ID, p.expected, p.Identity), ackHint).
				With("tier", p.Tier)
		}
		return refuse("index", fmt.Sprintf("the index expects %s to be signed by %s, and this artifact is not verified: %s", p.ID, p.expected, p.Reason), ackHint).
			With("tier", p.Tier)
	}
	if had && prev.Identity != nil && p.Identity != nil && !prev.Identity.same(p.Identity) {
		return refuse("identity_changed", fmt.Sprintf("%s was verified as %s; this one is signed by %s", p.ID, prev.Identity, p.Identity), ackHint).
			With("tier", p.Tier)
	}
	if had && prev.Tier != TierUnverified && p.Tier == TierUnverified {
		return refuse("tier_downgrade", fmt.Sprintf("%s is installed %s; this source is unverified (%s)", p.ID, prev.Tier, p.Reason), ackHint).
			With("tier", p.Tier)
	}
	if p.Tier == TierUnverified {
		return refuse("unverified", fmt.Sprintf("%s %s is unverified: %s", p.ID, p.Version, p.Reason),
			"read its licence ("+p.License+") and code, then install again with acknowledge").With("tier", p.Tier)
	}
	return nil
}

// Update installs id again from its recorded source (an index entry
// through the index, as it reads now): a moved tag or a branch's new
// head installs a new revision, reported beside the previous one. The
// tier rules apply as to any install. A failed update leaves the
// previous install running and unmodified: its record moves last.
func (h *Home) Update(ctx context.Context, id string, opt Options) (*Result, error) {
	rec, err := h.Lookup(id)
	if err != nil {
		return nil, err
	}
	source, index := rec.Source, rec.Kind == "index"
	switch {
	case rec.Kind == "upload":
		return nil, refuse("source", id+" was uploaded: there is no source to resolve again", "upload the new version")
	case index:
		source = rec.ID
	}
	opt.Upload = false
	res, err := h.install(ctx, source, opt, id, index)
	if err != nil {
		return nil, err
	}
	res.PreviousRevision = rec.Revision
	res.Changed = rec.Tree != res.Tree || rec.Revision != res.Revision
	return res, nil
}

// Remove uninstalls id: its record and trees go, its settings are kept
// in quarantine for QuarantineFor, recovered by reinstalling the id.
// Forest files are never touched.
func (h *Home) Remove(id string, now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	list, err := h.load()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(list, func(r Record) bool { return r.ID == id })
	if i < 0 {
		return envelope.New(envelope.NotFound, fmt.Sprintf("extension %q is not installed", id), "list what is installed with `vine ext list`")
	}
	if err := h.quarantine(id, now); err != nil {
		return err
	}
	if err := h.save(slices.Delete(list, i, i+1)); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(h.dir, id))
}
