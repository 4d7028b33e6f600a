// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"math"
	"os"
	"strings"

	"github.com/monkeyllm/vine/forest"
)

// passport is what the reconciler knows of an ingested node: the forest
// is the sync state, so this comes from frontmatter, never a side file.
type passport struct {
	id      string
	hash    string
	size    int64
	mtimeMS int64
	hasStat bool // both source_size and source_mtime were readable
}

// indexPassports maps source_path to passport over every node of the
// forest (G.8 §10.4). When two nodes claim one source_path the first in
// walk order wins. Files are read within lim (the forest's read limits);
// unreadable ones are skipped: Validate reports them.
func indexPassports(ctx context.Context, root forest.Root, lim forest.ReadLimits) (map[string]passport, error) {
	out := map[string]passport{}
	_, err := root.Walk(func(id, p string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		yamlBlock, _, err := forest.Split(id, data)
		if err != nil || !strings.Contains(yamlBlock, "source_path") {
			return nil // the cheap test spares parsing every hand-written node
		}
		n, err := forest.ParseWithin(id, data, lim)
		if err != nil {
			return nil
		}
		if sp := n.Front.String("source_path"); sp != "" {
			if _, dup := out[sp]; !dup {
				out[sp] = passportOf(n)
			}
		}
		return nil
	})
	return out, err
}

func passportOf(n *forest.Node) passport {
	p := passport{id: n.ID, hash: n.Front.String("source_hash")}
	size, okSize := number(n.Front, "source_size")
	mtime, okTime := number(n.Front, "source_mtime")
	if okSize && okTime {
		p.size, p.mtimeMS, p.hasStat = int64(size), int64(math.Round(mtime*1000)), true
	}
	return p
}

// number reads a numeric frontmatter value however YAML typed it.
func number(fm *forest.Frontmatter, key string) (float64, bool) {
	v, _ := fm.Get(key)
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
