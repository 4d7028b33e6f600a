// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

func TestIsIndexIsSystem(t *testing.T) {
	tests := []struct {
		id            string
		index, system bool
	}{
		{"_index", true, false},
		{"projects/_index", true, false},
		{"projects/mixerllm/_index", true, false},
		{"projects/x_index", false, false},
		{"_indexes", false, false},
		{"_meta", false, true},
		{"_meta/schema", false, true},
		{"_metadata/x", false, false},
		{"notes/_meta/x", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			assert.Equal(t, tt.index, IsIndex(tt.id))
			assert.Equal(t, tt.system, IsSystem(tt.id))
		})
	}
}

func TestParentIndexAndTrail(t *testing.T) {
	tests := []struct {
		id     string
		parent string
		trail  []string
	}{
		{"_index", "", []string{}},
		{"x", "_index", []string{"_index"}},
		{"a/_index", "_index", []string{"_index"}},
		{"a/b/_index", "a/_index", []string{"_index", "a/_index"}},
		{"a/b/c", "a/b/_index", []string{"_index", "a/_index", "a/b/_index"}},
		{"_meta/schema", "_meta/_index", []string{"_index"}},
		{"projects/mixerllm/_index", "projects/_index", []string{"_index", "projects/_index"}},
		{"projects/mixerllm/architecture", "projects/mixerllm/_index",
			[]string{"_index", "projects/_index", "projects/mixerllm/_index"}},
		{"_private/deep/note", "_private/deep/_index", []string{"_index"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			assert.Equal(t, tt.parent, ParentIndex(tt.id))
			got := Trail(tt.id)
			require.NotNil(t, got)
			assert.Equal(t, tt.trail, got)
		})
	}
}

func TestBranchDir(t *testing.T) {
	assert.Equal(t, "", BranchDir("_index"))
	assert.Equal(t, "a", BranchDir("a/_index"))
	assert.Equal(t, "a/b", BranchDir("a/b/_index"))
}

