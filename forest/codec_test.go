// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/monkeyllm/vine/internal/interop"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

// composedLeaf is the spec's example (§2.7) of a file the reference writes.
const composedLeaf = `---
id: ops/runbook-backup
type: note
title: Backup runbook
summary: 'Nightly backup procedure for the two NAS units: schedule, retention 30 days,
  restore test. Offsite copies are in ops/offsite.'
created: '2026-07-01'
updated: '2026-07-03'
tags:
- backup
links:
- rel: part-of
  target: ops/_index
source: agent
---

# Backup runbook
`

func TestParseComposedLeaf(t *testing.T) {
	n, err := Parse("ops/runbook-backup", []byte(composedLeaf))
	require.NoError(t, err)
	assert.Equal(t, "ops/runbook-backup", n.ID)
	assert.Equal(t, []string{"id", "type", "title", "summary", "created", "updated", "tags", "links", "source"},
		n.Front.Keys())
	assert.Equal(t, "Nightly backup procedure for the two NAS units: schedule, retention 30 days, "+
		"restore test. Offsite copies are in ops/offsite.", n.Summary())
	assert.Equal(t, "2026-07-01", n.Created())
	assert.Equal(t, "# Backup runbook\n", n.Body)
	assert.Equal(t, composedLeaf, string(n.Bytes()))
}

func TestBuildComposedLeaf(t *testing.T) {
	n := &Node{
		ID: "ops/runbook-backup",
		Front: NewFrontmatter(
			Field{"id", "ops/runbook-backup"},
			Field{"type", "note"},
			Field{"title", "Backup runbook"},
			Field{"summary", "Nightly backup procedure for the two NAS units: schedule, retention 30 days, " +
				"restore test. Offsite copies are in ops/offsite."},
			Field{"created", "2026-07-01"},
			Field{"updated", "2026-07-03"},
			Field{"tags", []string{"backup"}},
			Field{"links", []any{NewFrontmatter(Field{"rel", "part-of"}, Field{"target", "ops/_index"})}},
			Field{"source", "agent"},
		),
		Body: "# Backup runbook\n\n\n  \t",
	}
	assert.Equal(t, composedLeaf, string(n.Bytes()), "trailing whitespace of the body is trimmed")
}

func TestBytesBody(t *testing.T) {
	front := NewFrontmatter(Field{"id", "x"})
	tests := []struct {
		name, body, want string
	}{
		{"empty body keeps the reference's blank lines", "", "---\nid: x\n---\n\n\n"},
		{"whitespace-only body", " \n\t\n", "---\nid: x\n---\n\n\n"},
		{"one newline added", "text", "---\nid: x\n---\n\ntext\n"},
		{"trailing blank lines trimmed", "text\n\n\n", "---\nid: x\n---\n\ntext\n"},
		{"Python whitespace trimmed, NBSP and U+001F included", "text\u00a0\u001f", "---\nid: x\n---\n\ntext\n"},
		{"leading newlines kept on write", "\n\ntext", "---\nid: x\n---\n\n\n\ntext\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string((&Node{Front: front, Body: tt.body}).Bytes()))
		})
	}
	assert.Equal(t, "---\n{}\n---\n\nb\n", string((&Node{Body: "b"}).Bytes()), "nil frontmatter")
}

func TestParseBody(t *testing.T) {
	tests := []struct {
		name, in, body string
	}{
		{"leading newlines removed", "---\nid: x\n---\n\n\n# T\n", "# T\n"},
		{"no body", "---\nid: x\n---", ""},
		{"closing line without newline", "---\nid: x\n---\n", ""},
		{"closing delimiter line may carry text", "---\nid: x\n--- trailing\nbody", "body"},
		{"first \\n--- closes, even inside the body's later rules", "---\nid: x\n---\na\n---\nb\n", "a\n---\nb\n"},
		{"CRLF read as LF", "---\r\nid: x\r\n---\r\n\r\nline one\r\nline two\r\n", "line one\nline two\n"},
		{"lone CR read as LF", "---\rid: x\r---\r\rbody\r", "body\n"},
		{"leading spaces kept", "---\nid: x\n---\n\n  indented\n", "  indented\n"},
		{"opening line may carry text", "---  \nid: x\n---\nb", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse("x", []byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.body, n.Body)
			assert.Equal(t, "x", n.Front.String("id"))
		})
	}
}

