// SPDX-License-Identifier: Apache-2.0

package worker

import (
	"sync"

	"github.com/monkeyllm/vine/ext"
)

// Pool keeps one Worker per installed tree for a whole host: every
// forest that enables an extension shares its process, and a second
// load of one tree never happens (spec 11 §7, gotcha 1: a load's
// identity is the tree, never the id). An update installs a new tree,
// so it gets a new Worker; the old one is closed by Retire.
type Pool struct {
	opt Options

	mu     sync.Mutex
	byTree map[string]*Worker
}

// NewPool returns a Pool whose workers share opt (Config is per tree).
func NewPool(opt Options) *Pool {
	return &Pool{opt: opt, byTree: map[string]*Worker{}}
}

// Worker is the worker of the extension installed in tree, created on
// first use; config supplies its settings.
func (p *Pool) Worker(tree string, man *ext.Manifest, config func() map[string]any) *Worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.byTree[tree]; ok {
		return w
	}
	o := p.opt
	o.Config = config
	w := New(tree, man, o)
	p.byTree[tree] = w
	return w
}

// Started reports whether the worker of tree has a running process,
// without creating one.
func (p *Pool) Started(tree string) bool {
	p.mu.Lock()
	w, ok := p.byTree[tree]
	p.mu.Unlock()
	return ok && w.Started()
}

// Retire closes and forgets the workers of trees not in keep: what an
// update or a removal left behind.
func (p *Pool) Retire(keep map[string]bool) {
	p.mu.Lock()
	var gone []*Worker
	for tree, w := range p.byTree {
		if !keep[tree] {
			gone = append(gone, w)
			delete(p.byTree, tree)
		}
	}
	p.mu.Unlock()
	for _, w := range gone {
		w.Close()
	}
}

// Close stops every worker.
func (p *Pool) Close() {
	p.Retire(nil)
}
