// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestOddIDsAreRefusals: ids no file system can hold (a segment over 255
// bytes, a whole id over 1024) and ids with a NUL byte once answered
// E_INTERNAL naming a Go type (fs.PathError). Reads answer E_NOT_FOUND,
// plant E_SCHEMA naming the limit, and nothing in the forest changes.
func TestOddIDsAreRefusals(t *testing.T) {
	t.Parallel()
	v, dir := writableFixture(t)
	ctx := context.Background()
	seg := strings.Repeat("a", 300)
	odd := map[string]string{
		"a segment over 255 bytes":     seg,
		"a nested segment over 255":    "people/" + seg,
		"a last segment over 252":      "people/" + strings.Repeat("b", 253),
		"a whole id over 1024 bytes":   strings.Repeat(strings.Repeat("c", 200)+"/", 6) + "x",
		"a NUL byte":                   "people/a\x00b",
		"an index under a long folder": seg + "/_index",
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for what, id := range odd {
		tests := []struct {
			primitive, args string
			code            envelope.Code
		}{
			{"look", `{"id":` + q(id) + `}`, envelope.NotFound},
			{"pick", `{"id":` + q(id) + `}`, envelope.NotFound},
			{"view", `{"id":` + q(id) + `}`, envelope.NotFound},
			{"history", `{"id":` + q(id) + `}`, envelope.NotFound},
			{"move", `{"id":` + q(id) + `}`, envelope.NotFound},
			{"query", `{"id":` + q(id) + `,"sql":"SELECT 1"}`, envelope.NotFound},
			{"graft", `{"id":` + q(id) + `,"patch":{"set_frontmatter":{"title":"x"}}}`, envelope.NotFound},
			{"prune", `{"id":` + q(id) + `}`, envelope.NotFound},
			{"tend", `{"id":` + q(id) + `,"sql":"DELETE FROM t WHERE 1"}`, envelope.NotFound},
			{"transplant", `{"id":"people/lucia-andrade","new_id":` + q(id) + `}`, ""},
			{"plant", `{"node":{"id":` + q(id) + `,"type":"note","title":"T","summary":"A short valid summary.",` +
				`"parent":"people/_index"}}`, envelope.Schema},
		}
		for _, tt := range tests {
			t.Run(what+"/"+tt.primitive, func(t *testing.T) {
				testforest.Unchanged(t, dir, func() {
					_, err := v.Call(ctx, tt.primitive, []byte(tt.args))
					require.Error(t, err)
					e := AsError(tt.primitive, err)
					assert.NotEqual(t, EInternal, e.Code, "%s: %s", e.Message, ErrorDetail(err))
					if tt.code != "" {
						assert.Equal(t, tt.code, e.Code, e.Message)
					}
				})
			})
		}
	}
}

// TestLongIDRefusalsNameTheLimit: the refusal of an id too long says so,
// so the caller knows to shorten it rather than look for the node.
func TestLongIDRefusalsNameTheLimit(t *testing.T) {
	t.Parallel()
	v, _ := writableFixture(t)
	ctx := context.Background()
	long := "people/" + strings.Repeat("a", 300)

	_, err := v.Look(ctx, long, LookOptions{})
	e := refusal(t, err, envelope.NotFound)
	assert.Contains(t, e.Hint, "over the limit of 255")
	lim, _ := e.Get("limit")
	assert.Equal(t, "id_length", lim)

	_, err = v.Plant(ctx, NodeSpec{ID: long, Type: "note", Title: "T", Parent: "people/_index",
		Summary: "A short valid summary."}, PlantOptions{})
	e = refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "has a segment of 300 bytes, over the limit of 255")
	assert.Less(t, len(e.Message), 200, "the message clips the id")
	assert.Contains(t, e.Hint, "252 for the last")

	_, err = v.Look(ctx, "people/lucia-andrade", LookOptions{})
	require.NoError(t, err, "a plain id still reads")
}

// TestInitRefusesALongFolder: a forest folder no file system can create
// is E_SCHEMA naming the limit (it was E_INTERNAL errors.joinError), and
// nothing is left in its parent.
func TestInitRefusesALongFolder(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	_, err := Init(context.Background(), filepath.Join(parent, strings.Repeat("a", 300)), "T", nil)
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "folder name of 300 bytes, over the limit of 255")
	assert.NotContains(t, e.Message, parent)
	left, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, left)
}