func TestParseLenient(t *testing.T) {
	in := "---\n" +
		"id: other/id\n" + // differs from the path id: lint's business
		"title: 2026\n" + // a number where a string belongs
		"created: 2026-06-01\n" + // unquoted date
		"updated: 2026-06-10T08:30:00Z\n" + // datetime
		"tags: [yes, Ação, 3]\n" + // flow style, YAML 1.1 boolean spelling
		"lang: no\n" +
		"dup: 1\n" +
		"dup: 2\n" + // duplicate key: the reference's PyYAML keeps the last value
		"anchor: &a shared\n" +
		"alias: *a\n" +
		"block: |\n  line one\n  line two\n" +
		"---\nbody\n"
	n, err := Parse("x/y", []byte(in))
	require.NoError(t, err)
	assert.Equal(t, "x/y", n.ID, "the path id is authoritative")
	assert.Equal(t, "other/id", n.Front.String("id"))
	assert.Equal(t, "2026", n.Title())
	assert.Equal(t, "2026-06-01", n.Created())
	assert.Equal(t, "2026-06-10", n.Updated())
	assert.Equal(t, []string{"yes", "Ação", "3"}, n.Tags())
	assert.Equal(t, "no", n.Lang())
	v, _ := n.Front.Get("dup")
	assert.Equal(t, int64(2), v)
	assert.Equal(t, []string{"id", "title", "created", "updated", "tags", "lang", "dup", "anchor", "alias", "block"},
		n.Front.Keys(), "a duplicate key keeps its first position")
	assert.Equal(t, "shared", n.Front.String("alias"))
	assert.Equal(t, "line one\nline two", n.Front.String("block"),
		"the block ends at the closing delimiter, so clip chomping has no line break to keep")
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // fragments of the message
	}{
		{"empty file", "", []string{"no frontmatter block", "must start with a '---' line"}},
		{"no delimiter", "# Title\n\nbody\n", []string{"no frontmatter block"}},
		{"BOM before delimiter", "\ufeff---\nid: x\n---\n", []string{"no frontmatter block"}},
		{"unterminated", "---\nid: x\ntitle: y\n", []string{"unterminated frontmatter block", "no closing '---'"}},
		{"only the opening delimiter", "---", []string{"unterminated"}},
		{"YAML syntax error", "---\nid: x\ntags: [a, b\n---\n", []string{"not valid YAML", "[3:"}},
		{"bad indentation", "---\nid: x\n  title: y\n---\n", []string{"not valid YAML"}},
		{"tab indentation", "---\nid: x\nlinks:\n\t- a\n---\n", []string{"not valid YAML"}},
		{"empty frontmatter", "---\n---\nbody\n", []string{"frontmatter is empty"}},
		{"blank frontmatter", "---\n\n\n---\nbody\n", []string{"frontmatter is empty"}},
		{"empty mapping", "---\n{}\n---\n", []string{"frontmatter is empty"}},
		{"null document", "---\nnull\n---\n", []string{"frontmatter is empty"}},
		{"sequence root", "---\n- a\n- b\n---\n", []string{"must be a YAML mapping", "got a sequence"}},
		{"scalar root", "---\njust text\n---\n", []string{"must be a YAML mapping", "got a string"}},
		{"invalid UTF-8", "---\nid: \xff\xfe\n---\n", []string{"not valid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse("notes/x", []byte(tt.in))
			require.Error(t, err)
			assert.Nil(t, n)
			var e *envelope.Error
			require.True(t, errors.As(err, &e), "refusals are envelopes")
			assert.Equal(t, envelope.Frontmatter, e.Code)
			assert.Contains(t, e.Message, "node 'notes/x'")
			for _, frag := range tt.want {
				assert.Contains(t, e.Message, frag)
			}
			assert.NotContains(t, e.Message, "\n", "the parser's source excerpt is dropped")
			assert.NotEmpty(t, e.Hint)
		})
	}
}

func TestParseRefusesAliasBombs(t *testing.T) {
	// Nine levels of nine aliases: 9^9 values from ten lines.
	var b strings.Builder
	b.WriteString("---\nid: x\nl0: &l0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		p := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.Repeat(p+", ", 8)+p)
	}
	b.WriteString("---\n")
	_, err := Parse("x", []byte(b.String()))
	require.Error(t, err)
	assert.Equal(t, envelope.Frontmatter, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "values with YAML aliases expanded: over the YAMLValues read limit of 100000")

	n, err := Parse("x", []byte("---\nbase: &b {rel: part-of, target: x/_index}\nlinks: [*b, *b]\n---\n"))
	require.NoError(t, err, "modest aliases are fine")
	assert.Len(t, n.Links(), 2)
}

