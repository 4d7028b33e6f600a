// SPDX-License-Identifier: Apache-2.0

package bodyindex

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// build writes docs into an index file and loads it.
func build(t *testing.T, docs [][]byte) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bodies.grams")
	w, err := Create(path)
	require.NoError(t, err)
	for i, d := range docs {
		w.Add(fmt.Sprintf("doc/%d", i), sha256.Sum256(d), d)
	}
	require.NoError(t, w.Commit())
	x, err := Load(path)
	require.NoError(t, err)
	return x
}

// exact is the brute-force answer: the documents containing a needle.
func exact(docs [][]byte, needles [][]byte) []int32 {
	var out []int32
	for i, d := range docs {
		for _, n := range needles {
			if bytes.Contains(d, n) {
				out = append(out, int32(i))
				break
			}
		}
	}
	return out
}

func members(s Set) []int32 {
	var out []int32
	s.Each(func(d int32) { out = append(out, d) })
	return out
}

// The index may answer more documents than hold a needle, never fewer.
func TestCandidatesHoldEveryMatch(t *testing.T) {
	defer func(n int) { maxSegmentPairs = n }(maxSegmentPairs)
	maxSegmentPairs = 200 // many segments
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcab é\nxyz-0ß")
	docs := [][]byte{{}, []byte("a"), []byte("ab"), []byte("zz"), []byte("abc")}
	for range 300 {
		d := make([]byte, rng.IntN(60))
		for i := range d {
			d[i] = alphabet[rng.IntN(len(alphabet))]
		}
		docs = append(docs, d)
	}
	x := build(t, docs)
	require.Equal(t, len(docs), x.Len())
	needles := [][]byte{[]byte("ab"), []byte("zz"), []byte("b\n"), []byte("abc"), []byte("é"), []byte("ca b"),
		[]byte("xyz-0"), []byte("qq"), []byte("qqq"), []byte("\xc3\xa9x")}
	for range 200 {
		n := make([]byte, 2+rng.IntN(5))
		for i := range n {
			n[i] = alphabet[rng.IntN(len(alphabet))]
		}
		needles = append(needles, n)
	}
	for _, n := range needles {
		got, err := x.Candidates([][]byte{n})
		require.NoError(t, err)
		want := exact(docs, [][]byte{n})
		for _, d := range want {
			assert.True(t, got.Has(d), "needle %q: document %d (%q) missing", n, d, docs[d])
		}
		if len(n) <= 3 { // one gram: the answer is exact
			assert.Equal(t, want, members(got), "needle %q", n)
		}
	}
	got, err := x.Candidates([][]byte{[]byte("zz"), []byte("abc")})
	require.NoError(t, err)
	assert.Equal(t, exact(docs, [][]byte{[]byte("zz"), []byte("abc")}), members(got), "union over needles")
}

// splitLines splits as Python's str.splitlines, rune by rune: the lines
// sniff scans, written apart from the index's byte rule.
func splitLines(doc []byte) []string {
	var lines []string
	s := []rune(string(doc))
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, string(s[start:i]))
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(s) {
		lines = append(lines, string(s[start:]))
	}
	return lines
}

// Every document holding a needle is a candidate of LineBounds, with a
// bound no smaller than the lines that hold it; a one-gram needle's bound
// on one-line documents is exact.
func TestLineBoundsHoldEveryMatchingLine(t *testing.T) {
	defer func(n int) { maxSegmentPairs = n }(maxSegmentPairs)
	maxSegmentPairs = 200
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "c", " ", "\n", "\r\n", "\r", "é", "\u2028", "\u0085", "\f", "x", "ab"}
	var docs [][]byte
	for range 300 {
		var d []byte
		for range rng.IntN(80) {
			d = append(d, alphabet[rng.IntN(len(alphabet))]...)
		}
		docs = append(docs, d)
	}
	x := build(t, docs)
	for range 300 {
		var n []byte
		for len(n) < 2 || rng.IntN(3) > 0 && len(n) < 7 {
			n = append(n, alphabet[rng.IntN(len(alphabet))]...)
		}
		b, err := x.LineBounds(n)
		require.NoError(t, err)
		require.Len(t, b.Lines, len(b.Docs))
		for d, doc := range docs {
			lines := 0
			for _, l := range splitLines(doc) {
				if strings.Contains(l, string(n)) {
					lines++
				}
			}
			i, found := slices.BinarySearch(b.Docs, int32(d))
			if lines == 0 {
				continue
			}
			if assert.True(t, found, "needle %q: document %d (%q) missing", n, d, doc) {
				assert.GreaterOrEqual(t, b.Lines[i], int32(lines), "needle %q, document %q", n, doc)
			}
		}
	}
	b, err := build(t, [][]byte{[]byte("abc\nabc abc\nxabc"), []byte("zabc")}).LineBounds([]byte("abc"))
	require.NoError(t, err)
	assert.Equal(t, Bounds{Docs: []int32{0, 1}, Lines: []int32{3, 1}}, b)
}

