// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"slices"

	"github.com/monkeyllm/vine/internal/lint"
)

// Finding is one lint result of Validate.
type Finding struct {
	NodeID  string `json:"node_id"`
	Level   string `json:"level"` // "error" or "warning"
	Message string `json:"message"`
}

// Report is the outcome of Validate: every finding in walk order, and the
// counts by level. A forest is valid when Errors is 0.
type Report struct {
	Nodes    int       `json:"nodes"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []Finding `json:"findings"`
}

// Validate lints every node file against the forest's dialect (spec §11):
// unreadable files, field rules, an id differing from the path, link
// targets that do not exist, and missing local payloads are errors; a
// summary breaking the A.4 contract, an unresolved body wikilink and a
// payload whose bytes no longer match payload_hash are warnings. It reads
// files only and changes nothing.
func (v *Vine) Validate(ctx context.Context) (*Report, error) {
	l := lint.New(lint.Config{Root: v.root, Limits: v.readLimits, Repo: v.gitRepo, Catalog: v.cat, Canopy: v.CanopyStatus})
	r, err := l.Run(ctx, v.Dialect())
	if err != nil {
		return nil, err
	}
	rep := &Report{Nodes: r.Nodes, Errors: r.Errors, Warnings: r.Warnings, Findings: make([]Finding, len(r.Findings))}
	for i, f := range r.Findings {
		rep.Findings[i] = Finding(f)
	}
	v.validateExtensions(rep)
	return rep, nil
}

// validateExtensions reports an unreadable _meta/extensions.yaml (an
// error) and every extension it expects that this host has not
// installed (a warning, spec 11 §6).
func (v *Vine) validateExtensions(rep *Report) {
	const id = "_meta/extensions"
	e, err := v.Extensions()
	if err != nil {
		rep.Findings = append(rep.Findings, Finding{NodeID: id, Level: "error", Message: err.Error()})
		rep.Errors++
		return
	}
	var installed []string
	if v.installedExt != nil {
		installed = v.installedExt()
	}
	for _, x := range e.IDs() {
		if !slices.Contains(installed, x) {
			rep.Findings = append(rep.Findings, Finding{NodeID: id, Level: "warning",
				Message: fmt.Sprintf("the forest expects extension %q, which this host has not installed; it is inert here until an operator installs it", x)})
			rep.Warnings++
		}
	}
}
