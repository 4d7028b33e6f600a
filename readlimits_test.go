// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
)

// TestReadLimitsOnEveryReadPath: a node file past a read limit is skipped
// by reindex, reported by validate, and refused E_FRONTMATTER naming the
// limit by look and pick (it is in scope: the refusal hides nothing); a
// write that would leave such a file is refused. Options.ReadLimits sets
// the limits; the defaults read the same file.
func TestReadLimitsOnEveryReadPath(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "f")
	_, err := Init(ctx, dir, "Limits", nil)
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("---\nid: wide\ntype: note\ntitle: Wide\nsummary: A node with more links than the reader allows.\n" +
		"created: 2026-01-01\nupdated: 2026-01-01\nlinks:\n")
	for i := range 12 {
		fmt.Fprintf(&b, "  - {rel: related-to, target: t%d}\n", i)
	}
	b.WriteString("---\n\n# Wide\n\nBody.\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wide.md"), []byte(b.String()), 0o644))

	v := openT(t, dir, &Options{ReadLimits: forest.ReadLimits{Links: 10}, SkipAutoIndex: true})
	const want = "12 links: over the Links read limit of 10"
	res, err := v.Reindex(ctx)
	require.NoError(t, err)
	require.Len(t, res.Skipped, 1)
	assert.Contains(t, res.Skipped[0].Reason, want)

	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Contains(t, fmt.Sprint(rep.Findings), want)

	for name, read := range map[string]func() error{
		"look": func() error { _, err := v.Look(ctx, "wide", LookOptions{}); return err },
		"pick": func() error { _, err := v.Pick(ctx, "wide", PickOptions{}); return err },
	} {
		err := read()
		require.Error(t, err, name)
		assert.Equal(t, EFrontmatter, CodeOf(err), name)
		assert.Contains(t, err.Error(), want, name)
	}

	spec := NodeSpec{ID: "planted", Parent: "_index", Type: "note", Title: "Planted",
		Summary: "A node planted with more links than the reader allows.", Body: "# Planted"}
	for i := range 11 {
		spec.Links = append(spec.Links, Link{Rel: "related-to", Target: fmt.Sprintf("t%d", i)})
	}
	_, err = v.Plant(ctx, spec, PlantOptions{})
	require.Error(t, err, "a write never leaves a file the reader refuses")
	assert.Contains(t, err.Error(), "Links read limit of 10")
	require.NoError(t, v.Close())

	v = openT(t, dir, nil)
	_, err = v.Look(ctx, "wide", LookOptions{})
	require.NoError(t, err, "the default limits read it")
}
