// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// RecurateReport is what a recurate changed: the nodes committed, the
// aliases and tags that did not fit, and for scent the nodes planned
// (the bill) and what curation did.
type RecurateReport struct {
	Updated        []string      `json:"updated"`
	AliasesClipped int           `json:"aliases_clipped"`
	TagsDropped    int           `json:"tags_dropped"`
	Planned        int           `json:"planned"`
	Curation       CurationStats `json:"curation"`
}

// RecurateAliases backfills derived aliases on every ingested passport
// from the forest's own files (G.8 §10.7): no source is read, no
// converter or model runs. Aliases are unioned after the existing ones,
// never removed; each changed node is one commit "recurate(aliases):
// <id>", and a second run changes nothing. origin is never derived here:
// inventing provenance is forbidden.
func (g *Gardener) RecurateAliases(ctx context.Context) (*RecurateReport, error) {
	if err := g.c.writable("recurate"); err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(g.c.v.Dir())
	if err != nil {
		return nil, err
	}
	root, err := forest.NewRoot(g.c.v.Dir())
	if err != nil {
		return nil, err
	}
	index, err := indexPassports(ctx, root, g.c.v.ReadLimits())
	if err != nil {
		return nil, err
	}
	byID := make(map[string]string, len(index))
	for sp, p := range index {
		byID[p.id] = sp
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	s := liveSink{v: g.c.v}
	rep := &RecurateReport{Updated: []string{}}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		rel := byID[id]
		derive := func(n *forest.Node) (changed bool, clipped int) {
			have := n.Aliases()
			merged, clipped := unionAliases(have, DeriveAliases(rel, n.Title(), n.Body, cfg.Aliases))
			if len(merged) > len(have) {
				n.Front.Set("aliases", anyList(merged))
				return true, clipped
			}
			return false, clipped
		}
		data, err := os.ReadFile(filepath.Join(root.Dir(), filepath.FromSlash(id)+forest.NodeExt))
		if err != nil {
			continue
		}
		n, err := forest.ParseWithin(id, data, g.c.v.ReadLimits())
		if err != nil {
			continue
		}
		changed, clipped := derive(n)
		rep.AliasesClipped += clipped
		if !changed {
			continue
		}
		err = s.rewrite(ctx, id, gitops.RecurateSubject("aliases", id), func(n *forest.Node) error {
			derive(n)
			return nil
		})
		if err != nil {
			return rep, err
		}
		rep.Updated = append(rep.Updated, id)
	}
	return rep, nil
}

// UnrecordedSources lists the staged uploads no passport records as its
// source_path (G.8 §10.7): files that never landed. It is the fact an
// operator's clear action needs, never an age or name heuristic.
// Paths are relative to the staging folder, "/"-separated, sorted.
func (g *Gardener) UnrecordedSources(ctx context.Context) ([]string, error) {
	root, err := forest.NewRoot(g.c.v.Dir())
	if err != nil {
		return nil, err
	}
	index, err := indexPassports(ctx, root, g.c.v.ReadLimits())
	if err != nil {
		return nil, err
	}
	staging := filepath.Join(root.Dir(), filepath.FromSlash(StagingDir))
	out := []string{}
	err = filepath.WalkDir(staging, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == staging {
				return filepath.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(staging, p)
		if err != nil {
			return err
		}
		if _, recorded := index[filepath.ToSlash(rel)]; !recorded {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}
