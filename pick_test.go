// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

func TestPickWholeBodyShape(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/small", "type: note\ntitle: Small <one>\nsummary: Small body.\n", "# Small\n\nA & B <tag>.\n")
	f.reindex()
	out, err := f.call("pick", map[string]any{"id": "notes/small"})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"notes/small","title":"Small <one>","body":"# Small\n\nA & B <tag>.\n","body_tokens":6,"truncated":false}`, out,
		"the pre-v0.56 shape, byte for byte, without HTML escaping")
	rec, _, _ := f.v.Catalog().Get(context.Background(), "notes/small")
	assert.Equal(t, 6, rec.BodyTokens)
}

// walk pages through a body with after=next and returns the pages.
func (f *entryForest) walk(id string) []*Content {
	f.t.Helper()
	var pages []*Content
	c, err := f.v.Pick(context.Background(), id, PickOptions{})
	require.NoError(f.t, err)
	pages = append(pages, c)
	for c.Next != "" {
		require.Less(f.t, len(pages), 10000, "the walk must end")
		c, err = f.v.Pick(context.Background(), id, PickOptions{After: c.Next})
		require.NoError(f.t, err)
		pages = append(pages, c)
	}
	return pages
}

func joinPages(pages []*Content) string {
	var b strings.Builder
	for _, p := range pages {
		b.WriteString(p.Body)
	}
	return b.String()
}

func TestPickPagingReassemblesFixtureLargeBody(t *testing.T) {
	f := newEntryForest(t, nil)
	n, err := f.v.readNode(f.man.Large)
	require.NoError(t, err)
	require.Greater(t, budget.EstimateTokens(n.Body), BudgetPick)

	pages := f.walk(f.man.Large)
	first := pages[0]
	assert.Equal(t, ContentPage, first.Shape)
	assert.True(t, first.Truncated)
	assert.NotNil(t, first.Outline, "the first page of an over-budget read carries the outline")
	assert.Contains(t, first.Hint, "after=\""+first.Next+"\"")
	assert.Contains(t, first.Hint, "section=")
	raw, _ := json.Marshal(first)
	assert.Equal(t, []string{"id", "title", "total", "body", "body_tokens", "returned", "truncated", "next", "outline", "hint"},
		entryKeys(t, string(raw)))
	returned := 0
	for i, p := range pages {
		assert.LessOrEqual(t, p.BodyTokens, BudgetPick)
		assert.Equal(t, first.Total, p.Total, "total is constant")
		assert.False(t, p.Cut)
		returned += p.Returned
		if i > 0 {
			assert.Nil(t, p.Outline, "only page one teaches")
			assert.Empty(t, p.Hint)
		}
	}
	last := pages[len(pages)-1]
	assert.Empty(t, last.Next)
	assert.False(t, last.Truncated)
	assert.Equal(t, first.Total, returned)
	assert.Equal(t, n.Body, joinPages(pages), "pages join back into the body byte for byte")
}

// entryLongBody writes paragraphs of multi-byte text, tables, fences and
// lists until the body reaches size bytes.
func entryLongBody(size int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	pieces := []string{
		"Ondulação e maré na baía — ação, coração, 🐒 macacos e 🌊 ondas. ",
		"| col | ção |\n|---|---|\n| 1 | ü |\n",
		"```go\nfunc main() {\n\n\tprintln(\"ção\")\n}\n```\n",
		"- item one\n  - nested ü\n- item two\n",
		"日本語のテキスト、そして中文字符。",
	}
	var b strings.Builder
	b.WriteString("# Long\n\n")
	for i := 0; b.Len() < size; i++ {
		if i%25 == 0 {
			fmt.Fprintf(&b, "## Part %d\n\n", i/25)
		}
		for range 1 + rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteString(strings.Repeat("\n", 2+rng.IntN(3)))
	}
	return b.String()
}

func TestPickPagingFiveMegabytes(t *testing.T) {
	f := newEntryForest(t, nil)
	body := entryLongBody(5<<20, 7)
	f.write("library/huge", "type: document\ntitle: Huge\nsummary: Five megabytes of text.\n", body)
	f.reindex()
	n, err := f.v.readNode("library/huge")
	require.NoError(t, err)
	require.NotContains(t, n.Body, "\r")

	pages := f.walk("library/huge")
	assert.Greater(t, len(pages), 200)
	assert.Equal(t, n.Body, joinPages(pages), "a 5 MB body reassembles byte for byte")
	for _, p := range pages {
		assert.LessOrEqual(t, p.BodyTokens, BudgetPick)
		assert.False(t, p.Cut)
	}
}

