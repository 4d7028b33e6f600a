// SPDX-License-Identifier: Apache-2.0

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine/internal/testforest"
)

// TestOddInputsAreRefusals: ids longer than a file system allows, ids
// with a NUL byte and upload names past the limit answer a refusal the
// caller can act on, never E_INTERNAL; stderr stays empty (there is no
// defect to log) and the forest is byte-identical.
func TestOddInputsAreRefusals(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	long := strings.Repeat("a", 300)
	src := sourceTree(t, map[string]string{strings.Repeat("n", 230) + ".md": "# Long\n\nA name past the limit."})
	upload := filepath.Join(src, strings.Repeat("n", 230)+".md")
	node := func(id string) string {
		return `{"node": {"id": "` + id + `", "type": "note", "title": "T", "summary": "A short valid summary.", "parent": "people/_index"}}`
	}
	tests := []struct {
		name string
		args []string
		code string
		want string
	}{
		{"look: an id segment over 255 bytes", []string{"call", "look", "--forest", dir, `{"id": "people/` + long + `"}`},
			"E_NOT_FOUND", "over the limit of 255"},
		{"pick: an id over 1024 bytes", []string{"call", "pick", "--forest", dir,
			`{"id": "` + strings.Repeat(strings.Repeat("b", 200)+"/", 6) + `x"}`}, "E_NOT_FOUND", "over the limit of 1024"},
		{"plant: an id segment over 255 bytes", []string{"call", "plant", "--forest", dir, node("people/" + long)},
			"E_SCHEMA", "over the limit of 255"},
		{"plant: a NUL byte in the id", []string{"call", "plant", "--forest", dir, node(`people/a\u0000b`)},
			"E_SCHEMA", "control character"},
		{"upload: a name past the limit", []string{"upload", upload, "--forest", dir, "--dest", "people"},
			"E_SCHEMA", "over the limit of 200"},
		{"init: a folder name over 255 bytes", []string{"init", "--forest", filepath.Join(dir, "..", long), "--title", "T"},
			"E_SCHEMA", "over the limit of 255"},
		{"snapshot: an output folder over 255 bytes", []string{"snapshot", "create", "--forest", dir, "--out",
			filepath.Join(t.TempDir(), long)}, "E_SCHEMA", "over the limit of 255"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testforest.Unchanged(t, dir, func() {
				code, out, errOut := runCLI(t, "", tt.args...)
				assert.Equal(t, exitFailure, code)
				assert.Contains(t, out, `"code":"`+tt.code+`"`)
				assert.Contains(t, out, tt.want)
				assert.NotContains(t, out, "internal")
				assert.Empty(t, errOut)
			})
		})
	}
}
