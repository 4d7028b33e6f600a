// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"bytes"
	"compress/flate"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/testforest"
)

// honest returns the README and bundle members of a real snapshot, the
// base every crafted archive adds its bad member to.
func honest(t *testing.T) []zipMember {
	t.Helper()
	src, _ := testforest.Fixture(t)
	created := create(t, src, CreateOptions{NoPayloads: true})
	return readMembers(t, created.File)
}

func deflated(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// TestRestoreRefusesCraftedArchives is the zip-slip suite: every archive
// is refused with E_SCHEMA by the checks that run before restore creates
// anything (openSource opens files and writes none), and the target, with
// the parent directories restore would have made, is absent afterwards.
func TestRestoreRefusesCraftedArchives(t *testing.T) {
	t.Parallel()
	base := honest(t)
	payload := []byte("SQLite format 3\x00 pretend")
	with := func(extra ...zipMember) []zipMember { return append(append([]zipMember{}, base...), extra...) }
	file := func(name string) zipMember { return zipMember{name: name, data: payload, method: 8} }

	for _, tc := range []struct {
		name     string
		members  []zipMember
		maxBytes int64
		want     string // in the message
	}{
		{"parent escape", with(file("payloads/../evil.db")), 0, "payloads/../evil.db"},
		{"deep escape", with(file("payloads/finance/../../evil.db")), 0, ". or .. component"},
		{"top-level escape", with(file("../evil.db")), 0, "only forest.bundle"},
		{"encoded escape", with(file("payloads/..%2f..%2fevil.db")), 0, "percent"},
		{"encoded dots", with(file("payloads/%2e%2e/evil.db")), 0, "percent"},
		{"backslash escape", with(file(`payloads\..\evil.db`)), 0, "only forest.bundle"},
		{"backslash inside", with(file(`payloads/finance\evil.db`)), 0, "backslash"},
		{"absolute", with(file("/payloads/evil.db")), 0, "only forest.bundle"},
		{"absolute after prefix", with(file("payloads//etc/evil.db")), 0, "absolute name"},
		{"empty component", with(file("payloads/finance//evil.db")), 0, "empty component"},
		{"drive letter", with(file("payloads/C:/evil.db")), 0, "colon"},
		{"git dir negative control", with(file("payloads/.git/_assets/x")), 0, "starting with a dot"},
		{"git hook", with(file("payloads/.git/hooks/post-checkout.db")), 0, "starting with a dot"},
		{"dot component", with(file("payloads/./evil.db")), 0, ". or .. component"},
		{"hidden file", with(file("payloads/finance/.hidden.db")), 0, "starting with a dot"},
		{"derived layer", with(file("payloads/_derived/trails.db")), 0, "_derived"},
		{"control character", with(file("payloads/finance/evil\x01.db")), 0, "control"},
		{"invalid utf-8", with(file("payloads/finance/\xff.db")), 0, "UTF-8"},
		{"symlink entry", with(zipMember{name: "payloads/media/_assets/link.png", data: []byte("/etc/passwd"), mode: os.ModeSymlink | 0o777}), 0, "not a regular file"},
		{"device entry", with(zipMember{name: "payloads/media/_assets/dev.png", mode: os.ModeDevice | 0o644}), 0, "not a regular file"},
		{"duplicate payload", with(file("payloads/finance/dup.db"), file("payloads/finance/dup.db")), 0, "appears twice"},
		{"duplicate bundle", with(zipMember{name: bundleMember, data: base[1].data}), 0, "appears twice"},
		{"file under file", with(file("payloads/finance/a.db"), file("payloads/finance/a.db/b.db")), 0, "under another member"},
		{"shell script", with(file("payloads/finance/evil.sh")), 0, "not a payload"},
		{"markdown node", with(file("payloads/finance/planted.md")), 0, "not a payload"},
		{"double extension", with(file("payloads/finance/x.db.exe")), 0, "not a payload"},
		{"bare extension", with(file("payloads/finance/.db")), 0, "starting with a dot"},
		{"assets as file", with(file("payloads/media/_assets")), 0, "not a payload"},
		{"top-level extra", with(file("hooks/post-checkout")), 0, "only forest.bundle"},
		{"escaping directory entry", with(zipMember{name: "payloads/../", mode: os.ModeDir | 0o755}), 0, ". or .. component"},
		{"no bundle", []zipMember{base[0], file("payloads/finance/x.db")}, 0, "no forest.bundle"},
		{"oversize by header", with(zipMember{name: "payloads/finance/big.db", data: make([]byte, 1<<20), method: 8}),
			int64(len(base[0].data) + len(base[1].data) + 1000), "ceiling"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			archive := writeZip(t, tc.members)
			opts := RestoreOptions{MaxBytes: tc.maxBytes}
			if opts.MaxBytes == 0 {
				opts.MaxBytes = DefaultMaxBytes
			}
			_, err := openSource(archive, opts)
			e := refusal(t, err, envelope.Schema)
			assert.Contains(t, e.Message, tc.want)

			parent := t.TempDir()
			dest := filepath.Join(parent, "new", "mare-alta")
			_, err = Restore(context.Background(), archive, dest, RestoreOptions{MaxBytes: tc.maxBytes})
			refusal(t, err, envelope.Schema)
			assert.Empty(t, entries(t, parent), "nothing was created, not even the target's parent")
		})
	}
}

