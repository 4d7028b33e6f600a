// SPDX-License-Identifier: Apache-2.0

package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/monkeyllm/vine/adapters/record"
)

func TestDigest(t *testing.T) {
	long := strings.Repeat("x", 81)
	at80 := strings.Repeat("é", 80)
	cases := []struct {
		name, primitive, raw, want string
	}{
		{"no body", "look", ``, `{}`},
		{"empty object", "look", `{}`, `{}`},
		{"not an object", "look", `[1,2]`, `{}`},
		{"bad JSON", "look", `{"id":`, `{}`},
		{"string kept bare", "look", `{"id":"concepts/tide"}`, `{"id":"concepts/tide"}`},
		{"numbers and booleans as JSON", "locate", `{"k":5,"hybrid":true,"query":"tide"}`,
			`{"hybrid":"true","k":"5","query":"tide"}`},
		{"list compacted", "look", `{"id": ["a", "b"]}`, `{"id":"[\"a\",\"b\"]"}`},
		{"80 runes kept", "locate", `{"query":"` + at80 + `"}`, `{"query":"` + at80 + `"}`},
		{"81 chars clipped", "locate", `{"query":"` + long + `"}`, `{"query":"<81 chars>"}`},
		{"null is absent", "locate", `{"query":"q","k":null}`, `{"query":"q"}`},
		{"plant node withheld however short", "plant", `{"node":{"id":"a","body":"hi"}}`, `{"node":"<22 chars>"}`},
		{"graft patch withheld", "graft", `{"id":"a","patch":{"body":"x"}}`, `{"id":"a","patch":"<12 chars>"}`},
		{"ingest files withheld", "ingest", `{"mode":"upload","files":[{"name":"a","text":"b"}]}`,
			`{"files":"<25 chars>","mode":"upload"}`},
		{"tend sql withheld", "tend", `{"id":"d","sql":"DELETE FROM t"}`, `{"id":"d","sql":"<13 chars>"}`},
		{"query sql kept", "query", `{"id":"d","sql":"SELECT 1"}`, `{"id":"d","sql":"SELECT 1"}`},
		{"secret names withheld", "x", `{"password":"hunter2hunter2","api_key":"mk_abc"}`,
			`{"api_key":"<6 chars>","password":"<14 chars>"}`},
		{"a long key is clipped too", "look", `{"` + long + `":1}`, `{"<81 chars>":"1"}`},
		{"html characters unescaped", "locate", `{"query":"<a&b>"}`, `{"query":"<a&b>"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := record.Digest(c.primitive, []byte(c.raw)).String()
			if got != c.want {
				t.Fatalf("Digest(%s, %s)\n got %s\nwant %s", c.primitive, c.raw, got, c.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("digest is not JSON: %s", got)
			}
		})
	}
}

func TestDigestBoundsArgumentCount(t *testing.T) {
	var parts []string
	for i := range 40 {
		parts = append(parts, fmt.Sprintf(`"p%02d":1`, i))
	}
	a := record.Digest("look", []byte("{"+strings.Join(parts, ",")+"}"))
	if len(a) != 33 || a["…"] != "<8 more>" {
		t.Fatalf("got %d args, more=%q", len(a), a["…"])
	}
}

func TestArgsWith(t *testing.T) {
	a := record.Digest("ingest", []byte(`{"mode":"upload"}`))
	b := a.With("job", "job-1")
	if a.String() != `{"mode":"upload"}` || b.String() != `{"job":"job-1","mode":"upload"}` {
		t.Fatalf("a=%s b=%s", a, b)
	}
}

func TestDigestValues(t *testing.T) {
	got := record.DigestValues("admin.key.issue", map[string]any{"target": "ana", "expires_in_days": 90, "api_key": "mk_x"})
	if want := `{"api_key":"<4 chars>","expires_in_days":"90","target":"ana"}`; got.String() != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestCommitOf(t *testing.T) {
	sha := "abc123"
	type plain struct {
		Commit string `json:"commit,omitempty"`
	}
	type ptr struct {
		Commit *string `json:"commit"`
	}
	type other struct {
		Commit string `json:"sha"`
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, ""},
		{"string field", plain{sha}, sha},
		{"pointer to result", &plain{sha}, sha},
		{"pointer field set", &ptr{&sha}, sha},
		{"pointer field nil", &ptr{}, ""},
		{"another tag", other{sha}, ""},
		{"not a struct", map[string]string{"commit": sha}, ""},
		{"nil pointer", (*plain)(nil), ""},
	}
	for _, c := range cases {
		if got := record.CommitOf(c.v); got != c.want {
			t.Errorf("%s: got %q want %q", c.name, got, c.want)
		}
	}
}

func TestFuncAndMillis(t *testing.T) {
	var got record.Call
	var r record.Recorder = record.Func(func(_ context.Context, c record.Call) { got = c })
	r.Record(context.Background(), record.Call{Primitive: "look", MS: record.Millis(1500000)})
	if got.Primitive != "look" || *got.MS != 1.5 {
		t.Fatalf("got %+v", got)
	}
}

func ExampleDigest() {
	fmt.Println(record.Digest("plant", []byte(`{"node":{"id":"notes/a","body":"secret"},"dry_run":true}`)))
	fmt.Println(record.Digest("locate", []byte(`{"query":"`+strings.Repeat("tide ", 20)+`","k":3}`)))
	// Output:
	// {"dry_run":"true","node":"<32 chars>"}
	// {"k":"3","query":"<100 chars>"}
}
