// SPDX-License-Identifier: Apache-2.0

// Package authoring builds the extension authoring document (spec 11 §8,
// L.16): the prose is written once here, and everything that can be
// derived is — the manifest's JSON Schema from ext.Manifest, the seams
// from ext.Contracts, role kinds and config types from the manifest
// rules — so a new seam changes the document with no second edit. It
// accepts, installs and executes nothing and carries no credential.
package authoring

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/monkeyllm/vine/ext"
)

// Seam is one seam as the document describes it.
type Seam struct {
	Seam        string   `json:"seam"`
	Summary     string   `json:"summary"`
	Signature   *string  `json:"signature"` // nil for declarative seams
	Params      []string `json:"params"`
	Returns     string   `json:"returns"`
	CalledBy    string   `json:"called_by"`
	Precedence  string   `json:"precedence"`
	OnFailure   string   `json:"on_failure,omitempty"`
	Attributed  bool     `json:"attributed"`
	Declarative bool     `json:"declarative"`
	DeadlineMS  int64    `json:"deadline_ms,omitempty"`
}

// Document is the authoring document.
type Document struct {
	Station        string             `json:"station"`
	Protocol       string             `json:"protocol"`
	ManifestSchema *jsonschema.Schema `json:"manifest_schema"`
	Seams          []Seam             `json:"seams"`
	RoleKinds      []string           `json:"role_kinds"`
	ConfigTypes    []string           `json:"config_types"`
	Namespace      string             `json:"namespace"`
	Kit            string             `json:"kit"`
}

// Build is the document for a host of version station.
func Build(station string) (*Document, error) {
	schema, err := jsonschema.For[ext.Manifest](&jsonschema.ForOptions{IgnoreInvalidTypes: true})
	if err != nil {
		return nil, fmt.Errorf("authoring: manifest schema: %w", err)
	}
	d := &Document{Station: station, Protocol: "vine-ext/1", ManifestSchema: schema,
		RoleKinds: ext.RoleKinds(), ConfigTypes: ext.ConfigTypes(),
		Namespace: `every tool name begins with "x_" + id (with '-' as '_') + "_"; routes live under /v1/ext/<id>/`,
		Kit:       "The conformance kit is a compatibility control, not a security control: it runs the extension's code before anything is registered."}
	for _, c := range ext.Contracts() {
		s := Seam{Seam: string(c.Seam), Summary: c.Summary, Params: append([]string{}, c.Params...), Returns: c.Returns,
			CalledBy: c.CalledBy, Precedence: c.Precedence, OnFailure: c.OnFailure, Attributed: c.Attributed,
			Declarative: c.Declarative, DeadlineMS: c.Deadline.Milliseconds()}
		if !c.Declarative {
			sig := fmt.Sprintf("%s(%s) -> %s", c.Seam, strings.Join(c.Params, ", "), c.Returns)
			s.Signature = &sig
		}
		d.Seams = append(d.Seams, s)
	}
	return d, nil
}

// Markdown renders the document, or one part of it: doc "seams" or
// "manifest" ("" is all). Its first line says it is generated.
func (d *Document) Markdown(doc string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- GENERATED from the host's contracts (station %s); do not edit. -->\n\n", d.Station)
	switch doc {
	case "", "seams", "manifest":
	default:
		return "", fmt.Errorf("doc %q is not seams or manifest", doc)
	}
	if doc == "" || doc == "seams" {
		b.WriteString("# Seams\n\nAn extension claims named seams only. Each call runs under its deadline; a slow handler counts as failed, and the act falls back to what happens without it.\n\n")
		b.WriteString("| seam | receives → returns | called by | precedence | on failure | deadline |\n|---|---|---|---|---|---|\n")
		for _, s := range d.Seams {
			recv := "manifest only"
			if s.Signature != nil {
				recv = "`" + strings.Join(s.Params, ", ") + "` → " + s.Returns
			}
			dl := "worker clock"
			if s.DeadlineMS > 0 {
				dl = fmt.Sprintf("%d s", s.DeadlineMS/1000)
			}
			if s.Declarative {
				dl = "—"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", s.Seam, recv, s.CalledBy, s.Precedence, s.OnFailure, dl)
		}
		b.WriteString("\n")
	}
	if doc == "" || doc == "manifest" {
		schema, err := json.MarshalIndent(d.ManifestSchema, "", "  ")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "# Manifest\n\n`manifest.json` at the root of the tree; unknown keys are refused at every level. Role kinds: %s. Setting types: %s. Namespace: %s.\n\n```json\n%s\n```\n\n%s\n",
			strings.Join(d.RoleKinds, ", "), strings.Join(d.ConfigTypes, ", "), d.Namespace, schema, d.Kit)
	}
	return b.String(), nil
}