func TestParseErrorWithoutID(t *testing.T) {
	_, err := Parse("", []byte("no block"))
	require.Error(t, err)
	assert.Equal(t, "E_FRONTMATTER: no frontmatter block: the file must start with a '---' line", err.Error())
}

// randomNode builds a node in canonical form (the form Parse returns):
// realistic fields mixed with scalars that need every quoting style.
func randomNode(r *rand.Rand) *Node {
	words := []string{"sales", "Ação", "região", "2026", "yes", "no", "null", "~", "1.0", "0x1F", "2026-06-01",
		"a: b", "x #y", "- item", "'quoted'", "it's", "tab\there", "emoji 😀", "中文", "", " edge ", "@user",
		"line\nbreak", "long", "---", "[x]", "C#", "https://e.org/a?b#c", "0o17", "+.5", "\u0085", "\u2028", "NUL\x00"}
	text := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[r.IntN(len(words))]
		}
		return strings.Join(parts, " ")
	}
	scalar := func() any {
		switch r.IntN(8) {
		case 0:
			return r.Int64() - math.MaxInt64/2
		case 1:
			return []float64{0.5, 1.0, 0, 1e16, 1e-5, 123.456, math.Inf(1)}[r.IntN(7)]
		case 2:
			return r.IntN(2) == 0
		case 3:
			return nil
		default:
			return text(1 + r.IntN(25))
		}
	}
	f := NewFrontmatter(
		Field{"id", "notes/n" + fmt.Sprint(r.IntN(1000))},
		Field{"type", "note"},
		Field{"title", text(1 + r.IntN(6))},
		Field{"summary", text(5 + r.IntN(30))},
		Field{"created", "2026-06-01"},
		Field{"updated", "2026-06-10"},
	)
	tags := make([]any, r.IntN(4))
	for i := range tags {
		tags[i] = words[r.IntN(len(words))]
	}
	f.Set("tags", tags)
	links := make([]any, r.IntN(3))
	for i := range links {
		l := NewFrontmatter(Field{"rel", "related-to"}, Field{"target", text(1)})
		if r.IntN(2) == 0 {
			l.Set("confidence", 0.5)
			l.Set("note", text(r.IntN(20)))
		}
		links[i] = l
	}
	f.Set("links", links)
	for i := range r.IntN(4) {
		f.Set(fmt.Sprintf("extra_%d %s", i, text(1)), scalar())
	}
	if r.IntN(3) == 0 {
		f.Set("nested", NewFrontmatter(Field{"list", []any{scalar(), []any{scalar()}, NewFrontmatter()}}))
	}
	body := ""
	if r.IntN(4) > 0 {
		body = strings.TrimRightFunc("# "+text(3)+"\n\n"+text(40), pyIsSpace) + "\n"
	}
	return &Node{ID: "notes/x", Front: f, Body: body}
}

func TestGeneratedNodesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		n := randomNode(r)
		data := n.Bytes()
		back, err := Parse(n.ID, data)
		require.NoError(t, err, "case %d:\n%s", i, data)
		require.Equal(t, n, back, "case %d:\n%s", i, data)
		require.Equal(t, string(data), string(back.Bytes()), "case %d", i)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(composedLeaf))
	f.Add([]byte("---\nid: x\ntags: [a, 'b c', \"d\\te\"]\nn: 1.5\nb: yes\n---\nbody"))
	f.Add([]byte("---\r\nid: x\r\nlinks:\r\n- {rel: a, target: b}\r\n---\r\n"))
	f.Add([]byte("---\n? [a, b]\n: c\n---\n"))
	f.Add([]byte("---\na: &x {b: *x}\n---\n"))
	f.Add([]byte("---\nk: |\n  block\n  text\n---\n"))
	f.Add([]byte("no frontmatter"))
	if _, ok := interop.Archive(); ok {
		// The frontmatter blocks of the reference's files; their bodies
		// only slow the fuzzer down.
		for _, data := range fixtureNodesFrom(f, interop.Forest(f)) {
			if end := strings.Index(string(data), "\n---\n"); end > 0 {
				f.Add(data[:end+5])
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Parse("fuzz", data)
		if err != nil {
			var e *envelope.Error
			require.True(t, errors.As(err, &e), "refusals are envelopes: %v", err)
			require.Equal(t, envelope.Frontmatter, e.Code)
			return
		}
		first := n.Bytes()
		again, err := Parse("fuzz", first)
		require.NoError(t, err, "a file Bytes wrote must read back:\n%s", first)
		require.Equal(t, string(first), string(again.Bytes()), "rendering is not stable")
		if !hasNaN(n.Front) {
			require.Equal(t, n.Front, again.Front, "values changed in a round trip:\n%s", first)
		}
	})
}

