// SPDX-License-Identifier: Apache-2.0

// Package lint is Validate's engine: it checks every node file of a forest
// against the forest's dialect, the branch indexes against the nodes, the
// files against the last commit, and the derived catalog and vector index
// against the files. It reads and changes nothing.
//
// A Linter holds no state between runs and is safe for concurrent use.
package lint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// Finding is one lint result.
type Finding struct {
	NodeID  string
	Level   string // "error" or "warning"
	Message string
}

// Report is the outcome of a run: every finding in walk order, and the
// counts by level. A forest is valid when Errors is 0.
type Report struct {
	Nodes    int
	Errors   int
	Warnings int
	Findings []Finding
}

// Config is what a Linter reads.
type Config struct {
	Root   forest.Root
	Limits forest.ReadLimits // bound on reading one node file
	// Repo opens the forest's repository; an error means there is none,
	// and the files are not compared with HEAD (a warning says so).
	Repo func() (*gitops.Repo, error)
	// Catalog is compared with the files; nil skips the comparison.
	Catalog *catalog.Catalog
	// Canopy reports the vector layer's state; nil skips its check.
	Canopy func(ctx context.Context) (canopy.Status, error)
}

// Linter lints one forest.
type Linter struct{ cfg Config }

// New returns the Linter of cfg.
func New(cfg Config) *Linter { return &Linter{cfg: cfg} }

// Run lints every node file against d (spec §11): unreadable files, field
// rules, an id differing from the path, link targets that do not exist,
// and missing local payloads are errors; a summary breaking the A.4
// contract, an unresolved body wikilink and a payload whose bytes no
// longer match payload_hash are warnings. Then it compares the branch
// indexes, HEAD, the catalog and the vector index with the files.
func (l *Linter) Run(ctx context.Context, d *forest.Dialect) (*Report, error) {
	nodes, blobs, rep, err := l.readAll(ctx)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		ids[n.ID] = true
	}
	for _, n := range nodes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l.lintNode(rep, n, d, ids)
	}
	rep.Nodes = len(nodes) + countUnreadable(rep)
	lintListings(rep, nodes, ids)
	if err := l.lintHead(rep, blobs); err != nil {
		return nil, err
	}
	if err := l.lintCatalog(ctx, rep, blobs); err != nil {
		return nil, err
	}
	l.lintCanopy(ctx, rep)
	return rep, nil
}

// lintCanopy reports a vector index built by another model than the bound
// embedder's (K.4): the layer is treated as absent until a rebuild, and
// validation must say so. Without an embedder there is nothing to compare.
func (l *Linter) lintCanopy(ctx context.Context, rep *Report) {
	if l.cfg.Canopy == nil {
		return
	}
	st, err := l.cfg.Canopy(ctx)
	if err != nil || st.State != canopy.StateModelMismatch {
		return
	}
	rep.add(forest.RootIndexID, "warning", fmt.Sprintf(
		"vector index built with model %q, but the bound embedder is %q: hybrid locate and the Gauntlet are off until `vine canopy build` rebuilds it",
		st.IndexModel, st.QueryModel))
}

