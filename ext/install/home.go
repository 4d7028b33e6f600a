// SPDX-License-Identifier: Apache-2.0

// Package install keeps a host's installed extensions: the install home
// (spec 11 §6), the one resolver every source goes through (an index
// entry, a local directory, a zip archive, a git repository at a ref),
// the conformance kit, tiers and acknowledgement, and the records that
// say what runs.
//
// Tiers weigh signatures, never raising: a tag signed (OpenPGP or SSH)
// by a key the forge publishes for the repository's owner is signed,
// and verified when installed through the index whose expected
// identity it matches; everything else is unverified. The forge keys
// and the index come through [Trust], so a host (or a test) chooses
// where they are read from; this package reads no environment.
//
// Its order is the spec's: resolve the source to an immutable tree,
// run the kit on it, weigh its tier, require acknowledgement, stage the
// tree under its content hash, then switch the record. Any refusal
// installs nothing; a failed update leaves the previous install as it
// was, since the record moves last.
//
// The kit is a compatibility control, not a security control:
// installing runs the extension's code (the kit's handshake does) before
// anything is registered, which is why the tier weighs more than the kit.
package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/internal/recovery"
)

// Tiers of trust (spec 11 §5).
const (
	TierVerified   = "verified"
	TierSigned     = "signed"
	TierUnverified = "unverified"
)

// Record is what the home knows of one installed extension.
type Record struct {
	ID          string    `json:"id"`
	Version     string    `json:"version"`
	Description string    `json:"description,omitempty"`
	Tier        string    `json:"tier"`
	Source      string    `json:"source"`
	Kind        string    `json:"kind"` // index, git, archive, file or upload
	InstalledAt time.Time `json:"installed_at"`
	License     string    `json:"license"`
	Revision    string    `json:"revision,omitempty"` // the git commit that was installed
	Tracking    string    `json:"tracking,omitempty"` // a moving ref (branch) the install follows
	// Identity is who verified the artifact (signed and verified tiers).
	Identity     *Identity        `json:"identity,omitempty"`
	Reason       string           `json:"reason,omitempty"` // why the tier is what it is
	Acknowledged bool             `json:"acknowledged"`
	Permissions  *ext.Permissions `json:"permissions,omitempty"`
	// Tree is the sha256 of the installed tree: it lives in
	// <home>/<id>/trees/<Tree>/.
	Tree string `json:"tree"`
	// Kit is the conformance kit's result at install.
	Kit *KitResult `json:"kit,omitempty"`
}

// Home is an install home: a directory owned by one host, never a
// forest's (a reindex may delete _derived/).
type Home struct {
	dir string
	mu  sync.Mutex
}

// Open opens (creating when absent) the install home in dir.
func Open(dir string) (*Home, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("install: home: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Home{dir: abs}, nil
}

// Dir is the home's directory.
func (h *Home) Dir() string { return h.dir }

type installed struct {
	Extensions []Record `json:"extensions"`
}

func (h *Home) indexPath() string { return filepath.Join(h.dir, "installed.json") }

// List is every installed extension, by id. It makes no network call.
func (h *Home) List() ([]Record, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.load()
}

// IDs are the installed extensions' ids, sorted.
func (h *Home) IDs() ([]string, error) {
	list, err := h.List()
	ids := make([]string, len(list))
	for i, r := range list {
		ids[i] = r.ID
	}
	return ids, err
}

// Get is the record of id; ok is false when it is not installed.
func (h *Home) Get(id string) (rec Record, ok bool, err error) {
	list, err := h.List()
	if err != nil {
		return Record{}, false, err
	}
	for _, r := range list {
		if r.ID == id {
			return r, true, nil
		}
	}
	return Record{}, false, nil
}

// Lookup is the record of id, or E_NOT_FOUND when it is not installed.
func (h *Home) Lookup(id string) (Record, error) {
	rec, ok, err := h.Get(id)
	if err == nil && !ok {
		err = notInstalled(id)
	}
	return rec, err
}

// Tree is the directory an installed record's files live in.
func (h *Home) Tree(r Record) string { return filepath.Join(h.dir, r.ID, "trees", r.Tree) }

// Manifest reads an installed record's manifest.
func (h *Home) Manifest(r Record) (*ext.Manifest, error) {
	data, err := os.ReadFile(filepath.Join(h.Tree(r), "manifest.json"))
	if err != nil {
		return nil, err
	}
	return ext.ParseManifest(data)
}

func (h *Home) load() ([]Record, error) {
	data, err := os.ReadFile(h.indexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var idx installed
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("install: %s: %w", h.indexPath(), err)
	}
	return idx.Extensions, nil
}

func (h *Home) save(list []Record) error {
	slices.SortFunc(list, func(a, b Record) int { return strings.Compare(a.ID, b.ID) })
	data, err := json.MarshalIndent(installed{Extensions: list}, "", "  ")
	if err != nil {
		return err
	}
	return recovery.WriteAtomic(h.indexPath(), append(data, '\n'))
}

// put replaces (or adds) r's record.
func (h *Home) put(r Record) error {
	list, err := h.load()
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(x Record) bool { return x.ID == r.ID })
	return h.save(append(list, r))
}

// refuse is an install refusal: nothing was installed.
func refuse(reason, msg, hint string) *envelope.Error {
	return envelope.New(envelope.ExtInstall, msg, hint).With("reason", reason)
}
