// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// Registry serves one forest or a directory of forests (C.0). In single
// mode the served root is itself a forest; in registry mode every
// subdirectory holding _index.md is one, named by its slash-separated path
// below the root (nested ids such as "clients/acme" are allowed).
//
// Forests open lazily on first use and stay open until Close; each keeps
// its own catalog, trails and writer lock, so nothing leaks across them.
// A Registry is safe for concurrent use.
type Registry struct {
	root   string
	single bool
	opts   Options

	mu   sync.Mutex
	open map[string]*Vine
}

// Mode names of a Registry.
const (
	ModeSingle   = "single"
	ModeRegistry = "registry"
)

// ForestEntry is one line of Registry.List.
type ForestEntry struct {
	ID     string `json:"id"`
	Active bool   `json:"active"`
	Locked bool   `json:"locked,omitempty"`
}

// Listing is the answer of the forests() tool.
type Listing struct {
	Forests []ForestEntry `json:"forests"`
	Mode    string        `json:"mode"`
}

// NewRegistry serves root with the given options for every forest it
// opens. root must be an existing directory.
func NewRegistry(root string, opts *Options) (*Registry, error) {
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("vine: registry root: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("vine: registry root %s is not a directory", filepath.Base(root))
	}
	return &Registry{root: abs, single: forest.IsForest(abs), opts: opts.withDefaults(),
		open: map[string]*Vine{}}, nil
}

// Mode is ModeSingle or ModeRegistry.
func (r *Registry) Mode() string {
	if r.single {
		return ModeSingle
	}
	return ModeRegistry
}

// Forest returns the open forest named id, opening it on first use. In
// single mode id may be empty and otherwise must equal the forest's
// directory name; in registry mode id is required. Unknown ids, paths
// escaping the root and directories that are not forests all answer
// E_NOT_FOUND.
func (r *Registry) Forest(ctx context.Context, id string) (*Vine, error) {
	key, dir, err := r.resolve(id)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.open[key]; ok {
		return v, nil
	}
	v, err := Open(ctx, dir, &r.opts)
	if err != nil {
		return nil, err
	}
	r.open[key] = v
	return v, nil
}

// Dir resolves a forest id to its directory without opening the forest,
// with Forest's refusals: diagnostics such as a lock probe must work
// precisely when a forest will not open.
func (r *Registry) Dir(id string) (string, error) {
	_, dir, err := r.resolve(id)
	return dir, err
}

func (r *Registry) resolve(id string) (key, dir string, err error) {
	if r.single {
		name := filepath.Base(r.root)
		if id != "" && id != name {
			return "", "", envelope.New(envelope.NotFound, "unknown forest: "+id,
				fmt.Sprintf("this server serves one forest, %q; omit forest or name it", name))
		}
		return name, r.root, nil
	}
	if id == "" {
		return "", "", envelope.New(envelope.Schema, "parameter 'forest' is required in registry mode",
			"available forests: "+strings.Join(r.ids(), ", ")+"; call forests() to list them")
	}
	dir, ok := r.contained(id)
	if !ok || !forest.IsForest(dir) {
		return "", "", envelope.New(envelope.NotFound, "unknown forest: "+id, "call forests() to list them")
	}
	rel, _ := filepath.Rel(r.root, dir)
	return filepath.ToSlash(rel), dir, nil
}

// contained resolves id below the root, refusing absolute ids, "..",
// the root itself and symlinks that lead outside.
func (r *Registry) contained(id string) (string, bool) {
	if id == "" || strings.ContainsAny(id, "\\\x00") || filepath.IsAbs(id) || strings.HasPrefix(id, "/") {
		return "", false
	}
	for _, seg := range strings.Split(id, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(r.root, filepath.FromSlash(id)))
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(r.root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return dir, true
}

// ids lists the direct children of the root that are forests, sorted.
func (r *Registry) ids() []string {
	if r.single {
		return []string{filepath.Base(r.root)}
	}
	entries, err := os.ReadDir(r.root)
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		if _, ok := r.contained(e.Name()); ok && forest.IsForest(filepath.Join(r.root, e.Name())) {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids
}

// List answers forests(): the direct child forests (or the single one),
// whether each is open here, and for writable servers whether a live
// foreign writer holds one not yet opened (probed, never opened).
func (r *Registry) List() Listing {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := Listing{Forests: []ForestEntry{}, Mode: r.Mode()}
	for _, id := range r.ids() {
		e := ForestEntry{ID: id}
		_, e.Active = r.open[id]
		if !e.Active && !r.opts.ReadOnly {
			dir := r.root
			if !r.single {
				dir = filepath.Join(r.root, id)
			}
			if p, err := forest.ProbeLock(dir); err == nil && p.State == "held" {
				e.Locked = true
			}
		}
		out.Forests = append(out.Forests, e)
	}
	return out
}

// forestName is what a new forest's id may be (J.7): checked as a name
// before it is a path, so it can never name a separator or a relative
// segment.
var forestName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// Create makes a new, empty forest named id below the root, exactly as
// Init does (J.7). Only a registry serves more than one forest: single
// mode, a read-only registry, an id that is not a plain name, and an id
// already in use (never adopted: matching a name must not hand over
// someone's forest) are refused with E_SCHEMA or E_READONLY. On failure
// nothing is left behind.
func (r *Registry) Create(ctx context.Context, id, title string, opts *InitOptions) (*InitResult, error) {
	switch {
	case r.single:
		return nil, envelope.New(envelope.Schema, "this server serves a single forest; forests are created in registry mode",
			"serve a directory of forests (vine serve --forests DIR) to create them over the API")
	case r.opts.ReadOnly:
		return nil, envelope.New(envelope.ReadOnly, "this server serves read-only forests",
			"restart it writable to create forests")
	case !forestName.MatchString(id):
		return nil, envelope.New(envelope.Schema, "forest id must be a plain name: "+strconv.Quote(id),
			"lowercase letters, digits, '-' and '_', starting with a letter or digit, at most 63 characters")
	case strings.TrimSpace(title) == "":
		return nil, envelope.New(envelope.Schema, "title is required", "name the forest, e.g. {\"id\":\"ops\",\"title\":\"Operations\"}")
	}
	dir := filepath.Join(r.root, id)
	if _, err := os.Lstat(dir); err == nil {
		return nil, envelope.New(envelope.Schema, "forest already exists: "+id,
			"choose another id; an existing directory is never adopted")
	}
	return Init(ctx, dir, title, opts)
}

// Close closes every forest the registry opened.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for id, v := range r.open {
		errs = append(errs, v.Close())
		delete(r.open, id)
	}
	return errors.Join(errs...)
}
