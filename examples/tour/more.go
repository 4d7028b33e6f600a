// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/canopy"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/ranger"
	"github.com/monkeyllm/vine/snapshot"
)

// scopedKey shows a forest through a policy: what the key cannot see
// answers exactly as what does not exist.
func scopedKey(ctx context.Context, v *vine.Vine) error {
	step("Scoped: a key that sees projects/ but not projects/tidewatch/")
	sc, err := v.Scoped(vine.Policy{Allow: []string{"projects/"}, Deny: []string{"projects/tidewatch/"},
		Caps: []vine.Capability{vine.CapRead}})
	if err != nil {
		return err
	}
	for _, c := range []call{
		{"locate", `{"query": "tidewatch buoys and the lighthouse beacons", "k": 3}`},
		{"look", `{"id": "projects/tidewatch/design"}`},
		{"look", `{"id": "projects/no-such-node"}`},
		{"plant", `{"node": {"id": "projects/x", "type": "note", "title": "X", "summary": "Refused: no write capability.", "parent": "projects/_index"}}`},
	} {
		fmt.Printf("-- %s %s\n", c.name, c.args)
		out, err := sc.Call(ctx, c.name, []byte(c.args))
		if err != nil {
			fmt.Println(string(vine.AsError(c.name, err).Body()))
			continue
		}
		show(out)
	}
	return nil
}

// adoptTree ingests a small document tree with the Gardener.
func adoptTree(ctx context.Context, v *vine.Vine, tmp string) error {
	step("Gardener: adopt a folder of documents (one commit each)")
	src := filepath.Join(tmp, "inbox")
	files := map[string]string{
		"minutes/2026-11-assembly.md": "# Assembly of November 2026\n\nThe assembly approved the second ice plant and the winter quota.\n",
		"minutes/notes.txt":           "Harbour office notes: the crane is serviced every March.\n",
		"catch/catch-2026.csv":        "month,species,kg\n2026-10,sardine,1200\n2026-11,sardine,980\n",
	}
	for name, text := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	rep, err := gardener.New(v, nil).Adopt(ctx, src, "library")
	if err != nil {
		return err
	}
	show(map[string]any{"planted": rep.Planted, "branches": rep.Branches, "errors": rep.Errors})
	return nil
}

// health runs the Ranger's read-only report.
func health(ctx context.Context, v *vine.Vine) error {
	step("Ranger: the health report (read-only)")
	r, err := ranger.New(v, ranger.WithoutGC())
	if err != nil {
		return err
	}
	h, err := r.Health(ctx)
	if err != nil {
		return err
	}
	show(map[string]any{"lint": h.Lint, "orphans": len(h.Orphans), "broken_wikilinks": len(h.BrokenWikilinks),
		"needs_description": h.NeedsDescription, "missing_payloads": h.MissingPayloads})
	return nil
}

// vectors binds the deterministic hash embedder, builds the vector index
// and asks a hybrid locate. A real deployment binds a llama.cpp embedder.
func vectors(ctx context.Context, v *vine.Vine) error {
	step("Canopy: build the vector index with the hash embedder, then a hybrid locate")
	v.SetEmbedder(canopy.NewHash("tour-hash", 64))
	built, err := v.CanopyBuild(ctx)
	if err != nil {
		return err
	}
	show(built)
	out, err := v.Call(ctx, "locate", []byte(`{"query": "night safety for small boats", "k": 3, "hybrid": true}`))
	if err != nil {
		return err
	}
	show(out)
	return nil
}

// travel snapshots the forest to one file and restores it elsewhere.
func travel(ctx context.Context, dir, tmp string) error {
	step("Snapshot: the whole forest as one .forest file, restored elsewhere")
	made, err := snapshot.Create(ctx, dir, snapshot.CreateOptions{OutDir: tmp})
	if err != nil {
		return err
	}
	back, err := snapshot.Restore(ctx, made.File, filepath.Join(tmp, "restored"), snapshot.RestoreOptions{})
	if err != nil {
		return err
	}
	show(map[string]any{"file": filepath.Base(made.File), "payloads": made.Payloads,
		"restored_nodes": back.Nodes, "payloads_missing": back.PayloadsMissing})
	return nil
}
