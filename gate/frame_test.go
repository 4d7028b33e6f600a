// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func frameOf(path string, lines int) string {
	return "PATH " + path + "\n" + strings.Repeat("x\n", lines) + "END_PATCH\n"
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		opts   *Options
		class  Class // "" means accepted
		reason string
	}{
		// 2: the sentinel line
		{"empty stream", "", nil, MissingSentinel, "last line"},
		{"no sentinel", "PATH notes/seed.txt\nseed\n", nil, MissingSentinel, ""},
		{"sentinel cut", "PATH notes/seed.txt\nseed\nEND_PAT", nil, MissingSentinel, ""},
		{"sentinel without its newline", "PATH notes/seed.txt\nseed\nEND_PATCH", nil, MissingSentinel, ""},
		{"sentinel glued to a line", "PATH notes/seed.txt\nseedEND_PATCH\n", nil, MissingSentinel, ""},
		{"blank line after the sentinel", "PATH notes/seed.txt\nseed\nEND_PATCH\n\n", nil, MissingSentinel, ""},
		{"CRLF sentinel", "PATH notes/seed.txt\r\nseed\r\nEND_PATCH\r\n", nil, MissingSentinel, ""},
		{"sentinel in the middle only", "PATH a\nEND_PATCH\nmore\n", nil, MissingSentinel, ""},
		{"sentinel and bad header: sentinel first", "notes\nEND_PAT", nil, MissingSentinel, ""},

		// 3: the header
		{"no header", "notes/seed.txt\nseed\nEND_PATCH\n", nil, BadHeader, `"PATH "`},
		{"sentinel alone", "END_PATCH\n", nil, BadHeader, "no header"},
		{"lower-case prefix", "path notes/seed.txt\nEND_PATCH\n", nil, BadHeader, ""},
		{"prefix without space", "PATHnotes/seed.txt\nEND_PATCH\n", nil, BadHeader, ""},
		{"byte order mark", "\ufeffPATH notes/seed.txt\nEND_PATCH\n", nil, BadHeader, ""},
		{"leading blank line", "\nPATH notes/seed.txt\nEND_PATCH\n", nil, BadHeader, ""},
		{"not UTF-8 in the body", "PATH notes/seed.txt\n\xff\xfe\nEND_PATCH\n", nil, BadHeader, "UTF-8"},
		{"not UTF-8 in the path", "PATH notes/\xc3.txt\nEND_PATCH\n", nil, BadHeader, "offset 11"},

		// 3: one frame per stream
		{"two frames", "PATH a.txt\nA\nEND_PATCH\nPATH b.txt\nB\nEND_PATCH\n", nil, BadFrame, "line 3 is END_PATCH"},
		{"two frames, same path", frameOf("notes/seed.txt", 1) + frameOf("notes/seed.txt", 1), nil, BadFrame, "one frame"},
		{"sentinel line inside the body", "PATH a.txt\nA\nEND_PATCH\nB\nEND_PATCH\n", nil, BadFrame, "line 3"},
		{"sentinel right after the header", "PATH a.txt\nEND_PATCH\nEND_PATCH\n", nil, BadFrame, "line 2"},
		{"second frame with a bad header", "PATH a.txt\nEND_PATCH\nb.txt\nEND_PATCH\n", nil, BadFrame, ""},
		{"two frames, the second forbidden", frameOf("a.txt", 1) + frameOf("secrets.env", 1), nil, BadFrame, ""},
		{"two frames, the second too long", frameOf("a.txt", 1) + frameOf("b.txt", 60), nil, BadFrame, ""},

		// 4: the path
		{"empty path", "PATH \nEND_PATCH\n", nil, Forbidden, "no path"},
		{"blank path", "PATH    \nEND_PATCH\n", nil, Forbidden, "no path"},
		{"absolute", frameOf("/etc/passwd", 1), nil, Forbidden, "absolute"},
		{"drive letter", frameOf("C:/x.txt", 1), nil, Forbidden, "absolute"},
		{"parent escape", frameOf("../outside.txt", 1), nil, Forbidden, "clean"},
		{"inner parent", frameOf("notes/../../x", 1), nil, Forbidden, "clean"},
		{"dot segment", frameOf("./notes/seed.txt", 1), nil, Forbidden, "clean"},
		{"double slash", frameOf("notes//seed.txt", 1), nil, Forbidden, "clean"},
		{"trailing slash", frameOf("notes/", 1), nil, Forbidden, "clean"},
		{"backslash", frameOf(`notes\..\..\x`, 1), nil, Forbidden, "backslash"},
		{"control character", frameOf("notes/\x1bseed", 1), nil, Forbidden, "control"},
		{"seed list: package-lock.json", frameOf("package-lock.json", 1), nil, Forbidden, "package-lock.json"},
		{"seed list: secrets.env", frameOf("secrets.env", 1), nil, Forbidden, "secrets.env"},
		{"seed list: nested secrets.env", frameOf("deploy/secrets.env", 1), nil, Forbidden, ""},
		{"seed list: .git/config", frameOf(".git/config", 1), nil, Forbidden, ""},
		{"case-folded secrets", frameOf("SECRETS.ENV", 1), nil, Forbidden, ""},
		{".git anywhere", frameOf("vendor/lib/.git/hooks/pre-commit", 1), nil, Forbidden, ".git/"},
		{"case-folded .git", frameOf(".GIT/HEAD", 1), nil, Forbidden, ".git/"},
		{"_derived", frameOf("_derived/catalog.db", 1), nil, Forbidden, "_derived/"},
		{"_meta", frameOf("_meta/schema.md", 1), nil, Forbidden, "_meta/"},
		{"lock card", frameOf(".vine.lock", 1), nil, Forbidden, ".vine.lock"},
		{"extra forbidden name", frameOf("go.sum", 1), &Options{Forbidden: []string{"go.sum"}}, Forbidden, "go.sum"},
		{"extra forbidden dir", frameOf("build/out.txt", 1), &Options{Forbidden: []string{"build/"}}, Forbidden, ""},
		{"allow hook vetoes", frameOf("notes/seed.txt", 1),
			&Options{Allow: func(string) error { return errors.New("only .md files") }}, Forbidden, "only .md"},
		{"forbidden beats too long", frameOf("secrets.env", 99), nil, Forbidden, ""},

		// 5: the body
		{"41 lines", frameOf("notes/seed.txt", 41), nil, TooLong, "41 lines"},
		{"custom limit", frameOf("notes/seed.txt", 3), &Options{MaxLines: 2}, TooLong, "limit of 2"},

		// 0: accepted
		{"40 lines", frameOf("notes/seed.txt", 40), nil, "", ""},
		{"empty body", "PATH notes/seed.txt\nEND_PATCH\n", nil, "", ""},
		{"path padded with spaces", "PATH   notes/seed.txt  \nx\nEND_PATCH\n", nil, "", ""},
		{"sentinel-like body lines", "PATH a.txt\nEND_PATCH \n END_PATCH\nxEND_PATCH\nEND_PATCH\r\nEND_PATCHES\nEND_PATCH\n", nil, "", ""},
		{"header with CR", "PATH notes/seed.txt\r\nx\nEND_PATCH\n", nil, "", ""},
		{"names similar to forbidden ones", frameOf("notes/git/config.md", 1), nil, "", ""},
		{"unicode path", frameOf("notas/maré-alta.md", 1), nil, "", ""},
		{"sentinel text inside the body", "PATH a.txt\nEND_PATCH is the marker\nEND_PATCH\n", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Classify([]byte(tt.stream), tt.opts)
			if tt.class == "" {
				require.NoError(t, err)
				assert.NotEmpty(t, f.Path)
				assert.Equal(t, strings.Count(string(f.Body), "\n"), f.Lines)
				return
			}
			var ref *Refusal
			require.ErrorAs(t, err, &ref)
			assert.Equal(t, tt.class, ref.Class, ref.Reason)
			assert.Contains(t, ref.Reason, tt.reason)
		})
	}
}

func TestClassifyFrameContent(t *testing.T) {
	f, err := Classify([]byte("PATH notes/seed.txt\nseed\nplus one line\nEND_PATCH\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, Frame{Path: "notes/seed.txt", Body: []byte("seed\nplus one line\n"), Lines: 2}, f)
}

func TestForbiddenNamesIsACopy(t *testing.T) {
	names := ForbiddenNames()
	require.Contains(t, names, "package-lock.json")
	names[0] = "changed"
	assert.Equal(t, "secrets.env", ForbiddenNames()[0])
}
