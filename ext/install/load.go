// SPDX-License-Identifier: Apache-2.0

package install

import (
	"fmt"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/forest"
)

// LoadError is an extension that could not be loaded, named with its
// envelope: one broken extension never stops the others (gotcha 8).
type LoadError struct {
	ID  string
	Err *envelope.Error
}

// Load returns the workers, from pool, of the installed extensions among
// ids, in install order (the precedence of converters among
// extensions); ids not installed are skipped (the forest expects them,
// validate names them). Workers of trees no longer installed are
// retired from the pool.
func (h *Home) Load(pool *worker.Pool, ids []string) ([]*worker.Worker, []LoadError) {
	list, err := h.List()
	if err != nil {
		return nil, []LoadError{{Err: envelope.New(envelope.ExtLoad, "the install home cannot be read: "+err.Error(), "")}}
	}
	keep := map[string]bool{}
	for _, r := range list {
		keep[h.Tree(r)] = true
	}
	pool.Retire(keep)
	slices.SortStableFunc(list, func(a, b Record) int { return a.InstalledAt.Compare(b.InstalledAt) })
	var out []*worker.Worker
	var errs []LoadError
	for _, r := range list {
		if !slices.Contains(ids, r.ID) {
			continue
		}
		m, err := h.Manifest(r)
		if err != nil {
			errs = append(errs, LoadError{r.ID, envelope.New(envelope.ExtLoad, "extension "+r.ID+": "+err.Error(), "reinstall it")})
			continue
		}
		id := r.ID
		out = append(out, pool.Worker(h.Tree(r), m, func() map[string]any { cfg, _ := h.Config(id); return cfg }))
	}
	return out, errs
}

// CheckEnablement refuses a forest's _meta/extensions.yaml that carries
// a setting an installed extension declares secret: a secret must never
// sit in a versioned file (F.188). The refusal names every such field.
func (h *Home) CheckEnablement(en *forest.Enablement) error {
	var bad []string
	for _, id := range en.IDs() {
		cfg := en.Extensions[id].Config
		if len(cfg) == 0 {
			continue
		}
		rec, ok, err := h.Get(id)
		if err != nil || !ok {
			continue
		}
		m, err := h.Manifest(rec)
		if err != nil {
			continue
		}
		for key := range cfg {
			if f, declared := m.Config[key]; declared && f.Secret {
				bad = append(bad, id+"."+key)
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return envelope.New(envelope.Schema, fmt.Sprintf("%s carries secret settings: %s", forest.ExtensionsFile, strings.Join(bad, ", ")),
		"remove them from the file (and its history) and set them on the host: vine ext config, or the Station's extension settings").
		With("fields", bad)
}
