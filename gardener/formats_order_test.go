// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSupportedFormatsOrder is F.213: supported_formats names, for each
// extension, the claimant tried first — hook > ext:<id> in install
// order > describer > plugin:<name> > builtin — and the list form is in
// extension order, the same bytes for the same converters.
func TestSupportedFormatsOrder(t *testing.T) {
	registerForTest(t, "legacy", okConverter("legacy", ".rec", ".tiff"))
	first := ExtensionConverter("alpha", okConverter("alpha", ".rec", ".org"))
	second := ExtensionConverter("beta", okConverter("beta", ".rec", ".org", ".tiff"))
	describer := okConverter("vision", ".rec", ".tiff", ".heic")
	tests := []struct {
		name   string
		hooks  map[string]string
		extras []Converter
		want   map[string]string
	}{
		{"install order among extensions", nil, []Converter{first, second},
			map[string]string{".rec": "ext:alpha", ".org": "ext:alpha", ".tiff": "ext:beta"}},
		{"the other install order", nil, []Converter{second, first},
			map[string]string{".rec": "ext:beta", ".org": "ext:beta", ".tiff": "ext:beta"}},
		{"a describer passed first still yields to extensions", nil, []Converter{describer, first},
			map[string]string{".rec": "ext:alpha", ".tiff": "describer", ".heic": "describer"}},
		{"a hook over everything", map[string]string{".rec": "rec2md {input}"}, []Converter{first, describer},
			map[string]string{".rec": "hook", ".org": "ext:alpha", ".tiff": "describer"}},
		{"a plugin over the built-ins", nil, nil,
			map[string]string{".rec": "plugin:legacy", ".tiff": "plugin:legacy", ".md": "builtin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SupportedFormats(tc.hooks, tc.extras)
			for ext, via := range tc.want {
				assert.Equal(t, via, got[ext], ext)
			}
			list := Formats(tc.hooks, tc.extras)
			assert.True(t, slices.IsSortedFunc(list, func(a, b Format) int {
				if a.Extension < b.Extension {
					return -1
				}
				return 1
			}), "the list is in extension order")
			assert.Equal(t, list, Formats(tc.hooks, tc.extras), "the same converters, the same list")
			assert.Len(t, list, len(got))
		})
	}
}