func TestPickPagingAboutNineteenThousandCharsInFiveCalls(t *testing.T) {
	f := newEntryForest(t, nil)
	var b strings.Builder
	for i := 0; b.Len() < 19400; i++ {
		fmt.Fprintf(&b, "Paragraph %d: acentuação, tabelas e listas fazem parte do corpo de teste.\n\n", i)
	}
	f.write("library/f80", "type: document\ntitle: F80\nsummary: About 19,400 characters.\n", b.String())
	f.reindex()
	pages := f.walk("library/f80")
	assert.LessOrEqual(t, len(pages), 5)
	n, _ := f.v.readNode("library/f80")
	assert.Equal(t, n.Body, joinPages(pages))
}

func TestPickPagingOversizeBlockIsCut(t *testing.T) {
	f := newEntryForest(t, nil)
	big := strings.Repeat("ção ", 5000) // 20,000 code points, one block
	f.write("library/oversize", "type: document\ntitle: O\nsummary: One oversize block.\n", "# O\n\n"+big+"\n\nTail block.\n")
	f.reindex()
	ctx := context.Background()
	p1, err := f.v.Pick(ctx, "library/oversize", PickOptions{})
	require.NoError(t, err)
	assert.Equal(t, "b0", p1.Next)
	assert.Equal(t, 1, p1.Returned)
	p2, err := f.v.Pick(ctx, "library/oversize", PickOptions{After: p1.Next})
	require.NoError(t, err)
	assert.True(t, p2.Cut)
	assert.True(t, p2.Truncated)
	assert.Equal(t, "b1", p2.Next, "the cursor still moves past the cut block")
	assert.Equal(t, budget.TruncateText(big+"\n\n", BudgetPick), p2.Body)
	assert.LessOrEqual(t, p2.BodyTokens, BudgetPick+1)
	raw, _ := json.Marshal(p2)
	assert.Equal(t, []string{"id", "title", "total", "body", "body_tokens", "returned", "truncated", "cut", "next"}, entryKeys(t, string(raw)))
	f.write("library/oneblock", "type: document\ntitle: One\nsummary: A single oversize block.\n", big)
	one, err := f.v.Pick(ctx, "library/oneblock", PickOptions{})
	require.NoError(t, err)
	assert.True(t, one.Cut)
	assert.Empty(t, one.Next)
	assert.True(t, one.Truncated, "cut is a truncation even on the last page")
	assert.NotContains(t, one.Hint, "after=", "no next page to teach")
	assert.Contains(t, one.Hint, "section=")
	p3, err := f.v.Pick(ctx, "library/oversize", PickOptions{After: p2.Next})
	require.NoError(t, err)
	assert.Equal(t, "Tail block.\n", p3.Body)
	assert.False(t, p3.Truncated)
}

func TestPickCursorShapes(t *testing.T) {
	f := newEntryForest(t, nil)
	out, err := f.call("pick", map[string]any{"id": "concepts/tide", "after": ""})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "title", "total", "body", "body_tokens", "returned", "truncated"}, entryKeys(t, out),
		"after=\"\" asks for the page shape even when the body fits")
	var page struct{ Total, Returned int }
	require.NoError(t, json.Unmarshal([]byte(out), &page))
	assert.Equal(t, page.Total, page.Returned)

	end, err := f.call("pick", map[string]any{"id": "concepts/tide", "after": "b999"})
	require.NoError(t, err)
	assert.Contains(t, end, `"body":"","body_tokens":0,"returned":0,"truncated":false}`, "a cursor past the end is an empty page")

	for _, bad := range []string{"x", "b", "b-1", "b01", "c3", "b1.5", " b1", "b99999999999999999999"} {
		_, err := f.call("pick", map[string]any{"id": "concepts/tide", "after": bad})
		var e *Error
		require.ErrorAs(t, err, &e, bad)
		assert.Equal(t, ESchema, e.Code, bad)
		assert.Contains(t, e.Message, "'after'", bad)
		assert.Contains(t, e.Message, fmt.Sprintf("%q", bad), bad)
	}
}