func TestNormalizeBranch(t *testing.T) {
	tests := []struct {
		name string
		want string
		code envelope.Code
	}{
		{"x", "x/_index", ""},
		{"x/", "x/_index", ""},
		{"x/_index", "x/_index", ""},
		{" /a/b/ ", "a/b/_index", ""},
		{"a/b/_index/", "a/b/_index", ""},
		{"_index", "_index", ""},
		{"", "_index", ""},
		{"/", "_index", ""},
		{"_meta", "", envelope.Schema},
		{"_meta/", "", envelope.Schema},
		{"_meta/_index", "", envelope.Schema},
		{"../x", "", envelope.NotFound},
		{"a/../../b", "", envelope.NotFound},
		{"_derived", "", envelope.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeBranch(tt.name)
			if tt.code != "" {
				require.Error(t, err)
				assert.Equal(t, tt.code, envelope.CodeOf(err))
				assert.Contains(t, err.Error(), strings.TrimSpace(tt.name))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestInScope(t *testing.T) {
	tests := []struct {
		id, scope string
		want      bool
	}{
		{"anything/at/all", "_index", true},
		{"_meta/schema", "_index", true},
		{"a/b", "a/_index", true},
		{"a/_index", "a/_index", true},
		{"a/b/c/_index", "a/_index", true},
		{"ab/c", "a/_index", false},
		{"a", "a/_index", false},
		// "_" is a SQL LIKE wildcard; here it must match only itself.
		{"aXb/c", "a_b/_index", false},
		{"a_b/c", "a_b/_index", true},
		{"people/ana", "people/ana", true},
		{"people/ana-castro", "people/ana", false},
	}
	for _, tt := range tests {
		t.Run(tt.id+" in "+tt.scope, func(t *testing.T) {
			assert.Equal(t, tt.want, InScope(tt.id, tt.scope))
		})
	}
}

// escapeForest builds a forest with an outside directory beside it and
// symlinks pointing in and out.
func escapeForest(t *testing.T) (Root, string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "forest")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, filepath.Join(dir, "notes"), outside} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	write := func(p string) { require.NoError(t, os.WriteFile(p, []byte("---\n---\n"), 0o644)) }
	write(filepath.Join(dir, "_index.md"))
	write(filepath.Join(dir, "notes", "a.md"))
	write(filepath.Join(outside, "secret.md"))
	write(filepath.Join(base, "sibling.md"))
	symlink(t, outside, filepath.Join(dir, "out"))
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "notes", "leak.md"))
	symlink(t, filepath.Join(dir, "notes"), filepath.Join(dir, "alias"))
	symlink(t, filepath.Join(base, "missing.md"), filepath.Join(dir, "notes", "dangling.md"))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "_derived", "bodies"), 0o755))
	write(filepath.Join(dir, "_derived", "bodies", "x.md"))
	symlink(t, filepath.Join(dir, "_derived"), filepath.Join(dir, "cache"))
	r, err := NewRoot(dir)
	require.NoError(t, err)
	return r, outside
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestRootPathContainment(t *testing.T) {
	r, _ := escapeForest(t)
	in := func(parts ...string) string {
		return filepath.Join(append([]string{r.Dir()}, parts...)...)
	}
	tests := []struct {
		id      string
		path    string // "" = refused
		trusted string // TrustedPath result; "" = refused
	}{
		{"notes/a", in("notes", "a.md"), in("notes", "a.md")},
		{"  /notes/a/  ", in("notes", "a.md"), in("notes", "a.md")},
		{"notes/new", in("notes", "new.md"), in("notes", "new.md")},
		{"fresh/dir/node", in("fresh", "dir", "node.md"), in("fresh", "dir", "node.md")},
		{"_index", in("_index.md"), in("_index.md")},
		{"notes/a.md", in("notes", "a.md.md"), in("notes", "a.md.md")},
		// Trimming the slashes makes an absolute path root-relative.
		{"/etc/passwd", in("etc", "passwd.md"), in("etc", "passwd.md")},
		{"..", "", ""},
		{"../x", "", ""},
		{"../sibling", "", ""},
		{"a/../../x", "", ""},
		{"notes/../notes/a", "", ""},
		{"notes/./a", "", ""},
		{"notes//a", "", ""},
		{"", "", ""},
		{"   ", "", ""},
		{"/", "", ""},
		{"notes/a\x00b", "", ""},
		{`notes\a`, "", ""},
		{`..\..\x`, "", ""},
		{"_derived/bodies/x", "", ""},
		{"x/_assets/y", "", ""},
		{".git/config", "", ""},
		// Symlinks inside the forest: the lexical form stays inside, so the
		// trusted mode accepts it; resolving shows the escape.
		{"out/secret", "", in("out", "secret.md")},
		{"notes/leak", "", in("notes", "leak.md")},
		{"out/new", "", in("out", "new.md")},
		{"notes/dangling", "", in("notes", "dangling.md")},
		{"alias/a", in("notes", "a.md"), in("alias", "a.md")},
		{"cache/bodies/x", "", in("cache", "bodies", "x.md")},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := r.Path(tt.id)
			if tt.path == "" {
				require.Error(t, err)
				assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.path, got)
			}
			got, err = r.TrustedPath(tt.id)
			if tt.trusted == "" {
				require.Error(t, err)
				assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.trusted, got)
			}
		})
	}
}

func TestRootPathEscapeMessage(t *testing.T) {
	r, _ := escapeForest(t)
	for _, id := range []string{"../x", "a/../../x", "out/secret"} {
		_, err := r.Path(id)
		require.Error(t, err)
		assert.Equal(t, "E_NOT_FOUND: id escapes forest: "+id, err.Error())
		var e *envelope.Error
		require.ErrorAs(t, err, &e)
		assert.NotEmpty(t, e.Hint)
		assert.NotContains(t, e.Message+e.Hint, r.Dir(), "no machine path on the wire")
	}
}

