// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestOddNamesAreRefusals: through REST too, an upload name with a NUL
// byte or past the length limit, and an id no file system can hold,
// answer a refusal naming what is wrong, never E_INTERNAL, and change
// nothing.
func TestOddNamesAreRefusals(t *testing.T) {
	st := newStation(t, nil)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	long := strings.Repeat("a", 300)
	cases := []struct {
		name, primitive, body string
		status                int
		code                  vine.Code
		message               string
	}{
		{"upload name with a NUL byte", "ingest", `{"files":[{"name":` + q("notes\x00.md") + `,"text":"x"}],"wait":true}`,
			http.StatusBadRequest, vine.ESchema, "control character U+0000"},
		{"upload name past the limit", "ingest", `{"files":[{"name":` + q(long+".md") + `,"text":"x"}],"wait":true}`,
			http.StatusBadRequest, vine.ESchema, "over the limit of 200"},
		{"look of an id past the limit", "look", `{"id":` + q("people/"+long) + `}`,
			http.StatusNotFound, vine.ENotFound, "node not found"},
		{"plant of an id past the limit", "plant", `{"node":{"id":` + q("people/"+long) + `,"type":"note","title":"T",` +
			`"summary":"A short valid summary.","parent":"people/_index"}}`, http.StatusBadRequest, vine.ESchema, "over the limit of 255"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testforest.Unchanged(t, st.dir, func() {
				e := envelope(t, st.post(keyFull, c.primitive, c.body), c.status, c.code)
				assert.Contains(t, e["message"], c.message)
			})
		})
	}
}
