// SPDX-License-Identifier: Apache-2.0

package keys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/monkeyllm/vine"
)

// File is the content of a keys file: {"keys": [...]}, in YAML or JSON.
type File struct {
	Keys []Key `json:"keys" yaml:"keys"`
}

// Key is one entry of a keys file (spec 08 §6). It stores the digest of
// the secret, never the secret. Times are RFC 3339 in UTC.
type Key struct {
	// Label names the key for the people who revoke it; a key nobody can
	// identify is never revoked. Unique within a file.
	Label string `json:"label" yaml:"label"`
	// Principal is who the key authenticates; empty means Label.
	Principal string `json:"principal,omitempty" yaml:"principal,omitempty"`
	// Kind is "api" (made by vine keys add) or "session".
	Kind string `json:"kind" yaml:"kind"`
	// Prefix is the secret's first characters, to recognise a key
	// without disclosing it.
	Prefix string `json:"prefix" yaml:"prefix"`
	// SHA256 is the lowercase hex SHA-256 of the secret: the lookup and
	// the revocation handle.
	SHA256 string `json:"sha256" yaml:"sha256"`
	// Created is when the key was made.
	Created string `json:"created,omitempty" yaml:"created,omitempty"`
	// ExpiresAt is when the key stops working: the default answer to a
	// leak nobody noticed. Required; keys never live forever.
	ExpiresAt string `json:"expires_at" yaml:"expires_at"`
	// RevokedAt, once set and past, refuses the key: the answer to a
	// leak somebody noticed.
	RevokedAt string `json:"revoked_at,omitempty" yaml:"revoked_at,omitempty"`
	// LastUsedAt is when a server last accepted the key, as far as the
	// file knows (servers keep it in memory; see Store.Keys).
	LastUsedAt string `json:"last_used_at,omitempty" yaml:"last_used_at,omitempty"`
	// Caps is the capability mask applied to every grant at the moment
	// of use; null (absent) means unmasked, [] means nothing.
	Caps []vine.Capability `json:"caps" yaml:"caps"`
	// Owner is the deployment owner bit; it counts only when the mask,
	// if any, includes admin.
	Owner bool `json:"owner,omitempty" yaml:"owner,omitempty"`
	// Grants maps a forest id to the key's policy there.
	Grants map[string]vine.Policy `json:"grants" yaml:"grants"`
}

// Key statuses, as a listing shows them.
const (
	StatusActive  = "active"
	StatusRevoked = "revoked"
	StatusExpired = "expired"
)

// Status is active, revoked or expired at now. A key whose times do not
// parse is expired: Parse refuses such a file, so only a hand-built Key
// can reach this.
func (k Key) Status(now time.Time) string {
	if k.RevokedAt != "" {
		if t, err := time.Parse(time.RFC3339, k.RevokedAt); err != nil || !t.After(now) {
			return StatusRevoked
		}
	}
	if t, err := time.Parse(time.RFC3339, k.ExpiresAt); err != nil || !t.After(now) {
		return StatusExpired
	}
	return StatusActive
}

// principal is the caller the key authenticates.
func (k Key) principal() *Principal {
	name := k.Principal
	if name == "" {
		name = k.Label
	}
	var mask []vine.Capability
	if k.Caps != nil {
		mask = slices.Clone(k.Caps)
	}
	return &Principal{Name: name, Grants: maps.Clone(k.Grants), Mask: mask, Owner: k.Owner}
}

var hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// check reports the first thing wrong with the entry.
func (k Key) check() error {
	switch {
	case strings.TrimSpace(k.Label) == "":
		return errors.New("label is empty: a key nobody can identify is never revoked")
	case !hexDigest.MatchString(k.SHA256):
		return errors.New("sha256 must be the 64 lowercase hex digits of the secret's SHA-256")
	case k.Kind != "api" && k.Kind != "session":
		return fmt.Errorf("kind %q: expected api or session", k.Kind)
	case k.ExpiresAt == "":
		return errors.New("expires_at is missing: keys never live forever")
	}
	for name, v := range map[string]string{"created": k.Created, "expires_at": k.ExpiresAt,
		"revoked_at": k.RevokedAt, "last_used_at": k.LastUsedAt} {
		if _, err := time.Parse(time.RFC3339, v); v != "" && err != nil {
			return fmt.Errorf("%s %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", name, v)
		}
	}
	if err := checkCaps(k.Caps); err != nil {
		return fmt.Errorf("caps: %w", err)
	}
	for _, forest := range slices.Sorted(maps.Keys(k.Grants)) {
		if strings.TrimSpace(forest) == "" {
			return errors.New("grants: a forest id is empty")
		}
		g := k.Grants[forest]
		if err := checkCaps(g.Caps); err != nil {
			return fmt.Errorf("grants.%s.caps: %w", forest, err)
		}
		if err := checkGrantPrefixes(g.Allow, g.Deny); err != nil {
			return fmt.Errorf("grants.%s.%w", forest, err)
		}
	}
	return nil
}

// Parse reads a keys file. YAML and JSON are both accepted (JSON is
// YAML); an unknown field, a malformed entry (a prefix CheckPrefix
// refuses among them), a duplicate label or a duplicate digest refuses
// the whole file, naming the entry, so a typo never silently grants or
// keeps something.
func Parse(data []byte) (*File, error) {
	f := &File{}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	if err := yaml.UnmarshalWithOptions(data, f, yaml.DisallowUnknownField()); err != nil {
		return nil, fmt.Errorf("keys file: %s", firstLine(err.Error()))
	}
	labels, digests := map[string]bool{}, map[string]bool{}
	for i := range f.Keys {
		k := &f.Keys[i]
		if k.Kind == "" {
			k.Kind = "api"
		}
		if err := k.check(); err != nil {
			return nil, fmt.Errorf("keys file: entry %d (label %q): %w", i+1, k.Label, err)
		}
		if labels[k.Label] || digests[k.SHA256] {
			return nil, fmt.Errorf("keys file: entry %d (label %q): duplicate label or sha256", i+1, k.Label)
		}
		labels[k.Label], digests[k.SHA256] = true, true
	}
	return f, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// Marshal renders the file: JSON (indented) when asJSON, else YAML.
// YAML is made from the JSON so that an absent mask stays null: a YAML
// encoder writes a nil list as [], which would turn an unmasked key into
// one that can do nothing.
func (f *File) Marshal(asJSON bool) ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil || asJSON {
		return append(b, '\n'), err
	}
	return yaml.JSONToYAML(b)
}

// ReadFile reads and parses the keys file at path; a missing file is an
// empty one, so the first vine keys add creates it.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// WriteFile replaces the keys file at path atomically (a reader never
// sees half a file) with owner-only permissions, in JSON when the name
// ends in .json and YAML otherwise.
func WriteFile(path string, f *File) error {
	data, err := f.Marshal(strings.EqualFold(filepath.Ext(path), ".json"))
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Add appends k after checking it, refusing a label or digest the file
// already holds.
func (f *File) Add(k Key) error {
	if k.Kind == "" {
		k.Kind = "api"
	}
	if err := k.check(); err != nil {
		return err
	}
	for _, o := range f.Keys {
		if o.Label == k.Label {
			return fmt.Errorf("label %q is taken: a label is how a key is recognised, choose another", k.Label)
		}
		if o.SHA256 == k.SHA256 {
			return errors.New("a key with this digest exists")
		}
	}
	f.Keys = append(f.Keys, k)
	return nil
}

// Revoke sets revoked_at to now on the key whose sha256 or label is
// handle and returns it. Revoking a revoked key keeps its first time.
func (f *File) Revoke(handle string, now time.Time) (Key, error) {
	for i := range f.Keys {
		k := &f.Keys[i]
		if k.SHA256 == handle || k.Label == handle {
			if k.RevokedAt == "" {
				k.RevokedAt = now.UTC().Format(time.RFC3339)
			}
			return *k, nil
		}
	}
	return Key{}, fmt.Errorf("no key with sha256 or label %q", handle)
}
