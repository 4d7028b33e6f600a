// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseOutline(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Outline
	}{
		{
			name: "branch index",
			body: "# Projects\n\n> What lives here.\n\n## Sub-branches\n- [[a/_index]] — x\n\n## Direct bananas\n### Deep\n#### Deeper\n",
			want: Outline{Title: "Projects", Quote: "What lives here.", Sections: []Heading{
				{2, "Sub-branches"}, {2, "Direct bananas"}, {3, "Deep"}}},
		},
		{
			name: "first H1 is the title, later H1s are nothing",
			body: "# One\n# Two\n## S\n",
			want: Outline{Title: "One", Sections: []Heading{{2, "S"}}},
		},
		{
			name: "headings in fenced code are ignored",
			body: "# T\n\n```bash\n# install\n## not a section\n```\n\n## Real\n~~~~\n## fenced\n~~~\n## still fenced\n~~~~\n### After\n",
			want: Outline{Title: "T", Sections: []Heading{{2, "Real"}, {3, "After"}}},
		},
		{
			name: "an unclosed fence runs to the end",
			body: "## A\n```\n## B\n",
			want: Outline{Sections: []Heading{{2, "A"}}},
		},
		{
			name: "not headings: no space, seven hashes, indented code",
			body: "#tag\n####### seven\n    ## indented\n## Yes ##\n",
			want: Outline{Sections: []Heading{{2, "Yes ##"}}},
		},
		{
			name: "quote after a paragraph is no quote",
			body: "# T\nSome text.\n> late quote\n",
			want: Outline{Title: "T"},
		},
		{
			name: "quote markers and spaces stripped",
			body: "\n\n# T\n\n>>  nested quote  \n> second\n",
			want: Outline{Title: "T", Quote: "nested quote"},
		},
		{
			name: "quote before any heading, CRLF",
			body: "> first\r\n# T\r\n## S\r\n",
			want: Outline{Title: "T", Quote: "first", Sections: []Heading{{2, "S"}}},
		},
		{
			name: "empty headings do not count",
			body: "#\n# \n## \n# Title\n",
			want: Outline{Title: "Title"},
		},
		{name: "empty body", body: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want.Sections == nil {
				tt.want.Sections = []Heading{}
			}
			assert.Equal(t, tt.want, ParseOutline(tt.body))
		})
	}
}

func TestOutlineSectionNames(t *testing.T) {
	o := ParseOutline("## Contacts\n### Contract\n## History\n")
	assert.Equal(t, []string{"Contacts", "Contract", "History"}, o.SectionNames())
	assert.Equal(t, []string{}, ParseOutline("").SectionNames())
}

func FuzzParseOutline(f *testing.F) {
	f.Add("# T\n> q\n## A\n```\n## B\n```\n### C\n")
	f.Add("~~~\n# x\n~~~~\n")
	f.Fuzz(func(t *testing.T, body string) {
		o := ParseOutline(body)
		for _, h := range o.Sections {
			if (h.Level != 2 && h.Level != 3) || h.Text == "" {
				t.Fatalf("bad section %+v", h)
			}
		}
		for _, h := range scanHeadings(body) {
			if h.start < 0 || h.end > len(body) || h.start >= h.end || body[h.start] != '#' {
				t.Fatalf("bad heading span %+v", h)
			}
		}
	})
}

// everyLineHeadings is scanHeadings without its first-byte filter: every
// line through the fence state and the heading parser.
func everyLineHeadings(body string) []mdHeading {
	var heads []mdHeading
	var fence fenceState
	for l := range spanLines(body) {
		if fence.step(l.text) {
			continue
		}
		if level, text, ok := parseHeading(l.text); ok {
			heads = append(heads, mdHeading{level: level, text: text, start: l.start, end: l.end})
		}
	}
	return heads
}

func TestScanHeadingsAsEveryLine(t *testing.T) {
	for _, body := range []string{
		"", "#", "# T\n", "## A\r\n- [[a]] — A.\n\n```\n# not\n```\n## B",
		"   ```go\n# code\n    ```\n# still code\n```\n# out\n", "~~~\n## in\n~~~~\n## after",
		"\t# tab\n #space\n####### seven\n#nospace\n# ok #\n", "```\n\n\n", "x\n```\n# in\n",
		"- [[g/a]] — A.\n" + strings.Repeat("- [[g/page]] — a page.\n", 40) + "## Cross trails\n- t → [[q]]\n",
	} {
		assert.Equal(t, everyLineHeadings(body), scanHeadings(body), "%q", body)
	}
}

func FuzzScanHeadings(f *testing.F) {
	f.Add("## A\n- [[a]]\n```\n# not\n```\n## B")
	f.Add("   ~~~\n# x\n   ~~~~\n#\n")
	f.Fuzz(func(t *testing.T, body string) {
		if got, want := scanHeadings(body), everyLineHeadings(body); !reflect.DeepEqual(got, want) {
			t.Fatalf("scanHeadings(%q) = %v, want %v", body, got, want)
		}
	})
}

func BenchmarkScanHeadings(b *testing.B) {
	body := "# G\n\n> The g folder.\n\n## Direct bananas\n" +
		strings.Repeat("- [[g/git-log]] — Show commit logs; a summary of sixty tokens or so.\n", 1800) +
		"\n## Cross trails\n- t → [[q]]\n"
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		scanHeadings(body)
	}
}
