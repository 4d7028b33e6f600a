// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// ExtensionsFile is where a forest records which extensions it expects
// and enables (spec 11 §6): committed, so it travels with the forest.
const ExtensionsFile = "_meta/extensions.yaml"

// ExtensionsLimit caps the file's size.
const ExtensionsLimit = 64 << 10

// Enablement is the content of _meta/extensions.yaml: every listed id is
// expected; it is enabled unless it says enabled: false.
type Enablement struct {
	Extensions map[string]ExtensionEntry `yaml:"extensions"`
}

// ExtensionEntry is one extension's line. Config is kept as written and
// not applied: settings are the host's (spec 11 §12.10, decided here).
type ExtensionEntry struct {
	Enabled *bool          `yaml:"enabled,omitempty"`
	Config  map[string]any `yaml:"config,omitempty"`
}

// On reports whether the entry enables its extension.
func (e ExtensionEntry) On() bool { return e.Enabled == nil || *e.Enabled }

var extensionIDRE = regexp.MustCompile(`^[a-z][a-z0-9-]{1,39}$`)

// ParseEnablement reads _meta/extensions.yaml strictly: unknown keys,
// ids that are not extension ids and a file over ExtensionsLimit are
// refused. Empty data is an empty enablement.
func ParseEnablement(data []byte) (*Enablement, error) {
	e := &Enablement{Extensions: map[string]ExtensionEntry{}}
	if len(data) > ExtensionsLimit {
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit", ExtensionsFile, len(data), ExtensionsLimit)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return e, nil
	}
	if err := yaml.UnmarshalWithOptions(data, e, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("%s: %s", ExtensionsFile, strings.TrimSpace(yaml.FormatError(err, false, false)))
	}
	if e.Extensions == nil {
		e.Extensions = map[string]ExtensionEntry{}
	}
	for id := range e.Extensions {
		if !extensionIDRE.MatchString(id) {
			return nil, fmt.Errorf("%s: %q is not an extension id", ExtensionsFile, id)
		}
	}
	return e, nil
}

// ReadEnablement reads the _meta/extensions.yaml of the forest rooted at
// dir; a forest without the file expects nothing.
func ReadEnablement(dir string) (*Enablement, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ExtensionsFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return ParseEnablement(nil)
	}
	if err != nil {
		return nil, err
	}
	return ParseEnablement(data)
}

// IDs are the expected ids, sorted.
func (e *Enablement) IDs() []string {
	ids := make([]string, 0, len(e.Extensions))
	for id := range e.Extensions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Enabled are the ids the forest enables, sorted.
func (e *Enablement) Enabled() []string {
	var out []string
	for _, id := range e.IDs() {
		if e.Extensions[id].On() {
			out = append(out, id)
		}
	}
	return out
}

// Bytes renders the file, ids sorted, enabled: true written out so a
// reader of the file sees the state without knowing the default.
func (e *Enablement) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString("# Extensions this forest expects (spec 11 §6). Listed = expected;\n")
	b.WriteString("# enabled unless enabled: false. Never put a secret here.\n")
	if len(e.Extensions) == 0 {
		b.WriteString("extensions: {}\n")
		return b.Bytes()
	}
	b.WriteString("extensions:\n")
	for _, id := range e.IDs() {
		entry := e.Extensions[id]
		fmt.Fprintf(&b, "  %s:\n    enabled: %t\n", id, entry.On())
		if len(entry.Config) > 0 {
			cfg, err := yaml.MarshalWithOptions(map[string]any{"config": entry.Config}, yaml.Indent(2))
			if err == nil {
				for _, line := range strings.Split(strings.TrimRight(string(cfg), "\n"), "\n") {
					b.WriteString("    " + line + "\n")
				}
			}
		}
	}
	return b.Bytes()
}

// ValidExtensionID reports whether id is an extension id.
func ValidExtensionID(id string) bool { return extensionIDRE.MatchString(id) }
