// SPDX-License-Identifier: Apache-2.0

package bodysum

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/budget"
)

// want is the sum by the definitions the package must match.
func want(body string) Sum {
	return Sum{Hash: catalog.BodyHash(body), Tokens: budget.EstimateTokens(body)}
}

// index is a folder index of n entries, as the Gardener grows one.
func index(n int) string {
	var b strings.Builder
	b.WriteString("# g\n\n> Documents adopted from source folder 'g'.\n\n## Sub-branches\n\n## Direct bananas\n")
	for i := range n {
		fmt.Fprintf(&b, "- [[g/page-%05d]] — Page %d explains naïve café options, — and more of them.\n", i, i)
	}
	b.WriteString("\n## Cross trails\n")
	return b.String()
}

func TestOfMatchesTheDefinitions(t *testing.T) {
	for _, body := range []string{"", "a", "日本語", index(3), index(2000), "\xff\xfe" + index(900)} {
		assert.Equal(t, want(body), Of(body))
		var none *Memo // sums whole
		assert.Equal(t, want(body), none.Of("k", body))
	}
}

// TestMemoFollowsEdits sums a sequence of versions of one node, each an
// edit of the one before, and holds every sum to the definitions.
func TestMemoFollowsEdits(t *testing.T) {
	big := index(1500) // ~120 KB: several checkpoints
	entry := "- [[g/new]] — a new entry with an em dash — here.\n"
	at := strings.Index(big, "\n## Cross trails")
	edits := []struct {
		name string
		body string
	}{
		{"first version", big},
		{"same again", big},
		{"entry added near the end", big[:at+1] + entry + big[at+1:]},
		{"entry added at the start", strings.Replace(big, "## Direct bananas\n", "## Direct bananas\n"+entry, 1)},
		{"one byte changed mid-way", big[:len(big)/2] + "X" + big[len(big)/2+1:]},
		{"multi-byte rune cut at a checkpoint", big[:Spacing-1] + "—" + big[Spacing+2:]},
		{"invalid bytes at a checkpoint", big[:2*Spacing-1] + "\xe2\x80" + big[2*Spacing+1:]},
		{"truncated to a checkpoint", big[:3*Spacing]},
		{"grown past the old end", big + big[:Spacing+7]},
		{"shrunk below MinSize", big[:MinSize-1]},
		{"large again", big},
		{"empty", ""},
	}
	var m Memo
	for _, e := range edits {
		assert.Equal(t, want(e.body), m.Of("g/_index", e.body), e.name)
	}
}

// TestMemoResumes checks the point of the Memo: a second version reads
// only from its last checkpoint inside the shared prefix, which is seen
// here as the checkpoints it reuses (the same states, not new ones).
func TestMemoResumes(t *testing.T) {
	var m Memo
	body := index(3000)
	m.Of("g/_index", body)
	first := m.last["g/_index"]
	require.NotNil(t, first)
	require.Len(t, first.marks, len(body)/Spacing)

	grown := body + "- [[g/next]] — next.\n"
	assert.Equal(t, want(grown), m.Of("g/_index", grown))
	second := m.last["g/_index"]
	for i := range first.marks {
		assert.Same(t, &first.marks[i].state[0], &second.marks[i].state[0], "checkpoint %d was recomputed", i)
	}
}

func TestMemoKeysAreSeparate(t *testing.T) {
	var m Memo
	a, b := index(1200), index(1300)
	for range 2 {
		assert.Equal(t, want(a), m.Of("a/_index", a))
		assert.Equal(t, want(b), m.Of("b/_index", b))
	}
	assert.Equal(t, want("small now"), m.Of("a/_index", "small now"))
	assert.NotContains(t, m.last, "a/_index", "a small body is not remembered, nor the large one before it")
	assert.Equal(t, len(b), m.bytes)
}

func TestCommonPrefix(t *testing.T) {
	long := strings.Repeat("abcdefgh", 2000)
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 0}, {"abc", "abd", 2}, {"abc", "abc", 3}, {"abc", "abcdef", 3},
		{long, long, len(long)}, {long, long[:9000] + "X", 9000}, {long[:4096] + "Y", long, 4096},
	} {
		assert.Equal(t, c.want, commonPrefix(c.a, c.b), "%.20q / %.20q", c.a, c.b)
		assert.Equal(t, c.want, commonPrefix(c.b, c.a))
	}
}

// FuzzMemo sums a large body, then the fuzzer's edit of it, through one
// Memo: the second sum must be the definitions' whatever the edit.
func FuzzMemo(f *testing.F) {
	f.Add("- [[g/x]] — entrée.\n", uint32(70000), "inserted — text\n", uint16(0))
	f.Add("abc\xe2\x80", uint32(Spacing-1), "\xff", uint16(3))
	base := index(1000)
	f.Fuzz(func(t *testing.T, seed string, at uint32, insert string, cut uint16) {
		body := base + seed
		pos := int(at) % (len(body) + 1)
		end := min(len(body), pos+int(cut))
		edited := body[:pos] + insert + body[end:]
		var m Memo
		m.Of("k", body)
		if got, w := m.Of("k", edited), want(edited); got != w {
			t.Fatalf("edit at %d (cut %d, insert %q): got %+v, want %+v", pos, cut, insert, got, w)
		}
	})
}

// BenchmarkMemoIndexGrowth sums an index and its next version in turn,
// as writes into one folder do (each resumes from the other's checkpoints).
func BenchmarkMemoIndexGrowth(b *testing.B) {
	body := index(5000) // ~420 KB, as the largest man-page folder's index
	trailer := "\n## Cross trails\n"
	versions := []string{body, body[:len(body)-len(trailer)] + "- [[g/next]] — next.\n" + trailer}
	var m Memo
	b.SetBytes(int64(len(body)))
	i := 0
	for b.Loop() {
		m.Of("g/_index", versions[i%2])
		i++
	}
}

func BenchmarkOfWhole(b *testing.B) {
	body := index(5000)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		Of(body)
	}
}