func TestRootFile(t *testing.T) {
	r, _ := escapeForest(t)
	in := func(parts ...string) string {
		return filepath.Join(append([]string{r.Dir()}, parts...)...)
	}
	tests := []struct {
		rel    string
		want   string // "" = refused
		escape bool
	}{
		{"notes/a.md", in("notes", "a.md"), false},
		{"sales/report.db", in("sales", "report.db"), false},
		{"notes/_assets/photo.jpg", in("notes", "_assets", "photo.jpg"), false},
		{"alias/a.md", in("notes", "a.md"), false},
		{"../sibling.md", "", true},
		{"notes/../../x", "", true},
		{"/etc/passwd", "", true},
		{"out/secret.md", "", true},
		{"notes/leak.md", "", true},
		{"notes/dangling.md", "", true},
		{"", "", false},
		{"notes//a.md", "", false},
		{`notes\a.md`, "", false},
		{"a\x00b", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			got, err := r.File(tt.rel)
			if tt.want == "" {
				require.Error(t, err)
				assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))
				if tt.escape {
					assert.Equal(t, "E_NOT_FOUND: path escapes forest: "+tt.rel, err.Error())
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRootViaSymlinkedDir(t *testing.T) {
	r, _ := escapeForest(t)
	link := filepath.Join(t.TempDir(), "forest-link")
	symlink(t, r.Dir(), link)
	r2, err := NewRoot(link)
	require.NoError(t, err)
	assert.Equal(t, r.Dir(), r2.Dir(), "the root is stored resolved")
	p, err := r2.Path("notes/a")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(r.Dir(), "notes", "a.md"), p)
	id, err := r2.IDOf(filepath.Join(link, "notes", "a.md"))
	require.NoError(t, err)
	assert.Equal(t, "notes/a", id)
}

func TestNewRootRefusesMissing(t *testing.T) {
	_, err := NewRoot(filepath.Join(t.TempDir(), "nope"))
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err = NewRoot(f)
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))

	var zero Root
	_, err = zero.Path("x")
	assert.Equal(t, envelope.Internal, envelope.CodeOf(err))
}

func TestIDOf(t *testing.T) {
	r, outside := escapeForest(t)
	tests := []struct {
		path string
		want string // "" = refused
	}{
		{filepath.Join(r.Dir(), "notes", "a.md"), "notes/a"},
		{filepath.Join(r.Dir(), "_index.md"), "_index"},
		{filepath.Join("notes", "a.md"), "notes/a"},
		{filepath.Join(r.Dir(), "notes", "a.txt"), ""},
		{filepath.Join(r.Dir(), ".md"), ""},
		{r.Dir(), ""},
		{filepath.Join(outside, "secret.md"), ""},
		{filepath.Join(r.Dir(), "..", "sibling.md"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := r.IDOf(tt.path)
			if tt.want == "" {
				assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPathIDRoundTrip(t *testing.T) {
	r, _ := escapeForest(t)
	for _, id := range []string{"_index", "notes/a", "x/y/z", "_meta/schema", "a b/ç"} {
		p, err := r.Path(id)
		require.NoError(t, err)
		got, err := r.IDOf(p)
		require.NoError(t, err)
		assert.Equal(t, id, got)
	}
}

func FuzzRootPath(f *testing.F) {
	for _, s := range []string{"notes/a", "../x", "a/../../x", "/etc/passwd", "out/secret",
		"alias/a", "notes/leak", "x\x00", `a\b`, "..", "./.", "C:/x", "//", "a/./b", "\t"} {
		f.Add(s)
	}
	base := f.TempDir()
	dir := filepath.Join(base, "forest")
	outside := filepath.Join(base, "outside")
	require.NoError(f, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
	require.NoError(f, os.MkdirAll(outside, 0o755))
	require.NoError(f, os.WriteFile(filepath.Join(outside, "secret.md"), nil, 0o644))
	if os.Symlink(outside, filepath.Join(dir, "out")) != nil ||
		os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "notes", "leak.md")) != nil ||
		os.Symlink(filepath.Join(dir, "notes"), filepath.Join(dir, "alias")) != nil {
		f.Skip("symlinks unavailable")
	}
	r, err := NewRoot(dir)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, id string) {
		for _, mode := range []func(string) (string, error){r.Path, r.TrustedPath} {
			p, err := mode(id)
			if err != nil {
				if envelope.CodeOf(err) != envelope.NotFound {
					t.Fatalf("%q: refusal %v is not E_NOT_FOUND", id, err)
				}
				continue
			}
			rel, rerr := filepath.Rel(r.Dir(), p)
			if rerr != nil || rel == "." || rel == ".." || filepath.IsAbs(rel) ||
				strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Fatalf("%q -> %q lies outside the root", id, p)
			}
			if !strings.HasSuffix(p, ".md") {
				t.Fatalf("%q -> %q is not a node file", id, p)
			}
		}
		if p, err := r.File(id); err == nil {
			if !strings.HasPrefix(p, r.Dir()+string(filepath.Separator)) {
				t.Fatalf("File(%q) -> %q lies outside the root", id, p)
			}
		} else if envelope.CodeOf(err) != envelope.NotFound {
			t.Fatalf("File(%q): refusal %v is not E_NOT_FOUND", id, err)
		}
		if p, err := r.Path(id); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				if !strings.HasPrefix(real, r.Dir()+string(filepath.Separator)) {
					t.Fatalf("%q -> %q resolves outside the root to %q", id, p, real)
				}
			}
		}
	})
}

