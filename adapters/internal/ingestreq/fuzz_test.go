// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"testing"

	"github.com/monkeyllm/vine"
)

// FuzzDecodeIngest: any body is either a refusal with a code or a
// request whose mode is one of three and whose files carry bytes.
func FuzzDecodeIngest(f *testing.F) {
	f.Add([]byte(`{"files":[{"name":"a.md","text":"# A"}],"dest":"x","wait":true}`))
	f.Add([]byte(`{"files":[{"name":"a.bin","b64":"AAEC"}]}`))
	f.Add([]byte(`{"mode":"adopt","path":"/srv/docs"}`))
	f.Add([]byte(`{"mode":"sync","path":"sub/dir"}`))
	f.Add([]byte(`{"files":[{"name":"a","text":"x","b64":"eA=="}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := Decode(Signature(false, true), body)
		if err != nil {
			if vine.CodeOf(err) == "" {
				t.Fatalf("a refusal without a code: %v", err)
			}
			return
		}
		switch req.Mode {
		case ModeUpload:
			if req.Files == nil {
				t.Fatal("an upload without files passed")
			}
		case ModeAdopt:
			if req.Path == "" {
				t.Fatal("an adopt without a path passed")
			}
		case ModeSync:
		case ModeCompose:
			if len(req.Files) != 1 {
				t.Fatal("a compose without its one document passed")
			}
		default:
			t.Fatalf("mode %q passed", req.Mode)
		}
	})
}
