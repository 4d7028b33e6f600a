// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
)

func TestExtensionEnablement(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := vine.Init(ctx, dir, "Kitchen", nil)
	require.NoError(t, err)
	installed := []string{"org"}
	v, err := vine.Open(ctx, dir, &vine.Options{InstalledExtensions: func() []string { return installed }})
	require.NoError(t, err)
	defer v.Close()

	e, err := v.Extensions()
	require.NoError(t, err)
	assert.Empty(t, e.IDs(), "no file, no expectation")

	sha, err := v.EnableExtension(ctx, "org", true)
	require.NoError(t, err)
	require.NotEmpty(t, sha)
	again, err := v.EnableExtension(ctx, "org", true)
	require.NoError(t, err)
	assert.Empty(t, again, "enabling what is enabled commits nothing")
	_, err = v.EnableExtension(ctx, "whisper", false)
	require.NoError(t, err)

	e, err = v.Extensions()
	require.NoError(t, err)
	assert.Equal(t, []string{"org", "whisper"}, e.IDs())
	assert.Equal(t, []string{"org"}, e.Enabled())

	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	log, err := repo.Log(&git.LogOptions{})
	require.NoError(t, err)
	var subjects []string
	require.NoError(t, log.ForEach(func(c *object.Commit) error {
		subjects = append(subjects, strings.TrimSpace(c.Message))
		return nil
	}))
	assert.Contains(t, strings.Join(subjects, "\n"), "extensions: enable org")
	assert.Contains(t, strings.Join(subjects, "\n"), "extensions: disable whisper")

	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	var warned []string
	for _, f := range rep.Findings {
		if f.NodeID == "_meta/extensions" {
			warned = append(warned, f.Message)
		}
	}
	require.Len(t, warned, 1, "only the expected extension that is not installed")
	assert.Contains(t, warned[0], `"whisper"`)

	_, err = v.ForgetExtension(ctx, "whisper")
	require.NoError(t, err)
	e, _ = v.Extensions()
	assert.Equal(t, []string{"org"}, e.IDs())

	_, err = v.EnableExtension(ctx, "Bad ID", true)
	assert.ErrorIs(t, err, vine.ESchema)
}

func TestExtensionEnablementRefusalsLeaveTheForest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := vine.Init(ctx, dir, "Kitchen", nil)
	require.NoError(t, err)
	path := filepath.Join(dir, filepath.FromSlash(forest.ExtensionsFile))
	require.NoError(t, os.WriteFile(path, []byte("extensions:\n  org:\n    enabled: true\n    colour: red\n"), 0o644))
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer v.Close()
	_, err = v.EnableExtension(ctx, "whisper", true)
	assert.ErrorIs(t, err, vine.ESchema, "an unreadable file is refused, not rewritten")
	after, _ := os.ReadFile(path)
	assert.Equal(t, before, after)
	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	assert.Positive(t, rep.Errors)

	ro, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	_, err = ro.EnableExtension(ctx, "org", true)
	assert.ErrorIs(t, err, vine.EReadOnly)
}
