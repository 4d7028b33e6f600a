// SPDX-License-Identifier: Apache-2.0

package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/ext"
)

// PanelLimit is the largest ui/panel.json ReadPanel reads: a panel is a
// few titles and config keys, never a payload.
const PanelLimit = 64 << 10

// Panel is an extension's declarative console panel (spec 11 §8, L.10):
// titles, a blurb, sections naming declared config keys, and notes. A
// console renders it with its own components; it carries no script and
// no markup, so serving it widens nothing.
type Panel struct {
	Title    string         `json:"title"`
	Blurb    string         `json:"blurb,omitempty"`
	Sections []PanelSection `json:"sections"`
	Notes    string         `json:"notes,omitempty"`
}

// PanelSection groups settings under a title; Fields are config keys
// the manifest declares, in the order the panel shows them.
type PanelSection struct {
	Title  string   `json:"title"`
	Fields []string `json:"fields"`
}

// ReadPanel reads and validates the panel m declares inside tree: a
// strict object (unknown keys refused, as in the manifest) whose every
// field is a declared setting. No panel declared is (nil, nil). The
// conformance kit and a host's listing read it through here, so what
// the kit passed is what a console is served.
func ReadPanel(tree string, m *ext.Manifest) (*Panel, error) {
	if m == nil || m.Contributes.Panel == "" {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(tree, filepath.FromSlash(m.Contributes.Panel)))
	if err != nil {
		return nil, errors.New(m.Contributes.Panel + ": not in the tree")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, PanelLimit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", m.Contributes.Panel, err)
	}
	if len(data) > PanelLimit {
		return nil, fmt.Errorf("%s: over the %d-byte limit", m.Contributes.Panel, PanelLimit)
	}
	var p Panel
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, errors.New("not a panel: " + err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a panel: data after the panel object")
	}
	for _, s := range p.Sections {
		for _, key := range s.Fields {
			if _, ok := m.Config[key]; !ok {
				return nil, fmt.Errorf("the panel shows %q, which the manifest's config does not declare", key)
			}
		}
	}
	if p.Sections == nil {
		p.Sections = []PanelSection{}
	}
	return &p, nil
}

// Panel is the validated panel of an installed extension, nil when it
// declares none.
func (h *Home) Panel(r Record) (*Panel, error) {
	m, err := h.Manifest(r)
	if err != nil {
		return nil, err
	}
	return ReadPanel(h.Tree(r), m)
}
