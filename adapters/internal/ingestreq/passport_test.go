// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"strings"
	"testing"

	"github.com/monkeyllm/vine"
)

// TestPassportShape (J.8.4): a passport sent with the bytes is an object
// of the known fields, each of its type; anything else refuses the call
// with E_SCHEMA naming the entry, before anything is staged.
func TestPassportShape(t *testing.T) {
	entry := func(passport string) []byte {
		return []byte(`{"files":[{"name":"a.md","text":"# A"},{"name":"b.md","text":"# B","passport":` + passport + `}]}`)
	}
	req, err := Decode(Signature(false, true), entry(`{"title":"B","summary":"The B file.","tags":["x"],"aliases":["bee"],`+
		`"links":[{"target":"ops/a","rel":"related-to","note":"n"}],"notes":"Checked."}`))
	if err != nil {
		t.Fatal(err)
	}
	p := req.Files[1].Passport
	if req.Files[0].Passport != nil || p == nil || p.Title != "B" || p.Links[0].Target != "ops/a" || p.Notes != "Checked." {
		t.Fatalf("decoded %+v", p)
	}
	if req, err := Decode(Signature(false, true), entry(`null`)); err != nil || req.Files[1].Passport != nil {
		t.Fatalf("a null passport is none: %v", err)
	}
	for _, bad := range []string{`"x"`, `[]`, `{"colour":"red"}`, `{"title":""}`, `{"title":7}`, `{"summary":"  "}`,
		`{"notes":""}`, `{"tags":"x"}`, `{"tags":[1]}`, `{"aliases":[null]}`, `{"links":{}}`, `{"links":["ops/a"]}`,
		`{"links":[{"target":"ops/a","weight":2}]}`, `{"links":[{"target":3}]}`} {
		_, err := Decode(Signature(false, true), entry(bad))
		if vine.CodeOf(err) != vine.ESchema || !strings.Contains(err.Error(), "files[1] passport") {
			t.Errorf("passport %s: %v", bad, err)
		}
	}
}
