// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestRefusalsLeaveTheForestUntouched: every construction refusal is
// E_SCHEMA, comes before any write, and leaves the worktree byte-identical
// with no commit.
func TestRefusalsLeaveTheForestUntouched(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, map[string]string{"a.md": "# A\n\nText.", "sub/b.md": "# B\n\nText."})
	outside := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	writeFile(t, outside, "secret.md", []byte("# Secret"))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(src, "link.md")))
	inside := filepath.Join(v.Dir(), "docs")
	require.NoError(t, os.MkdirAll(inside, 0o755))
	g := New(v, nil)

	tests := []struct {
		name    string
		call    func() error
		mention string
	}{
		{"no source", func() error { _, err := g.AdoptSteps(ctx, "", ""); return err }, "no source named"},
		{"missing source", func() error { _, err := g.AdoptSteps(ctx, filepath.Join(src, "nope"), ""); return err }, "not found"},
		{"source is a file", func() error { _, err := g.AdoptSteps(ctx, filepath.Join(src, "a.md"), ""); return err }, "not a directory"},
		{"source contains the forest", func() error { _, err := g.AdoptSteps(ctx, filepath.Dir(v.Dir()), ""); return err }, "contains the forest"},
		{"source is the forest", func() error { _, err := g.AdoptSteps(ctx, v.Dir(), ""); return err }, "contains the forest"},
		{"source inside the forest", func() error { _, err := g.AdoptSteps(ctx, inside, ""); return err }, "inside the forest"},
		{"missing multi-segment dest", func() error { _, err := g.AdoptSteps(ctx, src, "no/such/branch"); return err }, "does not exist"},
		{"dest that is no branch name", func() error { _, err := g.AdoptSteps(ctx, src, "My Docs"); return err }, "not a branch name"},
		{"dest _meta", func() error { _, err := g.AdoptSteps(ctx, src, "_meta"); return err }, "_meta"},
		{"bare sync without a recorded root", func() error { _, err := g.SyncSteps(ctx, SyncOptions{}); return err }, "no source_root"},
		{"targeted path escaping", func() error {
			_, err := g.SyncSteps(ctx, SyncOptions{Source: src, Paths: []string{"../../etc/passwd"}})
			return err
		}, "leaves the source root"},
		{"targeted absolute path", func() error {
			_, err := g.SyncSteps(ctx, SyncOptions{Source: src, Paths: []string{"/etc/passwd"}})
			return err
		}, "is absolute"},
		{"targeted symlink out of the root", func() error {
			_, err := g.SyncSteps(ctx, SyncOptions{Source: src, Paths: []string{"link.md"}})
			return err
		}, "leaves the source root"},
		{"targeted directory", func() error {
			_, err := g.SyncSteps(ctx, SyncOptions{Source: src, Paths: []string{"sub"}})
			return err
		}, "is a directory"},
		{"upload without files", func() error { _, err := g.UploadSteps(ctx, nil, ""); return err }, "'files' is empty"},
		{"upload name escaping", func() error {
			_, err := g.UploadSteps(ctx, []UploadFile{{Name: "ok.md", Data: []byte("x")}, {Name: "../x.md"}}, "")
			return err
		}, "files[1]"},
		{"upload absolute name", func() error { _, err := g.UploadSteps(ctx, []UploadFile{{Name: `\x.md`}}, ""); return err }, "absolute"},
		{"upload bad source_url", func() error {
			_, err := g.UploadSteps(ctx, []UploadFile{{Name: "a.md", SourceURL: "ftp://x/a"}}, "")
			return err
		}, "not an http or https URL"},
		{"upload source_url with a space", func() error {
			_, err := g.UploadSteps(ctx, []UploadFile{{Name: "a.md", SourceURL: "https://x/a b"}}, "")
			return err
		}, "control or space"},
		{"upload twice the same name", func() error {
			_, err := g.UploadSteps(ctx, []UploadFile{{Name: "a.md"}, {Name: "./a.md"}}, "")
			return err
		}, "repeats files[0]"},
	}
	digest, before := testforest.TreeDigest(t, v.Dir()), head(t, v)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.Error(t, err)
			assert.Equal(t, envelope.Schema, envelope.CodeOf(err), err.Error())
			assert.Contains(t, err.Error(), tt.mention)
			assert.Equal(t, digest, testforest.TreeDigest(t, v.Dir()), "the worktree is byte-identical")
			assert.Equal(t, before, head(t, v), "no commit")
			assert.NoDirExists(t, filepath.Join(v.Dir(), StagingDir), "nothing staged before every entry is valid")
		})
	}

	t.Run("bad config", func(t *testing.T) {
		writeFile(t, v.Dir(), ConfigFile, []byte("content: everywhere\n"))
		defer os.Remove(filepath.Join(v.Dir(), ConfigFile))
		digest := testforest.TreeDigest(t, v.Dir())
		_, err := g.AdoptSteps(ctx, src, "")
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
		assert.ErrorContains(t, err, "key 'content' expects one of inline, cached, reference")
		assert.Equal(t, digest, testforest.TreeDigest(t, v.Dir()))
	})
}