// TestRestoreRefusesLyingHeader: a member whose header declares 64 bytes
// but inflates to a megabyte gets no further than an honest one. It can
// only be caught while inflating, so what restore wrote so far is removed.
func TestRestoreRefusesLyingHeader(t *testing.T) {
	t.Parallel()
	base := honest(t)
	bomb := deflated(t, make([]byte, 1<<20))
	members := append(append([]zipMember{}, base...),
		zipMember{name: "payloads/finance/bomb.db", data: bomb, method: 8, raw: true, declared: 64})
	archive := writeZip(t, members)
	_, err := openSource(archive, RestoreOptions{MaxBytes: DefaultMaxBytes})
	require.NoError(t, err, "the headers alone look honest")

	parent := t.TempDir()
	_, err = Restore(context.Background(), archive, filepath.Join(parent, "new", "mare-alta"), RestoreOptions{})
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "inflates beyond the size its header declares")
	assert.Empty(t, entries(t, parent), "the scratch forest and the parents restore made are gone")
}

// TestMeterCountsInflatedBytes: the ceiling is enforced on the bytes
// actually inflated, member by member and over the whole archive,
// whatever the headers said.
func TestMeterCountsInflatedBytes(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 4096)
	for _, tc := range []struct {
		name     string
		declared uint64
		left     int64
		want     string
	}{
		{"honest", 4096, 10000, ""},
		{"member outruns its header", 100, 10000, "inflates beyond"},
		{"archive outruns the ceiling", 4096, 1000, "ceiling"},
		{"shorter than declared", 8192, 10000, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &budget{left: tc.left}
			n, err := io.Copy(io.Discard, b.reader(bytes.NewReader(data), "payloads/x.db", tc.declared, 10000))
			if tc.want == "" {
				require.NoError(t, err)
				assert.EqualValues(t, len(data), n)
				assert.Equal(t, tc.left-int64(len(data)), b.left)
				return
			}
			e := refusal(t, err, envelope.Schema)
			assert.Contains(t, e.Message, tc.want)
			assert.LessOrEqual(t, n, int64(min(tc.declared, uint64(tc.left))), "never more than allowed got through")
		})
	}
}

// TestRestoreNeverWritesThroughSymlinks: a bundle whose tree holds a
// symlink must not let a payload member land outside the forest through
// it.
func TestRestoreNeverWritesThroughSymlinks(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git binary to commit a symlink with")
	}
	src, _ := testforest.Fixture(t)
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(src, "evil")))
	for _, args := range [][]string{{"add", "evil"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "link"}} {
		out, err := exec.Command(gitBin, append([]string{"-C", src}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	members := readMembers(t, create(t, src, CreateOptions{NoPayloads: true}).File)
	members = append(members, zipMember{name: "payloads/evil/_assets/x.png", data: []byte("png"), method: 8})
	archive := writeZip(t, members)

	parent := t.TempDir()
	_, err = Restore(context.Background(), archive, filepath.Join(parent, "mare-alta"), RestoreOptions{})
	e := refusal(t, err, envelope.Schema)
	assert.Contains(t, e.Message, "symlink")
	assert.Empty(t, entries(t, outside), "nothing written through the link")
	assert.Empty(t, entries(t, parent))
}

// TestRestoreRefusesBundlesThatDoNotStandAlone covers the bundle member's
// own rules, checked before anything is created.
func TestRestoreRefusesBundlesThatDoNotStandAlone(t *testing.T) {
	t.Parallel()
	base := honest(t)
	bundle := base[1].data
	sha := string(bundle[len(bundleV2) : len(bundleV2)+40])
	pack := bundle[bytes.Index(bundle, []byte("\n\n"))+2:]
	for _, tc := range []struct {
		name   string
		bundle []byte
		want   string
	}{
		{"prerequisite", append([]byte(bundleV2+"-"+sha+" base\n"+sha+" refs/heads/main\n\n"), pack...), "prerequisites"},
		{"filter capability", append([]byte(bundleV3+"@filter=blob:none\n"+sha+" refs/heads/main\n\n"), pack...), "capability"},
		{"sha256", append([]byte(bundleV3+"@object-format=sha256\n"+sha+" refs/heads/main\n\n"), pack...), "capability"},
		{"escaping ref", append([]byte(bundleV2+sha+" refs/../../config\n\n"), pack...), "not a safe git ref"},
		{"pseudo ref", append([]byte(bundleV2+sha+" config\n\n"), pack...), "not a safe git ref"},
		{"no refs", append([]byte(bundleV2+"\n"), pack...), "names no ref"},
		{"bad sha", append([]byte(bundleV2+"xyz refs/heads/main\n\n"), pack...), "is not"},
		{"truncated header", []byte(bundleV2 + sha + " refs/heads/main\n"), "header ends"},
		{"no pack", []byte(bundleV2 + sha + " refs/heads/main\n\nnot a pack"), "no packfile"},
		{"not a bundle", []byte("# v9 git bundle\n"), "not a git bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			archive := writeZip(t, []zipMember{base[0], {name: bundleMember, data: tc.bundle}})
			parent := t.TempDir()
			_, err := Restore(context.Background(), archive, filepath.Join(parent, "new", "f"), RestoreOptions{})
			e := refusal(t, err, envelope.Schema)
			assert.Contains(t, e.Message, tc.want)
			assert.Empty(t, entries(t, parent))
		})
	}

	notForest := writeZip(t, []zipMember{base[0], {name: bundleMember, data: corruptPack(bundle)}})
	parent := t.TempDir()
	_, err := Restore(context.Background(), notForest, filepath.Join(parent, "f"), RestoreOptions{})
	refusal(t, err, envelope.Schema)
	assert.Empty(t, entries(t, parent), "a pack that fails mid-import leaves nothing")
}

// corruptPack flips bytes in the middle of a bundle's pack.
func corruptPack(bundle []byte) []byte {
	out := bytes.Clone(bundle)
	start := bytes.Index(out, []byte("PACK")) + 64
	for i := start; i < start+32 && i < len(out); i++ {
		out[i] ^= 0xff
	}
	return out
}
