// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/klauspost/compress/zlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkDelta applies the delta with go-git's decoder and compares. Empty
// objects are never deltified (pending.note): go-git refuses those deltas.
func checkDelta(t testing.TB, base, target []byte) []byte {
	t.Helper()
	if len(base) == 0 || len(target) == 0 {
		return nil
	}
	d := newDeltaBase(base).delta(target)
	got, err := packfile.PatchDelta(base, d)
	require.NoError(t, err)
	require.Equal(t, string(target), string(got))
	return d
}

// indexText is a branch index with n entries, as plant renders it.
func indexText(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: g/_index\ntype: branch\ncoverage: %d bananas, 0 sub-branches\n---\n\n# G\n\n## Sub-branches\n\n## Direct bananas\n", n)
	for i := range n {
		fmt.Fprintf(&b, "- [[g/page-%04d]] — Manual page %d: what it does, its options and files.\n", i, i)
	}
	b.WriteString("\n## Cross trails\n")
	return b.String()
}

// goGitHead is the head commit of the repository at dir as go-git, not
// this package, reads it.
func goGitHead(t *testing.T, dir string) *object.Commit {
	t.Helper()
	g, err := git.PlainOpen(dir)
	require.NoError(t, err)
	head, err := g.Head()
	require.NoError(t, err)
	c, err := g.CommitObject(head.Hash())
	require.NoError(t, err)
	return c
}

func TestDeltaRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	bin := random(200_000)
	cases := []struct{ name, base, target string }{
		{"one byte", "a", "b"},
		{"to one byte", "old\n", "x"},
		{"same", indexText(50), indexText(50)},
		{"one entry more", indexText(300), indexText(301)},
		{"many entries more", indexText(10), indexText(400)},
		{"entries fewer", indexText(400), indexText(399)},
		{"no newline", strings.Repeat("abc", 40_000), strings.Repeat("abc", 40_001)},
		{"binary insert", string(bin), string(bin[:70_000]) + "inserted entry" + string(bin[70_000:])},
		{"binary replace", string(bin), string(random(150_000))},
		{"long copy over 64 KiB", strings.Repeat("x\n", 100_000), "head\n" + strings.Repeat("x\n", 100_000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := checkDelta(t, []byte(c.base), []byte(c.target))
			if c.name == "one entry more" {
				assert.Less(t, len(d), 200, "an appended entry costs its line, not the index")
			}
		})
	}
}

func FuzzDelta(f *testing.F) {
	f.Add([]byte(indexText(3)), []byte(indexText(4)))
	f.Add([]byte("a\nb\nc\n"), []byte("c\nb\na\n"))
	f.Add([]byte{}, []byte("x"))
	f.Fuzz(func(t *testing.T, base, target []byte) { checkDelta(t, base, target) })
}

// TestCommonEndsAcrossBlocks holds matchLen and commonSuffix to the
// byte-wise answer where their block compare meets the word loop: a
// single difference at every offset near a block edge, in inputs of
// unequal lengths too.
func TestCommonEndsAcrossBlocks(t *testing.T) {
	base := make([]byte, 3*matchBlock+37)
	for i := range base {
		base[i] = byte(i*131 + i/7)
	}
	naive := func(a, b []byte) (prefix, suffix int) {
		for prefix < min(len(a), len(b)) && a[prefix] == b[prefix] {
			prefix++
		}
		for suffix < min(len(a), len(b)) && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
			suffix++
		}
		return prefix, suffix
	}
	var at []int
	for _, edge := range []int{0, matchBlock, 2 * matchBlock, 3 * matchBlock} {
		for d := -9; d <= 9; d++ {
			if p := edge + d; p >= 0 && p < len(base) {
				at = append(at, p)
			}
		}
	}
	for _, p := range at {
		for _, cut := range []int{0, 1, matchBlock - 1, matchBlock} {
			a := base
			b := slices.Clone(base[cut:])
			if q := p - cut; q >= 0 {
				b[q] ^= 0x40
			}
			wantP, wantS := naive(a, b)
			assert.Equal(t, wantP, matchLen(a, b), "prefix, difference at %d, cut %d", p, cut)
			assert.Equal(t, wantS, commonSuffix(a, b), "suffix, difference at %d, cut %d", p, cut)
			wantP, wantS = naive(b, a)
			assert.Equal(t, wantP, matchLen(b, a), "prefix swapped, difference at %d, cut %d", p, cut)
			assert.Equal(t, wantS, commonSuffix(b, a), "suffix swapped, difference at %d, cut %d", p, cut)
		}
	}
}

