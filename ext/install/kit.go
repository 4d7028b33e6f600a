// SPDX-License-Identifier: Apache-2.0

package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/worker"
)

// KitNote is printed wherever the kit's result is: what it is and is not.
const KitNote = "The conformance kit is a compatibility control, not a security control: " +
	"the conformance kit does not run before third-party code runs; it runs before anything is registered."

// Check is one line of the kit's result.
type Check struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// KitResult is the conformance kit's answer for one tree.
type KitResult struct {
	OK     bool     `json:"ok"`
	Checks []Check  `json:"checks"`
	Failed []string `json:"failed"`
}

func (k *KitResult) add(check string, ok bool, detail string) {
	k.Checks = append(k.Checks, Check{check, ok, detail})
	if !ok {
		k.Failed = append(k.Failed, check)
	}
}

// KitOptions are what the kit checks a tree against.
type KitOptions struct {
	// HostVersion is the version station_compat must admit.
	HostVersion string
	// Roles reports whether a model role is bound on this host; nil
	// means the host binds no roles (an engine-only host), and the
	// roles_bound check says so instead of failing.
	Roles func(role string) bool
	// Worker configures the throwaway process of the handshake.
	Worker worker.Options
}

// Kit runs the conformance kit on an extension tree: the manifest, the
// host range, the licence and its file, the entry, every claimed
// handler and its parameters (from a handshake in a throwaway process),
// the panel, the configuration and the roles it requires.
func Kit(ctx context.Context, tree string, opt KitOptions) (*KitResult, *ext.Manifest) {
	k := &KitResult{Failed: []string{}}
	data, err := os.ReadFile(filepath.Join(tree, "manifest.json"))
	if err != nil {
		k.add("manifest", false, "no manifest.json at the root of the tree")
		return k, nil
	}
	m, err := ext.ParseManifest(data)
	if err != nil {
		k.add("manifest", false, err.Error())
		return k, nil
	}
	k.add("manifest", true, "")
	ok, _ := ext.Compatible(m.StationCompat, opt.HostVersion)
	k.add("station_compat", ok, fmt.Sprintf("%q against this host's %q", m.StationCompat, opt.HostVersion))
	k.add("license", strings.TrimSpace(m.License) != "", m.License)
	k.add("license_file", hasLicenseFile(tree), "LICENSE, LICENSE.md, LICENSE.txt or COPYING at the root")
	entryOK := k.entry(tree, m)
	if entryOK {
		k.handlers(ctx, tree, m, opt.Worker)
	}
	k.panel(tree, m)
	k.config(m)
	k.roles(m, opt.Roles)
	k.OK = len(k.Failed) == 0
	return k, m
}

func hasLicenseFile(tree string) bool {
	for _, n := range []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"} {
		if fi, err := os.Stat(filepath.Join(tree, n)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

func (k *KitResult) entry(tree string, m *ext.Manifest) bool {
	entry := m.Entry
	if entry == "" {
		entry = "main"
	}
	fi, err := os.Stat(filepath.Join(tree, filepath.FromSlash(entry)))
	switch {
	case err != nil:
		k.add("entry", false, fmt.Sprintf("%s: not in the tree (a Go extension ships its built executable)", entry))
	case !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0:
		k.add("entry", false, entry+" is not an executable file")
	default:
		k.add("entry", true, entry)
		return true
	}
	return false
}

// handlers checks the handshake: each claimed handler declared
// (handler:<seam>:<name>) and fitting its seam (signature:<seam>:<name>).
func (k *KitResult) handlers(ctx context.Context, tree string, m *ext.Manifest, opt worker.Options) {
	decl, err := worker.Probe(ctx, tree, m, opt)
	if err != nil {
		k.add("handshake", false, err.Error())
		return
	}
	byKey := map[string]worker.Declared{}
	for _, d := range decl {
		byKey[string(d.Seam)+":"+d.Name] = d
	}
	claims := m.Handlers()
	for _, s := range ext.Contracts() {
		for _, name := range claims[s.Seam] {
			key := string(s.Seam) + ":" + name
			d, ok := byKey[key]
			k.add("handler:"+key, ok, map[bool]string{true: "declared", false: "claimed in the manifest, not declared by the extension"}[ok])
			if !ok {
				continue
			}
			if err := worker.Fits(d); err != nil {
				k.add("signature:"+key, false, err.Error())
			} else {
				k.add("signature:"+key, true, "")
			}
		}
	}
}

func (k *KitResult) panel(tree string, m *ext.Manifest) {
	if m.Contributes.Panel == "" {
		return
	}
	if _, err := ReadPanel(tree, m); err != nil {
		k.add("panel", false, err.Error())
		return
	}
	k.add("panel", true, "")
}

// config: every setting must be reachable without a console, so each
// required one must be declared with a type the CLI can set; a secret
// never carries a default.
func (k *KitResult) config(m *ext.Manifest) {
	var bad []string
	for key, f := range m.Config {
		if f.Secret && f.Default != nil {
			bad = append(bad, key+" is secret and has a default")
		}
	}
	slices.Sort(bad)
	k.add("configurable_without_console", len(bad) == 0, strings.Join(bad, "; "))
}

func (k *KitResult) roles(m *ext.Manifest, bound func(string) bool) {
	if m.Models == nil || len(m.Models.Requires) == 0 {
		return
	}
	if bound == nil {
		k.add("roles_bound", true, "not checked: this host binds no model roles; bind "+strings.Join(m.Models.Requires, ", ")+" where models are bound")
		return
	}
	var missing []string
	for _, r := range m.Models.Requires {
		if !bound(r) {
			missing = append(missing, r)
		}
	}
	k.add("roles_bound", len(missing) == 0, map[bool]string{true: "", false: "unbound: " + strings.Join(missing, ", ")}[len(missing) == 0])
}
