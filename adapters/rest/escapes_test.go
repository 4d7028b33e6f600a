// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

// secret is what lies outside the forest; no answer may carry it.
const secret = "TOP-SECRET-OUTSIDE-THE-FOREST"

// plantEscapes puts a node-shaped file outside the forest and two real
// symlinks to it inside: a file link and a directory link.
func plantEscapes(t *testing.T, dir string) (outside string) {
	t.Helper()
	outside = filepath.Join(t.TempDir(), "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	node := "---\ntype: note\ntitle: Secret\nsummary: " + secret + "\n---\n\n" + secret + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte(node), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.png"), []byte(secret), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "concepts", "leak.md")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "concepts", "outdir")))
	return outside
}

// TestEscapesMatrix: REST, MCP and the library, each against "..",
// percent-encoded "..", absolute paths and real symlinks out of the
// forest, all answer the not-found envelope and read nothing outside.
func TestEscapesMatrix(t *testing.T) {
	dir, man := fixtureDir(t)
	outside := plantEscapes(t, dir)
	st := serveDir(t, dir, man, nil)
	rel, err := filepath.Rel(filepath.Join(dir, "concepts"), filepath.Join(outside, "secret"))
	require.NoError(t, err)
	ids := map[string]string{
		"dot-dot":             "../../etc/passwd",
		"dot-dot to secret":   "concepts/" + filepath.ToSlash(rel),
		"encoded dot-dot":     "..%2F..%2Fetc%2Fpasswd",
		"absolute":            "/etc/passwd",
		"absolute to secret":  filepath.Join(outside, "secret"),
		"symlinked file":      "concepts/leak",
		"symlinked directory": "concepts/outdir/secret",
	}
	for _, s := range st.surfaces(t, nil) {
		for _, key := range []string{keyFull, keyScoped} {
			for name, id := range ids {
				for _, tool := range []string{"look", "pick", "history", "move"} {
					refused, body := s.call(t, key, tool, `{"id":"`+id+`"}`)
					require.True(t, refused, "%s %s %s: %s", s.name, tool, name, body)
					assert.Equal(t, string(vine.ENotFound), refusalOf(t, body)["code"], "%s %s %s", s.name, tool, name)
					assert.NotContains(t, body, secret, "%s %s %s", s.name, tool, name)
					if !strings.Contains(id, outside) { // a caller's own id is echoed, nothing else
						assert.NotContains(t, body, outside, "no host path on the wire")
					}
				}
			}
		}
	}

	// The library's own entry point for hosts: Record through the scope.
	v, err := st.reg.Forest(context.Background(), forestID)
	require.NoError(t, err)
	for name, id := range ids {
		_, err := v.Record(context.Background(), id)
		assert.Equal(t, vine.ENotFound, vine.CodeOf(err), name)
	}

	// Ids in the URL of the byte routes, raw and percent-encoded.
	paths := []string{
		"../../../etc/passwd",
		"..%2F..%2F..%2Fetc%2Fpasswd",
		"%2e%2e/%2e%2e/etc/passwd",
		"%2Fetc%2Fpasswd",
		"/etc/passwd",
		"concepts/leak",
		"concepts/outdir/secret",
		"concepts/..%2F..%2F" + strings.TrimPrefix(filepath.ToSlash(filepath.Join(outside, "secret")), "/"),
	}
	for _, route := range []string{"payload", "export"} {
		for _, p := range paths {
			r := st.do(http.MethodGet, "/v1/forests/mare-alta/"+route+"/"+p, keyFull, "")
			e := envelope(t, r, http.StatusNotFound, vine.ENotFound)
			assert.NotContains(t, r.body, secret, "%s %s", route, p)
			assert.NotContains(t, e["message"], outside)
		}
	}
}

// TestPayloadEscapingTheForest: a passport whose payload leaves its
// node's folder is refused and nothing is read. A name that breaks the
// payload rule by itself is E_SCHEMA (the passport shows it); one that
// leaves through a symlink answers as an absent node, since only the file
// system knows where the link leads.
func TestPayloadEscapingTheForest(t *testing.T) {
	dir, man := fixtureDir(t)
	outside := plantEscapes(t, dir)
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.png"), filepath.Join(dir, "media", "_assets", "linked.png")))
	for id, payload := range map[string]string{
		"media/climb":    "../../" + filepath.Base(outside) + "/secret.png",
		"media/absolute": filepath.Join(outside, "secret.png"),
		"media/linked":   "_assets/linked.png",
	} {
		writeNode(t, dir, id, "type: media\ntitle: Escape\nsummary: A payload that leaves.\npayload: "+payload+"\npayload_type: image\n", "Body.")
	}
	st := serveDir(t, dir, man, nil)
	for _, id := range []string{"media/climb", "media/absolute"} {
		r := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/"+id, keyFull, "")
		e := envelope(t, r, http.StatusBadRequest, vine.ESchema)
		assert.Equal(t, "payload escapes its node's folder", e["message"], id)
		assert.NotContains(t, r.body, secret)
		assert.NotContains(t, r.body, outside)
	}
	linked := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/media/linked", keyFull, "")
	absent := st.do(http.MethodGet, "/v1/forests/mare-alta/payload/media/nothing-here", keyFull, "")
	envelope(t, linked, http.StatusNotFound, vine.ENotFound)
	assert.Equal(t, strings.ReplaceAll(absent.body, "nothing-here", "linked"), linked.body)
}

// writeNode writes a node file by hand, as an editor would.
func writeNode(t *testing.T, dir, id, front, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(id)+".md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("---\n"+front+"---\n\n"+body+"\n"), 0o644))
}