func TestDocumentsKeepTheirIDsAndHashes(t *testing.T) {
	x := build(t, [][]byte{[]byte("one"), []byte("two")})
	id, h := x.Doc(1)
	assert.Equal(t, "doc/1", id)
	assert.Equal(t, sha256.Sum256([]byte("two")), h)
	d, ok := x.Lookup("doc/0")
	assert.True(t, ok)
	assert.Equal(t, int32(0), d)
	_, ok = x.Lookup("doc/9")
	assert.False(t, ok)
}

func TestAReplacedFileIsNoticed(t *testing.T) {
	x := build(t, [][]byte{[]byte("one")})
	w, err := Create(x.path)
	require.NoError(t, err)
	w.Add("other", [32]byte{}, []byte("other"))
	require.NoError(t, w.Commit())
	_, err = x.Candidates([][]byte{[]byte("one")})
	assert.ErrorIs(t, err, ErrReplaced)
}

func TestDamagedFilesAreRefused(t *testing.T) {
	x := build(t, [][]byte{[]byte("one body"), []byte("another")})
	data, err := os.ReadFile(x.path)
	require.NoError(t, err)
	for _, cut := range []int{0, 5, len(data) / 2, len(data) - 1} {
		p := filepath.Join(t.TempDir(), "cut")
		require.NoError(t, os.WriteFile(p, data[:cut], 0o644))
		_, err := Load(p)
		assert.Error(t, err, "cut at %d", cut)
	}
	_, err = Load(filepath.Join(t.TempDir(), "missing"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	w, err := Create(filepath.Join(dir, "seed"))
	require.NoError(f, err)
	w.Add("a", [32]byte{}, []byte("abcd"))
	require.NoError(f, w.Commit())
	seed, err := os.ReadFile(filepath.Join(dir, "seed"))
	require.NoError(f, err)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "x")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		x, err := Load(p)
		if err != nil {
			return
		}
		_, _ = x.Candidates([][]byte{[]byte("ab"), []byte("abc")})
		_, _ = x.LineBounds([]byte("abcd"))
	})
}

// BenchmarkBuild indexes 10,000 documents of about 2 KB of words, the
// scale forest's leaves, per op.
func BenchmarkBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 20000)
	for i := range words {
		words[i] = fmt.Sprintf("w%x%c", rng.Uint32()%1000000, 'a'+rune(i%26))
	}
	docs := make([][]byte, 10000)
	for i := range docs {
		var d []byte
		for len(d) < 2000 {
			d = append(d, words[int(float64(len(words))*rng.Float64()*rng.Float64())]...)
			d = append(d, ' ')
		}
		docs[i] = d
	}
	path := filepath.Join(b.TempDir(), "bodies.grams")
	for b.Loop() {
		w, err := Create(path)
		require.NoError(b, err)
		for i, d := range docs {
			w.Add(fmt.Sprint(i), [32]byte{}, d)
		}
		require.NoError(b, w.Commit())
	}
}

func TestSetAddAll(t *testing.T) {
	a, b := NewSet(130), NewSet(130)
	for _, d := range []int32{0, 64, 129} {
		a.Add(d)
	}
	for _, d := range []int32{1, 64, 128} {
		b.Add(d)
	}
	a.AddAll(b)
	assert.Equal(t, []int32{0, 1, 64, 128, 129}, members(a))
	assert.Equal(t, []int32{1, 64, 128}, members(b), "the other set is left as it was")
}