// FuzzCommonEnds checks the word-wise prefix and suffix lengths against
// byte-wise ones.
func FuzzCommonEnds(f *testing.F) {
	f.Add([]byte("0123456789abcdefXY"), []byte("0123456789abcdefZY"))
	f.Add([]byte("same"), []byte("same"))
	f.Add([]byte{}, []byte("x"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		prefix, suffix := 0, 0
		for prefix < min(len(a), len(b)) && a[prefix] == b[prefix] {
			prefix++
		}
		for suffix < min(len(a), len(b)) && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
			suffix++
		}
		assert.Equal(t, prefix, matchLen(a, b), "prefix")
		assert.Equal(t, suffix, commonSuffix(a, b), "suffix")
	})
}

// TestPackedHistoryReadsBack: a Repo that packs as it goes (tiny rounds
// here) leaves a history git and go-git read whole, every version of a
// growing index included, writes no loose object, and keeps the number of
// packs bounded by deleting what each merge superseded.
func TestPackedHistoryReadsBack(t *testing.T) {
	defer func(a, b int) { packAfter, packsPerMerge = a, b }(packAfter, packsPerMerge)
	packAfter, packsPerMerge = 64<<10, 8
	dir, r := newForest(t)
	ctx := context.Background()
	const n = 120
	for i := range n {
		writeFile(t, dir, "g/_index.md", indexText(i+1))
		writeFile(t, dir, fmt.Sprintf("g/page-%04d.md", i), strings.Repeat(fmt.Sprintf("page %d\n", i), 40))
		_, err := r.Commit(ctx, Message{Subject: fmt.Sprintf("plant(g/page-%04d): P", i)},
			[]string{"g/_index.md", fmt.Sprintf("g/page-%04d.md", i)}, nil, at(i+1))
		require.NoError(t, err)
	}
	packs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	require.NoError(t, err)
	assert.NotEmpty(t, packs, "the history was packed")
	// Per round: its pack, at most packsPerMerge commit packs, and what
	// the last merge superseded; plus the packs of finished rounds.
	rounds := 0
	for _, p := range packs {
		if fi, err := os.Stat(strings.TrimSuffix(p, ".idx") + ".pack"); err == nil && fi.Size() > 16<<10 {
			rounds++
		}
	}
	assert.LessOrEqual(t, len(packs), rounds+2*packsPerMerge+2, "superseded packs are deleted")
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"))
	counts := gitCmd(t, dir, "count-objects", "-v")
	var loose int
	for _, l := range lines(counts) {
		fmt.Sscanf(l, "count: %d", &loose)
	}
	assert.Zero(t, loose, counts)

	c := goGitHead(t, dir)
	for i := n; i > 0; i-- {
		f, err := c.File("g/_index.md")
		require.NoError(t, err)
		got, err := f.Contents()
		require.NoError(t, err)
		require.Equal(t, indexText(i), got, "index at commit %d", i)
		if i > 1 {
			c, err = c.Parent(0)
			require.NoError(t, err)
		}
	}
	es, err := r.Log(ctx, "g/_index.md", 0, true)
	require.NoError(t, err)
	assert.Len(t, es, n)
	_, err = os.Stat(filepath.Join(dir, ".git", "objects", "pack"))
	require.NoError(t, err)
}