func TestPickSectionAndAfterNeverCombine(t *testing.T) {
	f := newEntryForest(t, nil)
	for _, args := range []map[string]any{
		{"id": "concepts/tide", "section": "Overview", "after": ""},
		{"id": "concepts/tide", "section": "", "after": ""},
		{"id": "concepts/tide", "section": "", "after": "b0"},
		{"id": "concepts/tide", "section": []string{"Overview"}, "after": "b1"},
		{"id": "ghost/never", "section": "x", "after": "b1"},
	} {
		_, err := f.call("pick", args)
		var e *Error
		require.ErrorAs(t, err, &e, "%v", args)
		assert.Equal(t, ESchema, e.Code, "%v", args)
		assert.Contains(t, e.Message, "'section' and 'after'")
	}
	_, err := f.v.Pick(context.Background(), "concepts/tide", PickOptions{Section: "Overview", After: "b1"})
	assert.Equal(t, ESchema, CodeOf(err))
}

func TestPickSingleSection(t *testing.T) {
	f := newEntryForest(t, nil)
	body := "# Doc\n\nIntro.\n\n## Setup\n\nSetup text.\n\n### Setup details\n\nDetails.\n\n## Setup\n\nSecond setup.\n\n## Setting sail\n\nSail.\n\n```\n## Not a header\n```\n\n## Last   \n\nEnd.  \n\n"
	f.write("notes/sections", "type: note\ntitle: Sections\nsummary: Sections to pick.\n", body)
	f.reindex()
	tests := []struct{ name, want string }{
		{"Setup", "## Setup\n\nSetup text.\n\n### Setup details\n\nDetails."},
		{"  setup ", "## Setup\n\nSetup text.\n\n### Setup details\n\nDetails."},
		{"setting", "## Setting sail\n\nSail.\n\n```\n## Not a header\n```"},
		{"Setup det", "### Setup details\n\nDetails."},
		{"doc", body[:len("# Doc\n\nIntro.\n\n## Setup\n\nSetup text.\n\n### Setup details\n\nDetails.\n\n## Setup\n\nSecond setup.\n\n## Setting sail\n\nSail.\n\n```\n## Not a header\n```\n\n## Last   \n\nEnd.")]},
		{"LAST", "## Last   \n\nEnd."},
	}
	for _, tt := range tests {
		c, err := f.v.Pick(context.Background(), "notes/sections", PickOptions{Section: tt.name})
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, c.Body, tt.name)
		assert.Equal(t, tt.name, c.Section, "the name as asked")
		assert.Equal(t, budget.EstimateTokens(tt.want), c.BodyTokens)
	}
	out, err := f.call("pick", map[string]any{"id": "notes/sections", "section": "Setup"})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "title", "section", "body", "body_tokens", "truncated"}, entryKeys(t, out))

	_, err = f.call("pick", map[string]any{"id": "notes/sections", "section": "Not a header"})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ENotFound, e.Code)
	assert.Contains(t, e.Message, `"Not a header"`)
	assert.Contains(t, e.Message, "notes/sections")
	assert.Contains(t, e.Hint, "Setup, Setup details, Setup, Setting sail, Last")
}

func TestPickOversizeSectionIsCut(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/bigsection", "type: note\ntitle: B\nsummary: A big section.\n", "# B\n\n## Big\n\n"+strings.Repeat("word ", 5000)+"\n\n## Small\n\nx\n")
	f.reindex()
	c, err := f.v.Pick(context.Background(), "notes/bigsection", PickOptions{Section: "Big"})
	require.NoError(t, err)
	assert.True(t, c.Cut)
	assert.True(t, c.Truncated)
	assert.LessOrEqual(t, c.BodyTokens, BudgetPick+1)
	raw, _ := json.Marshal(c)
	assert.Equal(t, []string{"id", "title", "section", "body", "body_tokens", "truncated", "cut"}, entryKeys(t, string(raw)))
}

// entrySectionsBody is a body of n sections of about tokens each.
func entrySectionsBody(n, tokens int) string {
	var b strings.Builder
	b.WriteString("# Many\n\n")
	for i := range n {
		fmt.Fprintf(&b, "## S%03d\n\n%s\n\n", i, strings.Repeat("abc ", tokens))
	}
	return b.String()
}