func hasNaN(v any) bool {
	switch t := v.(type) {
	case float64:
		return math.IsNaN(t)
	case []any:
		for _, e := range t {
			if hasNaN(e) {
				return true
			}
		}
	case *Frontmatter:
		for _, fd := range t.Fields() {
			if hasNaN(fd.Value) {
				return true
			}
		}
	}
	return false
}

func BenchmarkParse(b *testing.B) {
	data := []byte(composedLeaf + "\n## Steps\n\n" + strings.Repeat("Run the nightly job and check the report.\n", 40))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("ops/runbook-backup", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBytes(b *testing.B) {
	n, err := Parse("ops/runbook-backup", []byte(composedLeaf))
	require.NoError(b, err)
	n.Body += "\n## Steps\n\n" + strings.Repeat("Run the nightly job and check the report.\n", 40)
	for b.Loop() {
		_ = n.Bytes()
	}
}

// ---- the interop fixture: a forest the reference implementation wrote ----

func interopForest(t *testing.T) string { return interop.Forest(t) }

// fixtureNodesFrom returns every node file under root as id -> bytes.
func fixtureNodesFrom(t testing.TB, root string) map[string][]byte {
	t.Helper()
	nodes := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "_derived" || d.Name() == "_assets") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		nodes[strings.TrimSuffix(filepath.ToSlash(rel), ".md")] = data
		return nil
	})
	require.NoError(t, err)
	return nodes
}

// unquotedDate matches a hand-written date line such as "created: 2026-06-01".
var unquotedDate = regexp.MustCompile(`(?m)^(\w+): (\d{4}-\d{2}-\d{2})$`)

func TestFixtureRoundTrip(t *testing.T) {
	nodes := fixtureNodesFrom(t, interopForest(t))
	require.Len(t, nodes, 82, "the fixture holds 82 nodes")

	exact, handWritten := 0, 0
	for id, data := range nodes {
		n, err := Parse(id, data)
		require.NoError(t, err, id)
		got := n.Bytes()
		if !unquotedDate.Match(data) {
			if assert.Equal(t, string(data), string(got), "%s does not round-trip byte for byte", id) {
				exact++
			}
			continue
		}
		// A hand-written file: the rewrite quotes its dates (and folds a
		// long line as PyYAML would); with the dates quoted by hand first,
		// both read back to the same node.
		handWritten++
		assert.NotEqual(t, string(data), string(got), id)
		quoted, err := Parse(id, unquotedDate.ReplaceAll(data, []byte("$1: '$2'")))
		require.NoError(t, err, id)
		back, err := Parse(id, got)
		require.NoError(t, err, id)
		assert.Equal(t, quoted, back, "%s: the rewrite changed more than date quoting", id)
		assert.Equal(t, n, back, "%s: the rewrite changed a value", id)
		assert.Equal(t, string(got), string(quoted.Bytes()), id)
	}
	t.Logf("interop fixture: %d of %d files round-trip byte for byte; %d hand-written file(s) differ only by date quoting and folding",
		exact, len(nodes), handWritten)
	assert.Equal(t, 81, exact)
	assert.Equal(t, 1, handWritten, "only _meta/schema.md is hand-written")
}

func TestFixtureSchemaRewrite(t *testing.T) {
	nodes := fixtureNodesFrom(t, interopForest(t))
	n, err := Parse("_meta/schema", nodes["_meta/schema"])
	require.NoError(t, err)
	assert.Equal(t, "2026-06-01", n.Created(), "an unquoted date reads as a date")
	got := string(n.Bytes())
	assert.Contains(t, got, "\ncreated: '2026-06-01'\nupdated: '2026-06-10'\n")
	assert.Contains(t, got, "\nsummary: Node and edge types valid in this forest. New types are declared here before\n"+
		"  first use; the Vine rejects anything not declared.\n")
}

