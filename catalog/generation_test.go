// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGenerationSeesEveryWriter: Generation answers from memory between
// commits, so a write through another open of the file, or straight
// through SQL, must be seen by the very next read.
func TestGenerationSeesEveryWriter(t *testing.T) {
	ctx := context.Background()
	writer, path := openTest(t)
	reader, err := Open(ctx, path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer reader.Close()

	gen := func(c *Catalog) int64 {
		g, err := c.Generation(ctx)
		require.NoError(t, err)
		return g
	}
	tests := []struct {
		name  string
		write func(t *testing.T)
	}{
		{"upsert", func(t *testing.T) { require.NoError(t, writer.Upsert(ctx, note("a"))) }},
		{"another upsert", func(t *testing.T) { require.NoError(t, writer.Upsert(ctx, note("b"))) }},
		{"delete", func(t *testing.T) { require.NoError(t, writer.Delete(ctx, "a")) }},
		{"raw SQL from a third handle", func(t *testing.T) {
			db, err := sql.Open("sqlite3", "file:"+path)
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Exec(`UPDATE catalog_meta SET value = value + 10 WHERE key = 'generation'`)
			require.NoError(t, err)
		}},
	}
	for _, tt := range tests {
		before := gen(reader)
		assert.Equal(t, before, gen(reader), "%s: no write, same generation", tt.name)
		tt.write(t)
		after := gen(reader)
		assert.Greater(t, after, before, "%s: the other open sees the write", tt.name)
		assert.Equal(t, after, gen(writer), tt.name)
	}
}