func TestPickSectionList(t *testing.T) {
	f := newEntryForest(t, nil)
	f.write("notes/many", "type: note\ntitle: Many\nsummary: Four hundred sections.\n", entrySectionsBody(400, 1000))
	f.reindex()
	ctx := context.Background()

	c, err := f.v.Pick(ctx, "notes/many", PickOptions{Sections: []string{"S010", "ghost", "s00", "S399", "S011", "S012", "S010", "nope"}})
	require.NoError(t, err)
	assert.Equal(t, ContentSections, c.Shape)
	require.Len(t, c.Sections, 3)
	assert.Equal(t, PickedSection{Section: "S010", Header: "S010", Body: "## S010\n\n" + strings.TrimSpace(strings.Repeat("abc ", 1000)),
		BodyTokens: budget.EstimateTokens("## S010\n\n" + strings.TrimSpace(strings.Repeat("abc ", 1000)))}, c.Sections[0])
	assert.Equal(t, "s00", c.Sections[1].Section, "the name as asked")
	assert.Equal(t, "S000", c.Sections[1].Header, "the header a prefix resolved to (F.91)")
	assert.Equal(t, "S399", c.Sections[2].Header)
	assert.Equal(t, []string{"ghost", "nope"}, c.Missing)
	assert.Equal(t, []string{"S011", "S012", "S010"}, c.Dropped, "from the first that does not fit, every later one")
	assert.True(t, c.Truncated)
	assert.Contains(t, c.Hint, "ghost, nope")
	assert.Contains(t, c.Hint, "+370 more", "a 400-section outline is not dumped into a hint")
	sum := 0
	for _, s := range c.Sections {
		sum += s.BodyTokens
	}
	assert.LessOrEqual(t, sum, BudgetPick)
	raw, _ := json.Marshal(c)
	assert.Equal(t, []string{"id", "title", "sections", "missing", "dropped", "truncated", "hint"}, entryKeys(t, string(raw)))

	one, err := f.call("pick", map[string]any{"id": "notes/many", "section": []string{"S001"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "title", "sections", "missing", "dropped", "truncated"}, entryKeys(t, one),
		"a one-element list keeps the list shape")
	bare, err := f.call("pick", map[string]any{"id": "notes/many", "section": "S001"})
	require.NoError(t, err)
	assert.Equal(t, []string{"id", "title", "section", "body", "body_tokens", "truncated"}, entryKeys(t, bare))

	for _, names := range [][]string{{}, make([]string, 11)} {
		_, err := f.call("pick", map[string]any{"id": "notes/many", "section": names})
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, ESchema, e.Code)
		assert.Contains(t, e.Message, "'section'")
		assert.Contains(t, e.Message, "1 to 10")
	}
}

func TestPickCachedAndReferenceBodies(t *testing.T) {
	f := newEntryForest(t, nil)
	ctx := context.Background()
	f.write("library/cached", "type: document\ntitle: Cached\nsummary: Body kept in the derived cache.\ncontent: cached\n", "# Cached\n")
	f.write("library/ref", "type: document\ntitle: Ref\nsummary: Body read live from the source.\ncontent: reference\nsource_path: docs/ref.md\n", "# Ref\n")
	f.write("library/ref-escape", "type: document\ntitle: Esc\nsummary: Points outside.\ncontent: reference\nsource_path: ../secret.md\n", "# Esc\n")
	f.reindex()

	_, err := f.v.Pick(ctx, "library/cached", PickOptions{})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ENotFound, e.Code)
	assert.Contains(t, e.Message, "library/cached")
	assert.Contains(t, e.Hint, "look")

	cached := filepath.Join(f.dir, "_derived", "bodies", "library", "cached.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(cached), 0o755))
	require.NoError(t, os.WriteFile(cached, []byte("\r\n# Cached\r\n\r\n## Flesh\r\n\r\nThe real text.\r\n"), 0o644))
	c, err := f.v.Pick(ctx, "library/cached", PickOptions{})
	require.NoError(t, err)
	assert.Equal(t, "# Cached\n\n## Flesh\n\nThe real text.\n", c.Body)
	assert.Equal(t, budget.EstimateTokens(c.Body), c.BodyTokens, "body_tokens from the resolved body")
	sec, err := f.v.Pick(ctx, "library/cached", PickOptions{Section: "flesh"})
	require.NoError(t, err)
	assert.Equal(t, "## Flesh\n\nThe real text.", sec.Body)

	src := t.TempDir()
	secret := filepath.Join(filepath.Dir(src), "secret.md")
	require.NoError(t, os.WriteFile(secret, []byte("top secret"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "docs", "ref.md"), []byte("# Ref\n\nLive text.\n"), 0o644))
	_, err = f.v.Pick(ctx, "library/ref", PickOptions{})
	assert.Equal(t, ENotFound, CodeOf(err), "no source_root recorded")
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "_meta", "gardener.yaml"), []byte("source_root: "+src+"\n"), 0o644))
	c, err = f.v.Pick(ctx, "library/ref", PickOptions{})
	require.NoError(t, err)
	assert.Equal(t, "# Ref\n\nLive text.\n", c.Body)

	_, err = f.v.Pick(ctx, "library/ref-escape", PickOptions{})
	require.ErrorAs(t, err, &e)
	assert.Equal(t, ENotFound, e.Code)
	assert.NotContains(t, e.Message+e.Hint, "secret", "the refusal never quotes the path")
	require.NoError(t, os.Symlink(secret, filepath.Join(src, "docs", "link.md")))
	f.write("library/ref-link", "type: document\ntitle: Link\nsummary: Symlink out.\ncontent: reference\nsource_path: docs/link.md\n", "# L\n")
	_, err = f.v.Pick(ctx, "library/ref-link", PickOptions{})
	assert.Equal(t, ENotFound, CodeOf(err), "a symlink out of the source root is refused")

	// The map still works on an unreachable body.
	_, err = f.v.Look(ctx, "library/ref-escape", LookOptions{})
	assert.NoError(t, err)

	// One read of the body answers as pick and sniff do, from the backing file.
	for _, id := range []string{"library/cached", "library/ref"} {
		body, err := f.v.ReadBody(ctx, id)
		require.NoError(t, err, id)
		want, _ := f.v.Pick(ctx, id, PickOptions{})
		got, _ := body.Pick(PickOptions{})
		assert.Equal(t, want, got, id)
		terms := []string{"real text", "live"}
		wantHits, _ := f.v.SniffEach(ctx, id, terms)
		gotHits, _ := body.SniffEach(terms)
		assert.Equal(t, wantHits, gotHits, id)
	}
	_, err = f.v.ReadBody(ctx, "library/ref-escape")
	assert.Equal(t, ENotFound, CodeOf(err), "an unreachable body")
}

