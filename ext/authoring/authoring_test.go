// SPDX-License-Identifier: Apache-2.0

package authoring_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/authoring"
)

// TestDocumentIsDerived is F.203 and F.205: the schema comes from the
// manifest type, and the seams are the contracts one to one.
func TestDocumentIsDerived(t *testing.T) {
	d, err := authoring.Build("0.9.0")
	require.NoError(t, err)
	raw, err := json.Marshal(d.ManifestSchema)
	require.NoError(t, err)
	for _, field := range []string{"station_compat", "contributes", "converters", "permissions", "registers"} {
		assert.Contains(t, string(raw), `"`+field+`"`)
	}
	require.Len(t, d.Seams, len(ext.Contracts()))
	for i, c := range ext.Contracts() {
		assert.Equal(t, string(c.Seam), d.Seams[i].Seam)
		assert.Equal(t, c.Declarative, d.Seams[i].Signature == nil)
	}
	md, err := d.Markdown("")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(md, "<!-- GENERATED"))
	for _, c := range ext.Contracts() {
		assert.Contains(t, md, "`"+string(c.Seam)+"`")
	}
	assert.Contains(t, md, "not a security control")
	_, err = d.Markdown("other")
	assert.Error(t, err)
}
