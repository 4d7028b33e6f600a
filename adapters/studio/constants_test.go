// SPDX-License-Identifier: Apache-2.0

package studio

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine/ext"
)

// builtinRoles are the host's built-in model roles (spec 11 §6): a
// console holding three of them in one list is keeping its own role
// catalogue instead of rendering GET /v1/admin/models' roles.
var builtinRoles = []string{"ingest", "answer", "vision", "embed"}

var (
	stringArray = regexp.MustCompile(`\[\s*'[^'\n]*'(?:\s*,\s*'[^'\n]*')+\s*,?\s*\]`)
	quoted      = regexp.MustCompile(`'([^'\n]*)'`)
	formatItem  = regexp.MustCompile(`^\.[a-z0-9]{1,8}$`)
	// joinedFormats is an accept attribute written out: '.md,.txt'.
	joinedFormats = regexp.MustCompile(`'\.[a-z0-9]{1,8}(?:\s*,\s*\.[a-z0-9]{1,8})+'`)
)

// constantLists finds, in one source, the lists of file formats or
// model roles it keeps for itself (F.218; spec 11 §7 gotcha 6).
func constantLists(src string) []string {
	var found []string
	for _, arr := range stringArray.FindAllString(src, -1) {
		var formats, roles, kinds int
		for _, m := range quoted.FindAllStringSubmatch(arr, -1) {
			switch {
			case formatItem.MatchString(m[1]):
				formats++
			case slices.Contains(builtinRoles, m[1]):
				roles++
			}
			if slices.Contains(ext.RoleKinds(), m[1]) {
				kinds++
			}
		}
		if formats >= 2 || roles >= 3 || kinds >= 3 {
			found = append(found, arr)
		}
	}
	return append(found, joinedFormats.FindAllString(src, -1)...)
}

// TestNoFormatOrRoleConstants is F.218: no console keeps its own list
// of formats or roles; each renders the host's (the ingest status's
// formats, the models route's roles, the extension listing). The
// reference's Models console, which held the role constant, and an
// upload field with its formats written out are the negative controls:
// the check must catch them.
func TestNoFormatOrRoleConstants(t *testing.T) {
	for _, control := range []string{
		`const ROLES = ['ingest', 'answer', 'vision'];`,
		`h('input', { type: 'file', accept: '.md,.txt,.pdf' })`,
		`const FORMATS = ['.md', '.pdf'];`,
		`for (const kind of ['chat', 'vision', 'transcribe']) card(kind);`,
	} {
		assert.NotEmpty(t, constantLists(control), "the check misses %s", control)
	}
	for _, fine := range []string{
		`const QUESTIONS = ['content', 'ingest', 'answer', 'access'];`, // webhook event groups, not roles
		`const TABS = ['settings', 'deliveries'];`,
	} {
		assert.Empty(t, constantLists(fine), "a list that is not formats or roles: %s", fine)
	}
	// known are deviations recorded, not excused: each must still be
	// found, so fixing one forces its line here to go.
	known := map[string]string{
		// Data's import offers the engine's built-in dataset importers
		// (F.43–F.46), not the forest's served formats: a dataset an
		// extension converts is not offered there yet.
		"web/assets/consoles/data_create.js": "IMPORTS",
	}
	srcs := sources(t)
	assert.Contains(t, srcs, "web/assets/consoles/extensions.js", "the Extensions console is checked")
	for name, src := range srcs {
		found := constantLists(src)
		if why, ok := known[name]; ok {
			assert.NotEmpty(t, found, "%s no longer keeps %s: drop it from known", name, why)
			continue
		}
		assert.Empty(t, found, "%s keeps its own list of formats or roles (F.218): %s", name, strings.Join(found, "; "))
	}
}