func TestReadOnlyForestRefusesIngest(t *testing.T) {
	v := newForest(t)
	dir := v.Dir()
	require.NoError(t, v.Close())
	ro, err := vine.Open(context.Background(), dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	src := writeTree(t, map[string]string{"a.md": "# A"})
	_, err = New(ro, nil).Adopt(context.Background(), src, "")
	assert.Equal(t, envelope.ReadOnly, envelope.CodeOf(err))
	rep, err := NewPreview(ro, nil).Adopt(context.Background(), src, "")
	require.NoError(t, err, "a preview needs no writer")
	assert.Equal(t, []string{"a"}, rep.Planted)
}

// TestPreviewWritesNothing: a dry run steps like a real one, reports
// drafts and would-be branches, and leaves the forest byte-identical.
func TestPreviewWritesNothing(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	src := writeTree(t, smallTree)
	writeFile(t, src, "data/t.csv", []byte("a,b\n1,2\n"))
	writeFile(t, src, "media/p.png", []byte("png"))
	writeFile(t, v.Dir(), ConfigFile, []byte("content: cached\narchive: always\n"))
	digest, before := testforest.TreeDigest(t, v.Dir()), head(t, v)

	var stages []Stage
	p := NewPreview(v, &Options{OnStage: func(_ string, s Stage) { stages = append(stages, s) }})
	rep, err := p.Adopt(ctx, src, "inbox")
	require.NoError(t, err)
	assert.Equal(t, digest, testforest.TreeDigest(t, v.Dir()), "no file, config, body cache or archive written")
	assert.Equal(t, before, head(t, v), "no commit")
	assert.NotContains(t, stages, StagePlant, "a preview skips the plant stage")

	assert.Len(t, rep.Planted, 6)
	assert.Equal(t, []string{"inbox/_index", "inbox/back-end/_index", "inbox/data/_index", "inbox/handbook/_index",
		"inbox/handbook/onboarding/_index", "inbox/media/_index"}, rep.Branches, "branches it would create")
	require.Len(t, rep.Drafts, 6)
	d := rep.Drafts[0]
	assert.Equal(t, "inbox/back-end/291-provider-budget", d.ID)
	assert.Equal(t, "inbox/back-end/_index", d.Parent)
	assert.Equal(t, "note", d.Type)
	assert.Equal(t, []string{"BE-291", "back-end/291", "291"}, d.Aliases)
	assert.Equal(t, "back-end/291-provider-budget.md", d.SourcePath)

	// The same adoption for real plants what the preview drafted.
	real, err := New(v, nil).Adopt(ctx, src, "inbox")
	require.NoError(t, err)
	assert.Equal(t, rep.Planted, real.Planted)
	assert.Equal(t, rep.Branches, real.Branches)
}

// TestAdoptedGrantIsNotOnTheWire: a wire plant cannot carry the adopted
// grant, at the top or inside a node, and the C.7.1 counts hold for it,
// while the Gardener adopts a workbook with more sheets than a wire plant
// may declare.
func TestAdoptedGrantIsNotOnTheWire(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	digest := testforest.TreeDigest(t, v.Dir())
	node := `{"id": "x", "type": "note", "title": "X", "summary": "A node planted from the wire.", "parent": "_index"%s}`

	_, err := v.Call(ctx, "plant", fmt.Appendf(nil, `{"adopted": true, "node": `+node+`}`, ""))
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.ErrorContains(t, err, "adopted")
	_, err = v.Call(ctx, "plant", fmt.Appendf(nil, `{"node": `+node+`}`, `, "adopted": true`))
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.ErrorContains(t, err, "node.adopted is not a plant parameter")
	_, err = v.Call(ctx, "plant", fmt.Appendf(nil, `{"node": [`+node+`]}`, `, "adopted": false`))
	assert.ErrorContains(t, err, "node[0].adopted")

	tables := ""
	for i := range 11 {
		tables += fmt.Sprintf(`, "t%d": {"columns": {"a": "TEXT"}}`, i)
	}
	wide := `{"node": {"id": "d", "type": "dataset", "title": "D", "summary": "Eleven tables from the wire.", "parent": "_index", "schema": {` + tables[2:] + `}}}`
	_, err = v.Call(ctx, "plant", []byte(wide))
	assert.ErrorContains(t, err, "11 tables, at most 10", "the wire keeps the counts")
	assert.Equal(t, digest, testforest.TreeDigest(t, v.Dir()))

	// The Gardener's plant is adopted: a 60-column CSV is no refusal.
	header, row := "", ""
	for i := range 60 {
		header += fmt.Sprintf(",c%d", i)
		row += fmt.Sprintf(",%d", i)
	}
	src := writeTree(t, map[string]string{"wide.csv": header[1:] + "\n" + row[1:] + "\n"})
	rep, err := New(v, nil).Adopt(ctx, src, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"wide"}, rep.Planted)
	assert.Empty(t, rep.Errors)
}
