// SPDX-License-Identifier: Apache-2.0

package ext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Manifest is an extension's manifest.json (Part L.1): who it is, which
// host versions it runs on, what it asks for and which seams it claims.
// ParseManifest refuses unknown keys at every level.
type Manifest struct {
	ID            string                 `json:"id"`
	Version       string                 `json:"version"`
	License       string                 `json:"license"`
	StationCompat string                 `json:"station_compat"`
	Description   string                 `json:"description,omitempty"`
	Entry         string                 `json:"entry,omitempty"`
	Permissions   *Permissions           `json:"permissions,omitempty"`
	Models        *ModelNeeds            `json:"models,omitempty"`
	Contributes   Contributes            `json:"contributes,omitzero"`
	Config        map[string]ConfigField `json:"config,omitempty"`
}

// Permissions are what an extension declares it needs. They inform the
// person installing it; they contain only code the host isolates.
type Permissions struct {
	Network      []string `json:"network,omitempty"`
	Filesystem   string   `json:"filesystem,omitempty"` // none, read or readwrite
	Capabilities []string `json:"capabilities,omitempty"`
}

// ModelNeeds are the model roles an extension calls (Requires) and the
// roles it adds to the host's catalogue (Registers).
type ModelNeeds struct {
	Requires  []string   `json:"requires,omitempty"`
	Registers []RoleSpec `json:"registers,omitempty"`
}

// RoleSpec is a model role an extension registers.
type RoleSpec struct {
	Role        string `json:"role"`
	Kind        string `json:"kind"` // chat, embed, vision, transcribe or rerank
	Description string `json:"description,omitempty"`
}

// Contributes lists the seams an extension claims. Panel names a
// declarative console panel file inside the extension's tree.
type Contributes struct {
	Converters []ConverterSpec `json:"converters,omitempty"`
	Curation   []HandlerSpec   `json:"curation,omitempty"`
	Events     []HandlerSpec   `json:"events,omitempty"`
	Jobs       []HandlerSpec   `json:"jobs,omitempty"`
	Tools      []HandlerSpec   `json:"tools,omitempty"`
	Routes     []HandlerSpec   `json:"routes,omitempty"`
	Ranking    []HandlerSpec   `json:"ranking,omitempty"`
	Prompt     []HandlerSpec   `json:"prompt,omitempty"`
	Panel      string          `json:"panel,omitempty"`
}

// ConverterSpec claims file extensions for a converter handler.
type ConverterSpec struct {
	Extensions []string `json:"extensions"`
	Handler    string   `json:"handler"`
	Heavy      bool     `json:"heavy,omitempty"`
}

// HandlerSpec claims a named contribution to a seam. Handler names the
// function the extension registers; it defaults to Name.
type HandlerSpec struct {
	Name        string `json:"name"`
	Handler     string `json:"handler,omitempty"`
	Heavy       bool   `json:"heavy,omitempty"`
	Description string `json:"description,omitempty"`
}

// HandlerName is the handler the spec claims: Handler, else Name.
func (h HandlerSpec) HandlerName() string {
	if h.Handler != "" {
		return h.Handler
	}
	return h.Name
}