// TestLargeObjectsReadBack: a growing large object goes into each commit
// pack as a delta with its base repeated beside it, small ones whole
// beside them; across commits and a merge, git and go-git read every
// version of both exactly, and a commit pack holds far less than the
// large object's versions whole.
func TestLargeObjectsReadBack(t *testing.T) {
	defer func(b int) { packsPerMerge = b }(packsPerMerge)
	packsPerMerge = 3
	dir, r := newForest(t)
	const n = 7
	const large = 64 << 10
	big := func(i int) string { return indexText(large/60 + i*4) } // > large, growing
	small := func(i int) string { return fmt.Sprintf("page %d\n", i) }
	require.Greater(t, len(big(0)), large)
	for i := range n {
		commitPage(t, dir, r, i, big(i), small(i))
	}
	assert.NotEmpty(t, r.prefix.bases, "commit packs repeated a base")
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD:g/_index.md"))
	idxs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	require.NoError(t, err)
	held := 0
	for _, idx := range idxs {
		for line := range strings.Lines(gitCmd(t, dir, "verify-pack", "-v", idx)) {
			if f := strings.Fields(line); len(f) > 0 && f[0] == head {
				held++
				assert.Len(t, f, 7, "every pack holds the newest index as a delta: %s", line)
			}
		}
	}
	assert.Positive(t, held, "some pack holds the newest index")
	for i := range n {
		rev := fmt.Sprintf("HEAD~%d", n-1-i)
		assert.Equal(t, big(i), gitCmd(t, dir, "show", rev+":g/_index.md"), "git, version %d", i)
		assert.Equal(t, small(i), gitCmd(t, dir, "show", rev+":g/page.md"), "git, version %d", i)
	}
	c := goGitHead(t, dir)
	for i := n - 1; i >= 0; i-- {
		for path, want := range map[string]string{"g/_index.md": big(i), "g/page.md": small(i)} {
			f, err := c.File(path)
			require.NoError(t, err)
			got, err := f.Contents()
			require.NoError(t, err)
			require.Equal(t, want, got, "go-git, %s version %d", path, i)
		}
		if i > 0 {
			var err error
			c, err = c.Parent(0)
			require.NoError(t, err)
		}
	}
}

// commitPage commits version i of g/_index.md and g/page.md, then has git
// verify the checksums and CRCs of the commit pack it wrote, whose
// checksum may resume from the last one's prefix (the same repeated
// base).
func commitPage(t *testing.T, dir string, r *Repo, i int, index, page string) {
	t.Helper()
	writeFile(t, dir, "g/_index.md", index)
	writeFile(t, dir, "g/page.md", page)
	_, err := r.Commit(context.Background(), Message{Subject: fmt.Sprintf("plant(g/page): %d", i)},
		[]string{"g/_index.md", "g/page.md"}, nil, at(i+1))
	require.NoError(t, err)
	if cs := r.pend.commits; len(cs) > 0 {
		gitCmd(t, dir, "verify-pack", cs[len(cs)-1]+".idx")
	}
}

// TestGrownDeltasRebase: versions of an index that each add entries are
// deltas against the last whole version until a delta no longer fits;
// that version is stored whole and the next ones are deltas against it.
func TestGrownDeltasRebase(t *testing.T) {
	var p pending
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	var bases []plumbing.Hash
	for i := range 200 {
		data := []byte(indexText(1800 + i*10))
		o := newObject{hash: plumbing.ComputeHash(plumbing.BlobObject, data), typ: plumbing.BlobObject, data: data, key: "g/_index.md"}
		e, err := p.entry(o, zw)
		require.NoError(t, err)
		if i > 0 && e.base.IsZero() {
			assert.False(t, deltaFits(len(p.bases[o.key].base.delta(data)), len(data)), "version %d stored whole with a delta that fits", i)
		}
		if !e.base.IsZero() {
			assert.Equal(t, bases[len(bases)-1], e.base, "version %d is a delta against the last whole version", i)
			assert.True(t, deltaFits(e.size, len(data)), "version %d", i)
		} else {
			bases = append(bases, o.hash)
		}
		p.add(o, e)
	}
	assert.Greater(t, len(bases), 2, "the deltas grew past what fits, more than once")
	assert.Less(t, len(bases), 40, "most versions are deltas")
}

