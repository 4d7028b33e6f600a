// SPDX-License-Identifier: Apache-2.0

package lint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

func write(t *testing.T, dir, id, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(id)+forest.NodeExt)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

// TestRunNamesListingsAndLinks: a listing of a missing node and a link to
// one are errors, an unreadable file is counted as a node, and a forest
// without a repository is said not to have been compared with HEAD.
func TestRunNamesListingsAndLinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "_index", "---\nid: _index\ntype: branch\ntitle: Root\nsummary: The root of the forest.\n"+
		"created: 2026-01-01\nupdated: 2026-01-01\n---\n# Root\n\n## Direct bananas\n\n- [[gone]] — Nothing here.\n")
	write(t, dir, "tide", "---\nid: tide\ntype: concept\ntitle: Tide\nsummary: The sea rising and falling twice a day.\n"+
		"created: 2026-01-01\nupdated: 2026-01-01\nlinks:\n  - rel: related\n    target: moon\n---\nBody.\n")
	write(t, dir, "broken", "no frontmatter\n")
	root, err := forest.NewRoot(dir)
	require.NoError(t, err)
	l := New(Config{Root: root, Repo: func() (*gitops.Repo, error) { return nil, errors.New("none") }})

	rep, err := l.Run(context.Background(), forest.DefaultDialect())
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Nodes)
	assert.Contains(t, rep.Findings, Finding{NodeID: "_index", Level: "error", Message: "lists gone, which does not exist"})
	assert.Contains(t, rep.Findings, Finding{NodeID: "tide", Level: "error", Message: `links.0.target: no node "moon"`})
	assert.Contains(t, rep.Findings, Finding{NodeID: forest.RootIndexID, Level: "warning",
		Message: "no git repository of its own: the files were not compared with HEAD"})
	assert.GreaterOrEqual(t, rep.Errors, 3)
}
