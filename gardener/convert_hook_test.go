// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestSplitTemplate(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`pdf2md "{input}" -o "{output}"`, []string{"pdf2md", "{input}", "-o", "{output}"}},
		{`tool C:\bin\x.exe 'a b'  --flag`, []string{"tool", `C:\bin\x.exe`, "a b", "--flag"}},
		{`tool "it's" 'say "hi"'`, []string{"tool", "it's", `say "hi"`}},
		{`a"b c"d`, []string{`a"b`, `c"d`}},
		{`"abc"def`, []string{"abc", "def"}},
		{`tool ""`, []string{"tool", ""}},
		{`tool \"x\"`, []string{"tool", `\"x\"`}},
		{"  \t ", nil},
	}
	for _, tt := range tests {
		got, err := splitTemplate(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	_, err := splitTemplate(`tool "unclosed`)
	assert.Error(t, err)
}

// hookScript writes a shell script the hook runs with sh.
func hookScript(t *testing.T, dir, body string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not available")
	}
	return writeSource(t, dir, "hook.sh", []byte(body))
}

func TestHookConverter(t *testing.T) {
	dir := t.TempDir()
	src := writeSource(t, dir, "in put/annual report.pdf", []byte("%PDF-1.7 fake"))
	tests := []struct {
		name, script, title, markdown string
	}{
		{"output file", `printf '# Annual Report\n\nargs=%s in=%s\n' "$#" "$(cat "$1")" > "$2"; echo ignored`,
			"Annual Report", "# Annual Report\n\nargs=2 in=%PDF-1.7 fake\n"},
		{"stdout when no output file", `printf 'plain text from %s\n' "$(basename "$1")"`,
			"annual report", "plain text from annual report.pdf\n"},
		{"invalid utf-8 replaced", `printf '# T\351st\n' > "$2"`, "T\uFFFDst", "# T\uFFFDst\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := hookScript(t, t.TempDir(), tt.script)
			h := hookConverter{ext: ".pdf", template: fmt.Sprintf(`sh '%s' "{input}" "{output}"`, script)}
			conv, err := h.Convert(context.Background(), src)
			require.NoError(t, err)
			assert.Equal(t, KindMarkdown, conv.Kind)
			assert.Equal(t, tt.title, conv.Title)
			assert.Equal(t, tt.markdown, conv.Markdown)
		})
	}
}

func TestHookConverterOutputName(t *testing.T) {
	src := writeSource(t, t.TempDir(), "deck.pptx", []byte("x"))
	script := hookScript(t, t.TempDir(), `basename "$1" > "$1"`)
	h := hookConverter{ext: ".pptx", template: "sh " + script + " {output}"}
	conv, err := h.Convert(context.Background(), src)
	require.NoError(t, err)
	assert.Equal(t, "deck.md\n", conv.Markdown, "{output} is a temporary <stem>.md")
}

func TestHookConverterFailures(t *testing.T) {
	srcDir := t.TempDir()
	src := writeSource(t, srcDir, "scan.pdf", []byte("x"))
	before := testforest.TreeDigest(t, srcDir)
	scripts := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the hook's {output} directory is made
	long := strings.Repeat("é", 300)
	tests := []struct {
		name, script  string
		timeout       time.Duration
		message, hint string
	}{
		{"non-zero exit quotes stderr", `echo "  boom: bad xref  " >&2; echo out; exit 3`, 0,
			"converter command failed for scan.pdf (exit 3)", "boom: bad xref"},
		{"stdout when stderr is empty", `echo only-stdout; exit 1`, 0, "(exit 1)", "only-stdout"},
		{"hint clipped at 200 characters", `printf '%s' "` + long + `" >&2; exit 2`, 0, "(exit 2)", strings.Repeat("é", 200)},
		{"blank output", `printf '  \n\n'`, 0, "produced no markdown for scan.pdf", "stdout"},
		{"empty output file wins over stdout", `: > "$2"; echo stdout`, 0, "produced no markdown", ""},
		{"timeout", `sleep 5`, 100 * time.Millisecond, "timed out after 100ms", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := hookScript(t, filepath.Join(scripts, strconv.Itoa(i)), tt.script)
			h := hookConverter{ext: ".pdf", template: "sh " + script + " {input} {output}", timeout: tt.timeout}
			start := time.Now()
			_, err := h.Convert(context.Background(), src)
			e := requireSchema(t, err, tt.message)
			if tt.hint != "" {
				assert.Contains(t, e.Hint, tt.hint)
			}
			if strings.HasPrefix(tt.name, "hint clipped") {
				assert.Equal(t, tt.hint, e.Hint)
			}
			assert.Less(t, time.Since(start), 4*time.Second)
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "the temporary output directory is removed")
		})
	}
	assert.Equal(t, before, testforest.TreeDigest(t, srcDir), "a failing hook leaves the source untouched")
}

func TestHookConverterTemplateErrors(t *testing.T) {
	src := writeSource(t, t.TempDir(), "a.pdf", []byte("x"))
	for tpl, frag := range map[string]string{
		`tool "{input}`:                       "is unusable",
		"   ":                                 "is unusable",
		"vine-test-no-such-program-x {input}": `could not start "vine-test-no-such-program-x"`,
	} {
		_, err := hookConverter{ext: ".pdf", template: tpl}.Convert(context.Background(), src)
		requireSchema(t, err, frag)
	}
}

func TestHookConverterCancelled(t *testing.T) {
	src := writeSource(t, t.TempDir(), "a.pdf", []byte("x"))
	script := hookScript(t, t.TempDir(), "sleep 5")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := hookConverter{ext: ".pdf", template: "sh " + script}.Convert(ctx, src)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the caller's deadline is not the hook's failure")
}