func FuzzPickCursor(f *testing.F) {
	for _, s := range []string{"", "b0", "b17", "b01", "x", "b-1", "b9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, after string) {
		start, err := parsePickCursor(after)
		if err != nil {
			assert.Equal(t, ESchema, CodeOf(err))
			return
		}
		assert.GreaterOrEqual(t, start, 0)
		if after != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(after, "b"))
			require.NoError(t, err)
			assert.Equal(t, after, "b"+strconv.Itoa(n), "only canonical cursors are accepted")
			assert.Equal(t, min(n, 1<<40)+1, start)
		}
	})
}

func FuzzPickPages(f *testing.F) {
	f.Add("# T\n\nA.\n\n\nB ção.\n", 3)
	f.Add("no blank lines at all", 1)
	f.Add("\n\n\n", 1)
	f.Fuzz(func(t *testing.T, body string, repeat int) {
		if repeat < 1 || repeat > 400 {
			return
		}
		body = strings.Repeat(body, repeat)
		ends := pageBlockEnds(body)
		prev := 0
		for i, e := range ends {
			assert.Greater(t, e, prev)
			if i < len(ends)-1 {
				assert.True(t, strings.HasSuffix(body[prev:e], "\n\n"), "inner blocks end on a blank-line run")
			}
			prev = e
		}
		assert.Equal(t, len(body), prev)
		src := &pickSource{id: "x", title: "x", body: body}
		var joined strings.Builder
		cut := false
		for start, n := 0, 0; ; n++ {
			require.Less(t, n, len(body)+2)
			p := src.page(start)
			joined.WriteString(p.Body)
			cut = cut || p.Cut
			if p.Next == "" {
				break
			}
			start, _ = parsePickCursor(p.Next)
		}
		if !cut {
			assert.Equal(t, body, joined.String())
		}
	})
}

func FuzzSplitInlineBody(f *testing.F) {
	f.Add("---\nid: a\ntype: note\n---\n\n# A\n\nbody\n")
	f.Add("---\nid: a\ncontent: cached\n---\n\n# A\n")
	f.Add("---\nid: a\n---")
	f.Add("---\r\nid: a\r\n---\r\n\r\nx\r\n")
	f.Fuzz(func(t *testing.T, file string) {
		body, ok := splitInlineBody(normalizedText([]byte(file)))
		n, err := forest.Parse("a", []byte(file))
		if err != nil || !ok {
			return
		}
		assert.Equal(t, n.Body, body, "the fast split reads the body forest.Parse reads")
		assert.Empty(t, n.Content(), "a content mode never takes the fast path")
	})
}
