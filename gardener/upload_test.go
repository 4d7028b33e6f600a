// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

func TestUploadPlantsRefreshesAndConsumes(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	g := New(v, nil)
	staging := filepath.Join(v.Dir(), filepath.FromSlash(StagingDir))

	rep, err := g.Upload(ctx, []UploadFile{
		{Name: "minutes.md", Data: []byte("# Minutes\n\nWe agreed on the budget."), SourceURL: "https://wiki.example.org/minutes"},
		{Name: "q1/sales.csv", Data: []byte("region,units\nnorth,12\n")},
		{Name: "shot.png", Data: []byte("png bytes")},
		{Name: "broken.csv", Data: []byte("only a header\n")},
	}, "inbox")
	require.NoError(t, err)
	assert.Equal(t, []string{"inbox/minutes", "inbox/q1/sales", "inbox/shot"}, rep.Planted)
	assert.Equal(t, []string{"minutes.md", "q1/sales.csv", "shot.png"}, rep.Consumed)
	require.Len(t, rep.Errors, 1)
	assert.True(t, strings.HasPrefix(rep.Errors[0], "broken.csv: "), rep.Errors[0])
	assert.FileExists(t, filepath.Join(staging, "broken.csv"), "a failed file stays as the evidence")
	assert.NoFileExists(t, filepath.Join(staging, "minutes.md"))
	assert.NoDirExists(t, filepath.Join(staging, "q1"), "emptied staging folders go too")
	validate(t, v)

	m := node(t, v, "inbox/minutes")
	assert.Equal(t, "https://wiki.example.org/minutes", m.Origin(), "an upload's origin is its declared URL")
	assert.True(t, strings.HasSuffix(m.Body, "\n\n---\n\nSource: https://wiki.example.org/minutes\n"), m.Body)
	assert.Equal(t, "We agreed on the budget.", m.Summary(), "a URL is not scent")
	assert.Empty(t, node(t, v, "inbox/q1/sales").Origin(), "a staging path is plumbing, not provenance")

	shot := node(t, v, "inbox/shot")
	assert.Equal(t, "media", shot.Type())
	assert.Equal(t, "image", shot.PayloadType())
	assert.Regexp(t, `^_assets/[0-9a-f]{8}-shot\.png$`, shot.Payload(), "staged media is archived regardless of archive:")
	assert.FileExists(t, filepath.Join(v.Dir(), "inbox", filepath.FromSlash(shot.Payload())))

	cfg, err := LoadConfig(v.Dir())
	require.NoError(t, err)
	assert.Empty(t, cfg.SourceRoot, "an upload records nothing")

	// Re-sending a known name refreshes it; the same bytes are unchanged.
	rep, err = g.Upload(ctx, []UploadFile{
		{Name: "minutes.md", Data: []byte("# Minutes\n\nWe agreed on the budget and the date."), SourceURL: "https://wiki.example.org/minutes"},
		{Name: "q1/sales.csv", Data: []byte("region,units\nnorth,12\n")},
	}, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"inbox/minutes"}, rep.Updated)
	assert.Equal(t, []string{"inbox/q1/sales"}, rep.Unchanged)
	assert.Equal(t, []string{"minutes.md", "q1/sales.csv"}, rep.Consumed)
	body := node(t, v, "inbox/minutes").Body
	assert.Contains(t, body, "and the date")
	assert.Equal(t, 1, strings.Count(body, "Source: https://wiki.example.org/minutes"), "the provenance line is not stacked")

	// A full sync of the adopted source never walks the staging folder.
	entries, err := os.ReadDir(staging)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the failed file is left")
}

func TestUploadReferenceDegradesToCached(t *testing.T) {
	ctx := context.Background()
	v := newForest(t)
	writeFile(t, v.Dir(), ConfigFile, []byte("content: reference\n"))
	rep, err := New(v, nil).Upload(ctx, []UploadFile{{Name: "n.md", Data: []byte("# N\n\nStaged text.")}}, "")
	require.NoError(t, err)
	require.Equal(t, []string{"n"}, rep.Planted)
	n := node(t, v, "n")
	assert.Equal(t, "cached", n.Content(), "a courier file vanishes, so it cannot be referenced")
	c, err := v.Pick(ctx, "n", vine.PickOptions{})
	require.NoError(t, err)
	assert.Contains(t, c.Body, "Staged text.")
}

// TestUploadRefusesOddNames: a NUL byte in a name once read as "is
// absolute", and a name longer than the engine can stage answered
// E_INTERNAL naming fs.PathError. Each is E_SCHEMA naming the entry and
// what is wrong, before a byte is staged.
func TestUploadRefusesOddNames(t *testing.T) {
	v := newForest(t)
	g := New(v, nil)
	tests := []struct {
		name, file, want string
	}{
		{"NUL byte", "notes\x00.md", "contains the control character U+0000"},
		{"NUL byte after a slash", "q1/\x00", "contains the control character U+0000"},
		{"other control character", "a\tb.md", "contains the control character U+0009"},
		{"segment past the upload limit", strings.Repeat("a", 201) + ".md", "has a segment of 204 bytes, over the limit of 200"},
		{"folder past the upload limit", strings.Repeat("d", 256) + "/x.md", "has a segment of 256 bytes"},
		{"whole name past the id limit", strings.Repeat("e/", 520) + "x.md", "over the limit of 1024"},
		{"absolute is still absolute", "/etc/x.md", "is absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := testforest.TreeDigest(t, v.Dir())
			_, err := g.Upload(context.Background(), []UploadFile{{Name: tt.file, Data: []byte("# T\n\nText.")}}, "inbox")
			require.Error(t, err)
			assert.Equal(t, vine.ESchema, vine.CodeOf(err), "%v", err)
			assert.Contains(t, err.Error(), "files[0]")
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), strings.Repeat("a", 100), "a long name is clipped")
			assert.NoDirExists(t, filepath.Join(v.Dir(), filepath.FromSlash(StagingDir)), "nothing staged")
			assert.Equal(t, before, testforest.TreeDigest(t, v.Dir()))
		})
	}
	rep, err := g.Upload(context.Background(), []UploadFile{{Name: strings.Repeat("a", 197) + ".md",
		Data: []byte("# T\n\nText at the limit.")}}, "inbox")
	require.NoError(t, err, "a name at the limit is staged and planted")
	assert.Len(t, rep.Planted, 1)
}
