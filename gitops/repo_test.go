// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func TestInitInsideOuterRepoMakesItsOwn(t *testing.T) {
	outerDir, outer := newForest(t)
	outerBefore := snap(t, outerDir, outer)

	forestDir := filepath.Join(outerDir, "forests", "acme")
	writeFile(t, forestDir, "_index.md", "---\nid: _index\n---\n")
	writeFile(t, forestDir, "_meta/schema.md", "---\nid: _meta/schema\n---\n")
	writeFile(t, forestDir, ".gitignore", gitignore)
	r, err := Init(forestDir)
	require.NoError(t, err)
	assert.Equal(t, forestDir, r.Root())
	assert.DirExists(t, filepath.Join(forestDir, ".git"))
	sha, err := r.CommitInit(context.Background(), "Acme", at(1))
	require.NoError(t, err)

	assert.Equal(t, outerBefore, snap(t, outerDir, outer), "the outer repository never sees the forest's commit")
	head, err := r.Head()
	require.NoError(t, err)
	assert.Equal(t, sha, head)
	assert.NotEqual(t, outerBefore.head, head)
	headRef, err := os.ReadFile(filepath.Join(forestDir, ".git", "HEAD"))
	require.NoError(t, err)
	assert.Equal(t, "ref: refs/heads/"+DefaultBranch+"\n", string(headRef))

	// Init on an existing top level opens it and keeps its history.
	again, err := Init(forestDir)
	require.NoError(t, err)
	head, err = again.Head()
	require.NoError(t, err)
	assert.Equal(t, sha, head)
}

func TestOpenRefusesWhatIsNotItsOwnTopLevel(t *testing.T) {
	outerDir, _ := newForest(t)
	sub := filepath.Join(outerDir, "projects")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	_, err := Open(sub)
	require.ErrorIs(t, err, ErrNotTopLevel)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "inside the repository at")

	_, err = Open(t.TempDir())
	require.ErrorIs(t, err, ErrNotTopLevel)

	r, err := Open(outerDir)
	require.NoError(t, err)
	assert.Equal(t, outerDir, r.Root())
}

func TestEnvelopeFromRefusal(t *testing.T) {
	_, err := Open(t.TempDir())
	e := envelope.From("open", err)
	assert.Equal(t, envelope.Schema, e.Code)
	assert.Contains(t, e.Message, "not the top level of its own git repository")
	assert.NotEmpty(t, e.Hint)
}