func TestFixtureFields(t *testing.T) {
	nodes := fixtureNodesFrom(t, interopForest(t))
	types := map[string]int{}
	rels := map[string]int{}
	for id, data := range nodes {
		n, err := Parse(id, data)
		require.NoError(t, err, id)
		types[n.Type()]++
		for _, l := range n.Links() {
			rels[l.Rel]++
			assert.Equal(t, 1.0, l.Confidence, id)
		}
		assert.Equal(t, id, n.Front.String("id"), "frontmatter id of %s", id)
		assert.Len(t, n.Created(), 10, id)
		assert.Len(t, n.Updated(), 10, id)
		assert.Equal(t, IsIndex(id), n.IsBranch(), id)
		require.NoError(t, ValidateWrite(n, WriteCheck{Dialect: DefaultDialect(), StrictSummary: true}), id)
	}
	// Counts the reference reports for this forest (interop README); the
	// 16 notes include _meta/schema.
	assert.Equal(t, map[string]int{"branch": 12, "concept": 20, "entity": 19, "note": 16,
		"document": 8, "event": 6, "dataset": 1}, types)
	assert.Equal(t, map[string]int{"author": 11, "compared-with": 8, "derived-from": 3,
		"mentioned-in": 4, "part-of": 14, "related-to": 51, "succeeds": 4}, rels)

	ds, err := Parse("sales/report-q1-2026", nodes["sales/report-q1-2026"])
	require.NoError(t, err)
	assert.Equal(t, "report-q1-2026.db", ds.Payload())
	assert.Equal(t, "sqlite", ds.PayloadType())
	assert.Equal(t, "manual", ds.Source())
	assert.Equal(t, []string{"sales", "q1", "dataset"}, ds.Tags())
}

// TestAppendEncoded: the node AppendEncoded reads back is the one ParseWithin
// reads from the same bytes, refusals included, whether or not it shares
// the written node's body.
func TestAppendEncoded(t *testing.T) {
	front := func(title any) *Frontmatter {
		return NewFrontmatter(Field{Key: "id", Value: "ops/x"}, Field{Key: "type", Value: "note"}, Field{Key: "title", Value: title})
	}
	tests := []struct {
		name   string
		title  any
		body   string
		shared bool
	}{
		{"a body as files hold it", "T", "# T\n\n- [[ops/a]] — A.\n", true},
		{"one line", "T", "x\n", true},
		{"empty", "T", "", false},
		{"only a newline", "T", "\n", false},
		{"no trailing newline", "T", "# T", false},
		{"two trailing newlines", "T", "# T\n\n", false},
		{"trailing spaces", "T", "# T  \n", false},
		{"trailing no-break space", "T", "# T\u00a0\n", false},
		{"leading newline", "T", "\n# T\n", false},
		{"carriage returns", "T", "# T\r\n", false},
		{"carriage return in a value, written escaped", "a\rb", "# T\n", true},
		{"a delimiter line in the body", "T", "a\n---\nb\n", true},
		{"a delimiter in a value", "---", "# T\n", true},
		{"a delimiter line in a value", "a\n---\nb", "# T\n", true},
		{"links past the limit", "T", "# T\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &Node{ID: "ops/x", Front: front(tt.title), Body: tt.body}
			lim := ReadLimits{}
			if tt.name == "links past the limit" {
				n.Front.Set("links", []any{map[string]any{"rel": "a", "target": "b"}, map[string]any{"rel": "a", "target": "c"}})
				lim.Links = 1
			}
			prefix := []byte("kept")
			out, back, err := AppendEncoded(prefix, n, lim)
			require.Equal(t, "kept", string(out[:len(prefix)]), "dst is appended to")
			data := out[len(prefix):]
			require.Equal(t, string(n.Bytes()), string(data))
			want, wantErr := ParseWithin(n.ID, data, lim)
			require.Equal(t, wantErr, err)
			require.Equal(t, want, back)
			if err == nil && tt.shared {
				assert.Equal(t, n.Body, back.Body)
			}
			_, ok := sharedBody(n, data)
			assert.Equal(t, tt.shared, ok, "shares the body")
		})
	}
}

func FuzzAppendEncoded(f *testing.F) {
	f.Add("T", "# T\n\n- [[ops/a]] — A.\n")
	f.Add("a\n---\nb", "x\n---\ny\n")
	f.Add("T", "\r\n")
	f.Fuzz(func(t *testing.T, title, body string) {
		n := &Node{ID: "fuzz", Front: NewFrontmatter(Field{Key: "id", Value: "fuzz"}, Field{Key: "title", Value: title}), Body: body}
		data, back, err := AppendEncoded(nil, n, ReadLimits{})
		want, wantErr := ParseWithin(n.ID, data, ReadLimits{})
		require.Equal(t, wantErr, err)
		require.Equal(t, want, back)
	})
}