// TestHalfInstalledPackIsIgnored: a writer killed between a pack's two
// files leaves an index without its pack (install writes the index
// first); neither git nor go-git may stumble on it.
func TestHalfInstalledPackIsIgnored(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	writeFile(t, dir, "g/a.md", "alpha\n")
	_, err := r.Commit(ctx, Message{Subject: "plant(g/a): A"}, []string{"g/a.md"}, nil, at(1))
	require.NoError(t, err)
	idxs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	require.NoError(t, err)
	require.NotEmpty(t, idxs)
	data, err := os.ReadFile(idxs[0])
	require.NoError(t, err)
	orphan := filepath.Join(dir, ".git", "objects", "pack", "pack-"+strings.Repeat("ab", 20)+".idx")
	require.NoError(t, os.WriteFile(orphan, data, 0o444))

	writeFile(t, dir, "g/b.md", "beta\n")
	_, err = r.Commit(ctx, Message{Subject: "plant(g/b): B"}, []string{"g/b.md"}, nil, at(2))
	require.NoError(t, err)
	es, err := r.Log(ctx, "g/a.md", 0, false)
	require.NoError(t, err)
	assert.Len(t, es, 1)
	goGitHead(t, dir)
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"))
}

// TestEntryEncodings: pack entry headers and OFS_DELTA distances as git's
// Documentation/gitformat-pack.txt spells them.
func TestEntryEncodings(t *testing.T) {
	for _, c := range []struct {
		t    plumbing.ObjectType
		size int
		want []byte
	}{
		{plumbing.BlobObject, 0, []byte{0x30}},
		{plumbing.BlobObject, 15, []byte{0x3f}},
		{plumbing.BlobObject, 16, []byte{0xb0, 0x01}},
		{plumbing.TreeObject, 2047, []byte{0xaf, 0x7f}},
		{plumbing.OFSDeltaObject, 2048, []byte{0xe0, 0x80, 0x01}},
	} {
		assert.Equal(t, c.want, appendEntryHeader(nil, c.t, c.size), "%s of %d", c.t, c.size)
	}
	for d, want := range map[int][]byte{
		1: {0x01}, 127: {0x7f}, 128: {0x80, 0x00}, 16511: {0xff, 0x7f}, 16512: {0x80, 0x80, 0x00},
	} {
		assert.Equal(t, want, appendOfsDistance([]byte{0xaa}, d)[1:], "distance %d", d)
	}
}

// TestRestagedBlobIsNotPackedAgain: a file rewritten with the bytes the
// index already has for it adds no blob to the commit's pack, and a file
// whose content returns to a version an older commit stored is stored
// again (no lookup in the store) with the history still whole for git.
func TestRestagedBlobIsNotPackedAgain(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	commit := func(i int, files map[string]string) {
		t.Helper()
		var paths []string
		for p, content := range files {
			writeFile(t, dir, p, content)
			paths = append(paths, p)
		}
		_, err := r.Commit(ctx, Message{Subject: fmt.Sprintf("graft(n%d): test", i)}, paths, nil, at(i))
		require.NoError(t, err)
	}
	packed := func() string {
		t.Helper()
		cs := r.pend.commits
		require.NotEmpty(t, cs)
		return gitCmd(t, dir, "verify-pack", "-v", cs[len(cs)-1]+".idx")
	}
	blob := func(rev string) string { return strings.TrimSpace(gitCmd(t, dir, "rev-parse", rev)) }

	commit(1, map[string]string{"a/x.md": node("a/x", ""), "a/y.md": node("a/y", "")})
	x := blob("HEAD:a/x.md")
	// A new Repo (another process) starts with no round to find x in.
	var err error
	r, err = Open(dir)
	require.NoError(t, err)
	commit(2, map[string]string{"a/x.md": node("a/x", ""), "a/y.md": node("a/y", "tags:\n- t\n")})
	assert.NotContains(t, packed(), x, "an unchanged blob is not packed again")

	y1 := blob("HEAD~1:a/y.md")
	commit(3, map[string]string{"a/y.md": node("a/y", "")})
	assert.Equal(t, y1, blob("HEAD:a/y.md"))
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	assert.Empty(t, gitCmd(t, dir, "status", "--porcelain"))
}

