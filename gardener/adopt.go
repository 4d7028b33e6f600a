// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// SyncOptions say what a sync reconciles.
type SyncOptions struct {
	// Source is the directory to walk; "" means the recorded source_root.
	// A sync never records it.
	Source string
	// Dest is the branch for files met for the first time; "" means the
	// recorded dest. Files with a passport keep their place: sync never
	// moves a node.
	Dest string
	// Paths, when set, reconcile only these source-relative files
	// (G.8 targeted sync): a missing file with a passport is stale, one
	// without is unsupported. Without Paths the whole tree is walked and
	// every passport whose source was not met is stale.
	Paths []string
}

// begin makes a run: config, forest root, destination and the passport
// index, everything a step consults, read before the first step.
func (c core) begin(ctx context.Context, s sink, op, dest string) (*run, error) {
	cfg, err := LoadConfig(c.v.Dir())
	if err != nil {
		return nil, err
	}
	root, err := forest.NewRoot(c.v.Dir())
	if err != nil {
		return nil, err
	}
	r := &run{c: c, sink: s, op: op, cfg: cfg, forest: root, report: newReport(), planned: map[string]bool{}}
	_, r.dry = s.(drySink)
	if r.dry {
		r.report.Drafts = []Draft{}
	}
	if r.destIndex, r.destDir, err = r.resolveDest(ctx, dest); err != nil {
		return nil, err
	}
	if r.index, err = indexPassports(ctx, root, c.v.ReadLimits()); err != nil {
		return nil, err
	}
	return r, nil
}

// resolveDest normalises dest (x, x/ and x/_index name one branch; _index
// and "" the root) and checks it: an existing branch, or a missing one
// level under the root, which the first document creates. A missing
// deeper dest is refused (E_SCHEMA): which of its ancestors should exist
// is not the Gardener's guess.
func (r *run) resolveDest(ctx context.Context, dest string) (index, dir string, err error) {
	if strings.TrimSpace(dest) == "" {
		return forest.RootIndexID, "", nil
	}
	index, err = forest.NormalizeBranch(dest)
	if err != nil {
		return "", "", err
	}
	dir = forest.BranchDir(index)
	if index == forest.RootIndexID || fileExists(r.nodePath(index)) {
		return index, dir, nil
	}
	if strings.Contains(dir, "/") {
		return "", "", envelope.New(envelope.Schema,
			fmt.Sprintf("%s: parameter 'dest' names branch %s, which does not exist", r.op, index),
			"a missing dest is created only one level under the root; plant the branch first or name an existing one")
	}
	if Slugify(dir) != dir {
		return "", "", envelope.New(envelope.Schema,
			fmt.Sprintf("%s: parameter 'dest' %q is not a branch name; expected lower-case letters, digits, '.', '_' or '-'", r.op, dest),
			"name it "+Slugify(dir)+" instead")
	}
	return index, dir, nil
}

func (c core) adoptSteps(ctx context.Context, s sink, source, dest string) (*Steps, error) {
	r, err := c.begin(ctx, s, "adopt", dest)
	if err != nil {
		return nil, err
	}
	if r.src, err = resolveSource("adopt", r.forest.Dir(), source); err != nil {
		return nil, err
	}
	files, err := newWalker(r.src.root, r.cfg.Ignore).files()
	if err != nil {
		return nil, err
	}
	if !r.src.staged {
		// Recorded before the first step: an interrupted adoption is
		// finished by a bare sync.
		r.cfg.SourceRoot = r.src.root
		if r.destIndex != forest.RootIndexID {
			r.cfg.Dest = r.destDir
		}
		if err := r.sink.saveConfig(r.forest.Dir(), r.cfg); err != nil {
			return nil, fmt.Errorf("adopt: record source_root: %w", err)
		}
	}
	return newSteps(r, files, nil), nil
}

func (c core) syncSteps(ctx context.Context, s sink, opt SyncOptions) (*Steps, error) {
	cfg, err := LoadConfig(c.v.Dir())
	if err != nil {
		return nil, err
	}
	named := opt.Source
	if named == "" {
		named = cfg.SourceRoot
		if named != "" && !filepath.IsAbs(named) {
			named = filepath.Join(c.v.Dir(), named)
		}
	}
	if strings.TrimSpace(named) == "" {
		return nil, envelope.New(envelope.Schema,
			"sync: no source named and no source_root recorded in "+ConfigFile,
			"adopt a directory first, or pass the source to sync")
	}
	dest := opt.Dest
	if dest == "" {
		dest = cfg.Dest
	}
	return c.syncRun(ctx, s, "sync", named, dest, opt.Paths, nil)
}

// syncRun builds a reconciling run over the source named, either the
// whole tree or the targeted paths.
func (c core) syncRun(ctx context.Context, s sink, op, named, dest string, paths []string, urls map[string]string) (*Steps, error) {
	r, err := c.begin(ctx, s, op, dest)
	if err != nil {
		return nil, err
	}
	return r.reconcileSteps(named, paths, urls)
}

// reconcileSteps resolves the source and lists the steps: the targeted
// paths, or the walked tree followed by the stale passports.
func (r *run) reconcileSteps(named string, paths []string, urls map[string]string) (*Steps, error) {
	var err error
	if r.src, err = resolveSource(r.op, r.forest.Dir(), named); err != nil {
		return nil, err
	}
	r.urls = urls
	if len(paths) > 0 {
		var files []string
		seen := map[string]bool{}
		for _, p := range paths {
			rel, err := targetPath(r.src.root, p)
			if err != nil {
				return nil, err
			}
			if !seen[rel] {
				seen[rel] = true
				files = append(files, rel)
			}
		}
		return newSteps(r, files, nil), nil
	}
	files, err := newWalker(r.src.root, r.cfg.Ignore).files()
	if err != nil {
		return nil, err
	}
	return newSteps(r, files, r.unseen(files)), nil
}

// unseen are the passports whose source the walk did not meet: stale,
// reported and never deleted.
func (r *run) unseen(files []string) []task {
	met := make(map[string]bool, len(files))
	for _, f := range files {
		met[f] = true
	}
	var out []task
	for sp, p := range r.index {
		if !met[sp] {
			out = append(out, task{rel: sp, staleID: p.id})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}

func newSteps(r *run, files []string, stale []task) *Steps {
	tasks := make([]task, 0, len(files)+len(stale))
	for _, f := range files {
		tasks = append(tasks, task{rel: f})
	}
	return &Steps{r: r, tasks: append(tasks, stale...)}
}
