// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"archive/zip"
	"bufio"
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedZip builds a small archive in memory for the fuzz corpus.
func seedZip(names ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, _ := zw.Create(n)
		io.WriteString(w, "data")
	}
	zw.Close()
	return buf.Bytes()
}

// FuzzContainer feeds arbitrary bytes to the container reader: shape
// sniffing, the member rules and the bundle header. It must never panic,
// and whatever it accepts must obey the rules it promises.
func FuzzContainer(f *testing.F) {
	sha := strings.Repeat("a", 40)
	f.Add(seedZip(readmeMember, bundleMember, "payloads/finance/x.db", "payloads/media/_assets/a.png"))
	f.Add(seedZip(bundleMember, "payloads/../x.db"))
	f.Add(seedZip(bundleMember, "payloads/.git/_assets/x"))
	f.Add(seedZip(bundleMember, bundleMember))
	f.Add([]byte(bundleV2 + sha + " HEAD\n" + sha + " refs/heads/main\n\nPACK"))
	f.Add([]byte(bundleV3 + "@object-format=sha1\n" + sha + " refs/heads/main\n\n"))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		shp, zr, err := sniffShape(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if shp == shapeBundle {
			h, err := readBundleHeader(bufio.NewReader(bytes.NewReader(data)))
			if err == nil {
				require.NotEmpty(t, h.refs)
				for _, r := range h.refs {
					require.True(t, r.name == "HEAD" || strings.HasPrefix(string(r.name), "refs/"), r.name)
					require.True(t, r.name.IsSafe(), r.name)
				}
			}
			return
		}
		p, err := inspect(zr, forestMember, limit, limit)
		if err != nil {
			return
		}
		require.LessOrEqual(t, p.declared, int64(limit))
		seen := map[string]bool{}
		for _, m := range p.payloads {
			require.Empty(t, checkPayloadPath(m.rel))
			require.True(t, filepath.IsLocal(filepath.FromSlash(m.rel)), m.rel)
			require.Equal(t, payloadPrefix+m.rel, m.f.Name)
			require.False(t, seen[m.rel], "duplicate %s", m.rel)
			seen[m.rel] = true
			require.True(t, m.f.Mode().IsRegular())
		}
	})
}

// FuzzPayloadPath checks the name rule on its own: an accepted path is
// local, hidden-free, derived-free and shaped like a payload.
func FuzzPayloadPath(f *testing.F) {
	for _, s := range []string{"finance/x.db", "media/_assets/a b.png", "../x.db", ".git/_assets/x", "a/./b.db",
		"_derived/t.db", `a\b.db`, "C:/x.db", "x.sqlite3", "a/_assets", "%2e%2e/x.db", "é/ç.sqlite"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if checkPayloadPath(rel) != "" {
			return
		}
		require.True(t, filepath.IsLocal(rel), rel)
		require.True(t, payloadShaped(rel), rel)
		require.NotContains(t, rel, `\`)
		for _, part := range strings.Split(rel, "/") {
			require.NotEmpty(t, part)
			require.False(t, strings.HasPrefix(part, "."), rel)
			require.NotEqual(t, "_derived", part)
		}
	})
}
