// SPDX-License-Identifier: Apache-2.0

package install

import (
	"context"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Staleness is one installed git extension compared with its source
// as the source reads now.
type Staleness struct {
	ID       string `json:"id"`
	Source   string `json:"source"`
	Ref      string `json:"ref,omitempty"` // "" = the default branch
	Tracking string `json:"tracking,omitempty"`
	Revision string `json:"revision"`         // installed
	Latest   string `json:"latest,omitempty"` // what the ref names now
	Behind   bool   `json:"behind"`
	// Error says why the source could not be asked; Behind is then false.
	Error string `json:"error,omitempty"`
}

// Outdated asks each installed git extension's source what its ref
// names now. It is the only call that reaches the network for tracking
// refs; listings never do. A source that cannot be reached is reported
// on its line, never failing the others.
func (h *Home) Outdated(ctx context.Context, trust Trust) ([]Staleness, error) {
	list, err := h.List()
	if err != nil {
		return nil, err
	}
	out := []Staleness{}
	for _, r := range list {
		if r.Revision == "" {
			continue
		}
		s := Staleness{ID: r.ID, Source: r.Source, Tracking: r.Tracking, Revision: r.Revision}
		if err := s.ask(ctx, r, trust); err != nil {
			s.Error = err.Error()
		}
		out = append(out, s)
	}
	return out, nil
}

func (s *Staleness) ask(ctx context.Context, r Record, trust Trust) error {
	source := r.Source
	if r.Kind == "index" {
		e, err := trust.lookup(ctx, r.ID)
		if err != nil {
			return err
		}
		source, s.Source = e.Source, e.Source
	}
	src, err := ParseSource(source)
	if err != nil {
		return err
	}
	if src.Kind != "git" {
		return fmt.Errorf("%s is no longer a git source", source)
	}
	s.Ref = src.Ref
	if len(src.Ref) == 40 && strings.Trim(strings.ToLower(src.Ref), "0123456789abcdef") == "" {
		s.Latest = strings.ToLower(src.Ref) // a sha never moves
		s.Behind = s.Latest != s.Revision
		return nil
	}
	latest, err := remoteRef(ctx, src)
	if err != nil {
		return err
	}
	s.Latest, s.Behind = latest, latest != s.Revision
	return nil
}

// remoteRef is the commit src's ref names at its remote: a tag peeled
// to its commit, a branch's head, or the default branch's.
func remoteRef(ctx context.Context, src Source) (string, error) {
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{src.Location}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{PeelingOption: git.AppendPeeled})
	if err != nil {
		return "", fmt.Errorf("cannot list %s: %w", src.Location, err)
	}
	by := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, r := range refs {
		by[r.Name()] = r
	}
	var names []plumbing.ReferenceName
	if src.Ref == "" {
		head, ok := by[plumbing.HEAD]
		if !ok {
			return "", fmt.Errorf("%s names no default branch", src.Location)
		}
		if head.Type() == plumbing.SymbolicReference {
			names = []plumbing.ReferenceName{head.Target()}
		} else {
			return head.Hash().String(), nil
		}
	} else {
		tag := plumbing.NewTagReferenceName(src.Ref)
		names = []plumbing.ReferenceName{tag + "^{}", tag, plumbing.NewBranchReferenceName(src.Ref)}
	}
	for _, n := range names {
		if r, ok := by[n]; ok && r.Type() == plumbing.HashReference {
			return r.Hash().String(), nil
		}
	}
	return "", fmt.Errorf("%s has no ref %q now", src.Location, src.Ref)
}
