// SPDX-License-Identifier: Apache-2.0

package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/recovery"
)

// QuarantineFor is how long an uninstalled extension's settings are
// kept for a reinstall to recover.
const QuarantineFor = 90 * 24 * time.Hour

func (h *Home) configPath(id string) string { return filepath.Join(h.dir, id, "config.json") }

// Config is id's settings as the extension reads them: stored values
// over the manifest's defaults, secrets included. Never show it.
func (h *Home) Config(id string) (map[string]any, error) {
	rec, ok, err := h.Get(id)
	if err != nil || !ok {
		return nil, err
	}
	m, err := h.Manifest(rec)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, f := range m.Config {
		if f.Default != nil {
			out[k] = f.Default
		}
	}
	stored, err := readConfig(h.configPath(id))
	if err != nil {
		return nil, err
	}
	maps.Copy(out, stored)
	return out, nil
}

// Setting is one setting as a person may see it: a secret says only
// whether it has a value.
type Setting struct {
	Value    any  `json:"value,omitempty"`
	HasValue bool `json:"has_value"`
	Secret   bool `json:"secret"`
}

// Settings is id's settings for display.
func (h *Home) Settings(id string) (map[string]Setting, error) {
	rec, ok, err := h.Get(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notInstalled(id)
	}
	m, err := h.Manifest(rec)
	if err != nil {
		return nil, err
	}
	cfg, err := h.Config(id)
	if err != nil {
		return nil, err
	}
	out := map[string]Setting{}
	for k, f := range m.Config {
		v, has := cfg[k]
		s := Setting{HasValue: has, Secret: f.Secret}
		if !f.Secret {
			s.Value = v
		}
		out[k] = s
	}
	return out, nil
}

// SetConfig stores values for id: each key must be declared and of its
// declared type; a nil value keeps what is stored. The file is 0600.
func (h *Home) SetConfig(id string, values map[string]any) error {
	rec, ok, err := h.Get(id)
	if err != nil {
		return err
	}
	if !ok {
		return notInstalled(id)
	}
	m, err := h.Manifest(rec)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	stored, err := readConfig(h.configPath(id))
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		f, declared := m.Config[k]
		if !declared {
			return envelope.New(envelope.Schema, fmt.Sprintf("%s declares no setting %q", id, k),
				"declared settings: "+strings.Join(slices.Sorted(maps.Keys(m.Config)), ", ")).With("param", k)
		}
		v := values[k]
		if v == nil {
			continue
		}
		if err := typed(f.Type, v); err != nil {
			return envelope.New(envelope.Schema, fmt.Sprintf("setting %q: %v", k, err), "").With("param", k)
		}
		stored[k] = v
	}
	return writeConfig(h.configPath(id), stored)
}

func typed(t string, v any) error {
	ok := false
	switch t {
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "number":
		_, ok = v.(float64)
	case "integer":
		f, isNum := v.(float64)
		ok = isNum && f == math.Trunc(f)
	}
	if !ok {
		return fmt.Errorf("%v is not a %s", v, t)
	}
	return nil
}

func notInstalled(id string) error {
	return envelope.New(envelope.NotFound, fmt.Sprintf("extension %q is not installed", id), "list what is installed with `vine ext list`")
}

func readConfig(p string) (map[string]any, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	return out, json.Unmarshal(data, &out)
}

func writeConfig(p string, values map[string]any) error {
	data, err := json.MarshalIndent(values, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if err := recovery.WriteAtomic(p, append(data, '\n')); err != nil {
		return err
	}
	return os.Chmod(p, 0o600)
}

type quarantined struct {
	Config    map[string]any `json:"config"`
	RemovedAt time.Time      `json:"removed_at"`
	ExpiresAt time.Time      `json:"expires_at"`
}

func (h *Home) quarantinePath(id string) string {
	return filepath.Join(h.dir, "quarantine", id+".json")
}

// quarantine moves id's settings aside; callers hold h.mu.
func (h *Home) quarantine(id string, now time.Time) error {
	cfg, err := readConfig(h.configPath(id))
	if err != nil || len(cfg) == 0 {
		return err
	}
	data, err := json.Marshal(quarantined{Config: cfg, RemovedAt: now.UTC(), ExpiresAt: now.UTC().Add(QuarantineFor)})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.quarantinePath(id)), 0o700); err != nil {
		return err
	}
	if err := recovery.WriteAtomic(h.quarantinePath(id), data); err != nil {
		return err
	}
	return os.Chmod(h.quarantinePath(id), 0o600)
}

// recoverConfig restores id's quarantined settings on reinstall; an
// expired quarantine is deleted instead.
func (h *Home) recoverConfig(id string, now time.Time) (bool, error) {
	data, err := os.ReadFile(h.quarantinePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var q quarantined
	if err := json.Unmarshal(data, &q); err != nil {
		return false, err
	}
	defer os.Remove(h.quarantinePath(id))
	if now.After(q.ExpiresAt) {
		return false, nil
	}
	return true, writeConfig(h.configPath(id), q.Config)
}

// Quarantined lists the ids whose settings wait in quarantine, with
// when they expire; expired ones are deleted as they are met.
func (h *Home) Quarantined(now time.Time) (map[string]time.Time, error) {
	entries, err := os.ReadDir(filepath.Join(h.dir, "quarantine"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]time.Time{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(h.dir, "quarantine", e.Name()))
		var q quarantined
		if err != nil || json.Unmarshal(data, &q) != nil {
			continue
		}
		if now.After(q.ExpiresAt) {
			os.Remove(filepath.Join(h.dir, "quarantine", e.Name()))
			continue
		}
		out[id] = q.ExpiresAt
	}
	return out, nil
}