// readAll parses every node file; unreadable ones become error findings.
// blobs maps each node file walked (forest-relative path) to its git blob
// hash, for the comparison with HEAD; "" for a file already reported as
// unreadable, which is no node to compare.
func (l *Linter) readAll(ctx context.Context) ([]*forest.Node, map[string]string, *Report, error) {
	rep := &Report{Findings: []Finding{}}
	var nodes []*forest.Node
	blobs := map[string]string{}
	skipped, err := l.cfg.Root.Walk(func(id, p string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := forest.ReadFile(p)
		if err != nil {
			rep.add(id, "error", "unreadable: "+message(err))
			return nil
		}
		n, err := forest.ParseWithin(id, data, l.cfg.Limits)
		if err != nil {
			rep.add(id, "error", "unreadable: "+message(err))
			blobs[id+forest.NodeExt] = "" // reported; no node to compare
			return nil
		}
		blobs[id+forest.NodeExt] = gitops.BlobHash(data)
		nodes = append(nodes, n)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for _, s := range skipped {
		rep.add(strings.TrimSuffix(s.Path, ".md"), "error", "skipped: "+s.Reason)
	}
	return nodes, blobs, rep, nil
}

// lintNode checks one node against the dialect and the set of ids.
func (l *Linter) lintNode(rep *Report, n *forest.Node, d *forest.Dialect, ids map[string]bool) {
	if forest.IsSystem(n.ID) {
		return // _meta nodes: parse only
	}
	if fmID := n.Front.String("id"); fmID != n.ID {
		rep.add(n.ID, "error", fmt.Sprintf("frontmatter id %q differs from the path id %q", fmID, n.ID))
	}
	checked := withBranchDefaults(n)
	if err := forest.ValidateWrite(checked, forest.WriteCheck{Dialect: d}); err != nil {
		e := envelope.From("validate", err)
		rep.add(n.ID, "error", string(e.Code)+": "+e.Message)
	}
	if err := forest.ValidateSummary(checked.Summary()); err != nil {
		rep.add(n.ID, "warning", "summary: "+message(err))
	}
	for i, l := range n.Links() {
		if l.Target != "" && !ids[l.Target] {
			rep.add(n.ID, "error", fmt.Sprintf("links.%d.target: no node %q", i, l.Target))
		}
	}
	for _, target := range forest.Wikilinks(n.Body) {
		if !ids[target] {
			rep.add(n.ID, "warning", fmt.Sprintf("unresolved wikilink [[%s]]", target))
		}
	}
	l.lintPayload(rep, n)
}

// withBranchDefaults applies the branch read tolerance (§2.4) to a copy:
// title from the first H1, summary from the first blockquote line, created
// from updated.
func withBranchDefaults(n *forest.Node) *forest.Node {
	if n.Type() != "branch" {
		return n
	}
	c := &forest.Node{ID: n.ID, Front: n.Front.Clone(), Body: n.Body}
	out := forest.ParseOutline(n.Body)
	if c.Title() == "" && out.Title != "" {
		c.Front.Set("title", out.Title)
	}
	if c.Summary() == "" && out.Quote != "" {
		c.Front.Set("summary", out.Quote)
	}
	if !c.Front.Has("created") && c.Front.Has("updated") {
		v, _ := c.Front.Get("updated")
		c.Front.Set("created", v)
	}
	return c
}

// lintPayload checks a local payload exists and still matches its hash.
// Remote payload URIs are skipped (G.9).
func (l *Linter) lintPayload(rep *Report, n *forest.Node) {
	name := n.Payload()
	if name == "" || strings.Contains(name, "://") {
		return
	}
	pf, err := l.cfg.Root.Payload(n.ID, name)
	if err != nil {
		rep.add(n.ID, "error", "payload breaks the payload rule: "+err.Error())
		return
	}
	p := pf.Abs
	f, err := forest.OpenRegular(p)
	if err != nil {
		rep.add(n.ID, "error", "payload missing: "+name)
		return
	}
	defer f.Close()
	want := n.PayloadHash()
	if want == "" {
		return
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		rep.add(n.ID, "error", "payload unreadable: "+name)
		return
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		rep.add(n.ID, "warning", fmt.Sprintf("payload_hash drift: %s changed since it was recorded", name))
	}
}

func (r *Report) add(id, level, msg string) {
	r.Findings = append(r.Findings, Finding{NodeID: id, Level: level, Message: msg})
	if level == "error" {
		r.Errors++
	} else {
		r.Warnings++
	}
}

func countUnreadable(r *Report) int {
	n := 0
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Message, "unreadable: ") {
			n++
		}
	}
	return n
}

func message(err error) string {
	if e := envelope.CodeOf(err); e != "" {
		return envelope.From("", err).Message
	}
	return err.Error()
}