// TestSpilledPacksReadBack: with every pack spilling to its file in
// chunks smaller than one entry, commit packs (whose checksum may resume
// after a repeated base) and round packs verify with git, every version
// reads back, and no temporary file is left behind.
func TestSpilledPacksReadBack(t *testing.T) {
	defer func(a, b, c, d int) { spillAbove, spillChunk, packAfter, packsPerMerge = a, b, c, d }(
		spillAbove, spillChunk, packAfter, packsPerMerge)
	spillAbove, spillChunk, packAfter, packsPerMerge = 0, 1<<10, 256<<10, 4
	dir, r := newForest(t)
	const n = 24
	big := func(i int) string { return indexText(200 + i*40) }
	page := func(i int) string { return strings.Repeat(fmt.Sprintf("page %d\n", i), 400) }
	rounds := 0
	for i := range n {
		commitPage(t, dir, r, i, big(i), page(i))
		if sg := r.pend.segs; len(sg) > 0 {
			gitCmd(t, dir, "verify-pack", sg[len(sg)-1].name+".idx")
			rounds++
		}
	}
	require.Positive(t, rounds, "some segment was written")
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	temps, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "tmp_pack_*"))
	require.NoError(t, err)
	assert.Empty(t, temps, "no temporary pack is left")
	for i := range n {
		rev := fmt.Sprintf("HEAD~%d", n-1-i)
		assert.Equal(t, big(i), gitCmd(t, dir, "show", rev+":g/_index.md"), "version %d", i)
		assert.Equal(t, page(i), gitCmd(t, dir, "show", rev+":g/page.md"), "version %d", i)
	}
}

// TestAbandonedSpillIsRemoved: a pack that spilled to its file and is
// released without being installed leaves nothing in its directory.
func TestAbandonedSpillIsRemoved(t *testing.T) {
	defer func(a, b int) { spillAbove, spillChunk = a, b }(spillAbove, spillChunk)
	spillAbove, spillChunk = 0, 16
	dir := t.TempDir()
	data := []byte(strings.Repeat("x", 100))
	w := newPackWriter(dir, 1, len(data))
	require.NotNil(t, w.file)
	w.add(&pendingObject{hash: plumbing.ComputeHash(plumbing.BlobObject, data), typ: plumbing.BlobObject, size: len(data), z: data})
	w.release()
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left)
}

// TestWrittenBytesAreNotKept: a caller may reuse the bytes it passed as
// Options.Written once Commit returns: scribbling over them changes
// neither the version they were nor the later versions stored as deltas
// against it.
func TestWrittenBytesAreNotKept(t *testing.T) {
	dir, r := newForest(t)
	ctx := context.Background()
	const n = 6
	buf := make([]byte, 0, 256<<10)
	for i := range n {
		text := indexText(800 + i*3)
		writeFile(t, dir, "g/_index.md", text)
		buf = append(buf[:0], text...)
		opt := at(i + 1)
		opt.Written = map[string][]byte{"g/_index.md": buf}
		_, err := r.Commit(ctx, Message{Subject: fmt.Sprintf("plant(g): %d", i)}, []string{"g/_index.md"}, nil, opt)
		require.NoError(t, err)
		for j := range buf {
			buf[j] = 'x'
		}
	}
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	for i := range n {
		rev := fmt.Sprintf("HEAD~%d", n-1-i)
		assert.Equal(t, indexText(800+i*3), gitCmd(t, dir, "show", rev+":g/_index.md"), "version %d", i)
	}
}