// ConfigField declares one setting. A secret is never written to a
// versioned file nor read back.
type ConfigField struct {
	Type        string `json:"type"` // string, integer, number or boolean
	Default     any    `json:"default,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Secret      bool   `json:"secret,omitempty"`
	Description string `json:"description,omitempty"`
}

// ManifestError reports what is wrong with a manifest: the field, as a
// path ("contributes.tools[0].name"), and why.
type ManifestError struct {
	Field   string
	Problem string
}

func (e *ManifestError) Error() string {
	if e.Field == "" {
		return "ext: manifest: " + e.Problem
	}
	return "ext: manifest: " + e.Field + ": " + e.Problem
}

// ManifestLimit is the largest manifest.json ParseManifest reads.
const ManifestLimit = 256 << 10

var (
	idRE   = regexp.MustCompile(`^[a-z][a-z0-9-]{1,39}$`)
	roleRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	extRE  = regexp.MustCompile(`^\.[a-z0-9][a-z0-9._+-]{0,15}$`)
)

// roleKinds are the kinds a registered role may have.
var roleKinds = []string{"chat", "embed", "vision", "transcribe", "rerank"}

// configTypes are the types a setting may have.
var configTypes = []string{"string", "integer", "number", "boolean"}

// RoleKinds are the kinds a registered model role may have.
func RoleKinds() []string { return append([]string(nil), roleKinds...) }

// ConfigTypes are the types a declared setting may have.
func ConfigTypes() []string { return append([]string(nil), configTypes...) }

// ParseManifest decodes and validates a manifest: unknown keys at any
// level, trailing data and every rule of [Manifest.Validate] are refused
// with a *ManifestError.
func ParseManifest(data []byte) (*Manifest, error) {
	if len(data) > ManifestLimit {
		return nil, &ManifestError{Problem: fmt.Sprintf("%d bytes, over the %d-byte limit", len(data), ManifestLimit)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, &ManifestError{Problem: "not a manifest: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ManifestError{Problem: "data after the manifest object"}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Namespace is the prefix every tool name an extension contributes must
// carry: "x_" + id with '-' as '_' + "_" ("whisper" → "x_whisper_").
func Namespace(id string) string {
	return "x_" + strings.ReplaceAll(id, "-", "_") + "_"
}

// Validate checks the rules of Part L.1 that need no host: the id, the
// required fields, a readable station_compat, handler and role names,
// the namespace of tools, converter extensions and config types. Which
// host versions station_compat admits is [Compatible]'s question.
func (m *Manifest) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &ManifestError{Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	if !idRE.MatchString(m.ID) {
		return bad("id", "%q must match %s", m.ID, idRE)
	}
	for _, f := range []struct{ field, value string }{
		{"version", m.Version}, {"license", m.License}, {"station_compat", m.StationCompat},
	} {
		if strings.TrimSpace(f.value) == "" {
			return bad(f.field, "required")
		}
	}
	if _, err := parseRange(m.StationCompat); err != nil {
		return bad("station_compat", "%v", err)
	}
	if m.Entry != "" && !safeRelative(m.Entry) {
		return bad("entry", "%q must be a relative path inside the extension", m.Entry)
	}
	if p := m.Permissions; p != nil && p.Filesystem != "" && !slices.Contains([]string{"none", "read", "readwrite"}, p.Filesystem) {
		return bad("permissions.filesystem", "%q is not none, read or readwrite", p.Filesystem)
	}
	if err := m.validateModels(bad); err != nil {
		return err
	}
	if err := m.validateContributes(bad); err != nil {
		return err
	}
	for _, key := range sortedKeys(m.Config) {
		if !slices.Contains(configTypes, m.Config[key].Type) {
			return bad("config."+key+".type", "%q is not one of %s", m.Config[key].Type, strings.Join(configTypes, ", "))
		}
	}
	return nil
}

func (m *Manifest) validateModels(bad func(string, string, ...any) error) error {
	if m.Models == nil {
		return nil
	}
	for i, r := range m.Models.Requires {
		if !roleRE.MatchString(r) {
			return bad(fmt.Sprintf("models.requires[%d]", i), "%q must match %s", r, roleRE)
		}
	}
	for i, r := range m.Models.Registers {
		if !roleRE.MatchString(r.Role) {
			return bad(fmt.Sprintf("models.registers[%d].role", i), "%q must match %s", r.Role, roleRE)
		}
		if !slices.Contains(roleKinds, r.Kind) {
			return bad(fmt.Sprintf("models.registers[%d].kind", i), "%q is not one of %s", r.Kind, strings.Join(roleKinds, ", "))
		}
	}
	return nil
}

func (m *Manifest) validateContributes(bad func(string, string, ...any) error) error {
	c := m.Contributes
	for i, cv := range c.Converters {
		field := fmt.Sprintf("contributes.converters[%d]", i)
		if !nameRE.MatchString(cv.Handler) {
			return bad(field+".handler", "%q must match %s", cv.Handler, nameRE)
		}
		if len(cv.Extensions) == 0 {
			return bad(field+".extensions", "names no file extension")
		}
		for j, e := range cv.Extensions {
			if !extRE.MatchString(e) {
				return bad(fmt.Sprintf("%s.extensions[%d]", field, j), "%q must be a lowercase extension with its dot, like \".rec\"", e)
			}
		}
	}
	for _, s := range namedSeams {
		seen := map[string]bool{}
		for i, h := range c.Named(s) {
			field := fmt.Sprintf("contributes.%s[%d]", s, i)
			if !nameRE.MatchString(h.Name) {
				return bad(field+".name", "%q must match %s", h.Name, nameRE)
			}
			if !nameRE.MatchString(h.HandlerName()) {
				return bad(field+".handler", "%q must match %s", h.HandlerName(), nameRE)
			}
			if seen[h.Name] {
				return bad(field+".name", "%q is claimed twice", h.Name)
			}
			seen[h.Name] = true
			if s == SeamTools && !strings.HasPrefix(h.Name, Namespace(m.ID)) {
				return bad(field+".name", "%q must begin with %q (the extension's namespace)", h.Name, Namespace(m.ID))
			}
		}
	}
	if c.Panel != "" && !safeRelative(c.Panel) {
		return bad("contributes.panel", "%q must be a relative path inside the extension", c.Panel)
	}
	return nil
}

// Named are the contributions to one of the named seams (every seam
// but converters, roles and panel), in manifest order.
func (c Contributes) Named(s Seam) []HandlerSpec {
	switch s {
	case SeamCuration:
		return c.Curation
	case SeamEvents:
		return c.Events
	case SeamJobs:
		return c.Jobs
	case SeamTools:
		return c.Tools
	case SeamRoutes:
		return c.Routes
	case SeamRanking:
		return c.Ranking
	case SeamPrompt:
		return c.Prompt
	}
	return nil
}

// Handlers lists every handler the manifest claims, by seam, in
// manifest order: what the extension must register.
func (m *Manifest) Handlers() map[Seam][]string {
	out := map[Seam][]string{}
	for _, cv := range m.Contributes.Converters {
		if !slices.Contains(out[SeamConverters], cv.Handler) {
			out[SeamConverters] = append(out[SeamConverters], cv.Handler)
		}
	}
	for _, s := range namedSeams {
		for _, h := range m.Contributes.Named(s) {
			if !slices.Contains(out[s], h.HandlerName()) {
				out[s] = append(out[s], h.HandlerName())
			}
		}
	}
	return out
}

// safeRelative reports whether p is a clean slash path inside a tree.
func safeRelative(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.ContainsRune(p, 0) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