// resolve skips the full evaluation when no component below the root is
// a link; it must give exactly what the full evaluation gives.
func TestResolveAgreesWithFullEvaluation(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "forest")
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "notes", "deep"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes", "a.md"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), nil, 0o644))
	if os.Symlink(outside, filepath.Join(dir, "out")) != nil ||
		os.Symlink(filepath.Join(dir, "notes"), filepath.Join(dir, "alias")) != nil ||
		os.Symlink(filepath.Join(dir, "notes", "a.md"), filepath.Join(dir, "notes", "b.md")) != nil ||
		os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling")) != nil {
		t.Skip("symlinks unavailable")
	}
	r, err := NewRoot(dir)
	require.NoError(t, err)
	for _, rel := range []string{
		"notes/a.md", "notes/deep/x.md", "notes/new/x.md", "new.md", "notes/a.md/below.md",
		"out/secret.md", "out/none.md", "alias/a.md", "alias/deep/x.md", "notes/b.md",
		"dangling", "dangling/x.md",
	} {
		p := filepath.Join(r.Dir(), filepath.FromSlash(rel))
		want, wantErr := r.evalLinks(p)
		got, gotErr := r.resolve(p)
		assert.Equal(t, wantErr != nil, gotErr != nil, rel)
		assert.Equal(t, want, got, rel)
	}
}

// TestIDTooLong: ids and paths a file system cannot hold are refused by
// their shape, before any file is touched (ENAMETOOLONG is no refusal).
func TestIDTooLong(t *testing.T) {
	seg := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name, id string
		want     string // "" means the id fits
	}{
		{"short", "projects/roadmap", ""},
		{"last segment at the node-name limit", "x/" + seg(252), ""},
		{"last segment one past it", "x/" + seg(253), "ends in a segment of 253 bytes, over the limit of 252"},
		{"folder segment at the limit", seg(255) + "/x", ""},
		{"folder segment past it", seg(256) + "/x", "has a segment of 256 bytes, over the limit of 255"},
		{"multibyte bytes count, not runes", "x/" + strings.Repeat("é", 127), "ends in a segment of 254 bytes"},
		{"whole id past the limit", strings.Repeat(seg(100)+"/", 11) + "x", "is 1112 bytes long, over the limit of 1024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := IDTooLong(tt.id)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
			reason, escapes := idShape(tt.id)
			assert.Equal(t, got, reason, "the shape check refuses it too")
			assert.False(t, escapes)
		})
	}
	r, err := NewRoot(t.TempDir())
	require.NoError(t, err)
	_, err = r.Path(seg(300))
	require.Error(t, err)
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "node not found")
	_, err = r.File("x/" + seg(300) + ".db")
	assert.Equal(t, envelope.NotFound, envelope.CodeOf(err), "a payload path too long names no file")
}

func TestHostPathTooLong(t *testing.T) {
	tests := []struct {
		name, dir, want string
	}{
		{"ordinary", "/srv/forests/team", ""},
		{"a folder at the limit", "/srv/" + strings.Repeat("a", 255), ""},
		{"a folder past it", "/srv/" + strings.Repeat("a", 256) + "/x", "has a folder name of 256 bytes, over the limit of 255"},
		{"a path past PATH_MAX", strings.Repeat("/"+strings.Repeat("b", 200), 21), "bytes long, over the limit of 4095"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HostPathTooLong(tt.dir)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
			assert.NotContains(t, got, "srv", "the reason never repeats the machine path")
		})
	}
}