// TestMergesCarryByLevels: the commit packs become a segment of level 0,
// and fanIn segments of a level merge into one of the next, as a counter
// carries; the end of a round merges everything.
func TestMergesCarryByLevels(t *testing.T) {
	levels := func(ls ...int) []segment {
		var segs []segment
		for _, l := range ls {
			segs = append(segs, segment{level: l})
		}
		return segs
	}
	tests := []struct {
		name      string
		segs      []segment
		ends      bool
		keep, lvl int
	}{
		{"first merge", nil, false, 0, 0},
		{"level 0 grows", levels(0, 0), false, 2, 0},
		{"level 0 carries", levels(0, 0, 0), false, 0, 1},
		{"carry stops at a lower count", levels(1, 0, 0, 0), false, 1, 1},
		{"carry runs on", levels(1, 1, 1, 0, 0, 0), false, 0, 2},
		{"a higher level stays", levels(2, 1, 1, 1, 0, 0, 0), false, 1, 2},
		{"the round ends", levels(2, 1, 0), true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pending{segs: tt.segs}
			keep, lvl := p.mergeFrom(tt.ends)
			assert.Equal(t, tt.keep, keep, "keep")
			assert.Equal(t, tt.lvl, lvl, "level")
		})
	}
}

// TestSegmentsHoldTheRound: across many merges of several levels and the
// ends of rounds, the packs left once what the merges superseded is gone
// hold every version of a growing index and of the pages beside it,
// verify with git, and stay few.
func TestSegmentsHoldTheRound(t *testing.T) {
	defer func(a, b int) { packAfter, packsPerMerge = a, b }(packAfter, packsPerMerge)
	packAfter, packsPerMerge = 96<<10, 2
	dir, r := newForest(t)
	ctx := context.Background()
	const n = 150
	maxLevel, ended, objs := 0, 0, 0
	for i := range n {
		writeFile(t, dir, "g/_index.md", indexText(300+i))
		writeFile(t, dir, fmt.Sprintf("g/page-%04d.md", i), strings.Repeat(fmt.Sprintf("page %d\n", i), 60))
		_, err := r.Commit(ctx, Message{Subject: fmt.Sprintf("plant(g/page-%04d): P", i)},
			[]string{"g/_index.md", fmt.Sprintf("g/page-%04d.md", i)}, nil, at(i+1))
		require.NoError(t, err)
		for _, sg := range r.pend.segs {
			maxLevel = max(maxLevel, sg.level)
		}
		if len(r.pend.objs) < objs {
			ended++
		}
		objs = len(r.pend.objs)
	}
	require.Positive(t, ended, "rounds ended")
	require.GreaterOrEqual(t, maxLevel, 2, "merges carried to level 2")
	for _, old := range r.pend.doomed {
		removePack(old)
	}
	idxs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	require.NoError(t, err)
	for _, idx := range idxs {
		gitCmd(t, dir, "verify-pack", idx)
	}
	assert.LessOrEqual(t, len(r.pend.segs), (fanIn-1)*(maxLevel+1)+1, "segments per round")
	assert.Len(t, idxs, ended+len(r.pend.segs)+len(r.pend.commits),
		"a pack per ended round, the round's segments and commit packs, nothing else")
	assert.Empty(t, gitCmd(t, dir, "fsck", "--strict", "--no-progress"))
	for i := range n {
		rev := fmt.Sprintf("HEAD~%d", n-1-i)
		require.Equal(t, indexText(300+i), gitCmd(t, dir, "show", rev+":g/_index.md"), "version %d", i)
	}
	c := goGitHead(t, dir)
	f, err := c.File("g/page-0000.md")
	require.NoError(t, err)
	got, err := f.Contents()
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("page 0\n", 60), got)
}
