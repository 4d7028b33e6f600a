// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/fixture"
)

// The fixture's own managed link: an agent's shortcut between two nodes
// nobody has warmed.
const (
	shortcutSrc    = "operations/departure-checklist"
	shortcutTarget = "concepts/beaufort-scale"
)

type outcome int

const (
	kept outcome = iota
	promoted
	pruned
)

// linkCase is one link between two nodes of its own, with the heat its
// ends carry when the Ranger runs (defaults: promote_floor 0.2,
// promoted_confidence 0.8, prune_below 0.5).
type linkCase struct {
	name       string
	rel        string
	confidence any // nil: no confidence key
	hs, ht     float64
	missing    bool // the target is no node
	want       outcome
}

var linkCases = []linkCase{
	{name: "both ends at the floor promote", rel: "related-to", confidence: 0.3, hs: 0.2, ht: 0.2, want: promoted},
	{name: "both ends hot promote", rel: "related-to", confidence: 0.3, hs: 0.9, ht: 0.25, want: promoted},
	{name: "a shortcut at 0.5 promotes", rel: "discovered-shortcut", confidence: 0.5, hs: 0.3, ht: 0.3, want: promoted},
	{name: "one end under the floor is kept", rel: "related-to", confidence: 0.3, hs: 0.9, ht: 0.19, want: kept},
	{name: "one warm end keeps a cold proposal", rel: "related-to", confidence: 0.3, hs: 0.1, ht: 0, want: kept},
	{name: "the other warm end keeps it too", rel: "related-to", confidence: 0.3, hs: 0, ht: 0.05, want: kept},
	{name: "both ends stone cold prune", rel: "related-to", confidence: 0.3, want: pruned},
	{name: "prune_below itself prunes", rel: "related-to", confidence: 0.5, want: pruned},
	{name: "an integer 0 prunes", rel: "related-to", confidence: int64(0), want: pruned},
	{name: "over prune_below is kept cold", rel: "related-to", confidence: 0.6, want: kept},
	{name: "a promoted link is not promoted again", rel: "related-to", confidence: 0.8, hs: 0.9, ht: 0.9, want: kept},
	{name: "a promoted link is not pruned cold", rel: "related-to", confidence: 0.8, want: kept},
	{name: "a missing target is cold", rel: "related-to", confidence: 0.3, missing: true, want: pruned},
	{name: "confidence 1.0 is never pruned", rel: "related-to", confidence: 1.0, want: kept},
	{name: "confidence 1.0 is never promoted", rel: "related-to", confidence: 1.0, hs: 0.9, ht: 0.9, want: kept},
	{name: "no confidence is a person's link", rel: "related-to", confidence: nil, want: kept},
	{name: "a string confidence is unmanaged", rel: "related-to", confidence: "0.3", want: kept},
	{name: "a boolean confidence is unmanaged", rel: "related-to", confidence: false, want: kept},
	{name: "a structural link is never pruned", rel: "part-of", confidence: 0.3, want: kept},
	{name: "a structural link is never promoted", rel: "part-of", confidence: 0.3, hs: 0.9, ht: 0.9, want: kept},
}

// placed is a linkCase put on two fixture nodes.
type placed struct {
	linkCase
	src, target string
}

func (p placed) ref() string { return p.src + " " + p.rel + "->" + p.target }

// freePair takes two nodes off free whose pair carries no link yet, so
// each case's link is the only one between its ends.
func freePair(t *testing.T, dir string, free []string) (src, target string, rest []string) {
	t.Helper()
	for i := 0; i+1 < len(free); i++ {
		src, target = free[i], free[i+1]
		if len(entriesFor(readNode(t, dir, src), "related-to", target)) == 0 &&
			len(entriesFor(readNode(t, dir, src), "part-of", target)) == 0 &&
			len(entriesFor(readNode(t, dir, src), "discovered-shortcut", target)) == 0 {
			return src, target, slices.Delete(slices.Clone(free), i, i+2)
		}
	}
	t.Fatal("the fixture ran out of unlinked node pairs")
	return "", "", nil
}

func TestTendLinks(t *testing.T) {
	ctx := context.Background()
	var cases []placed
	v, dir, _ := openFixture(t, func(dir string, man *fixture.Manifest) {
		free := leaves(man, shortcutSrc, shortcutTarget)
		for _, lc := range linkCases {
			p := placed{linkCase: lc}
			p.src, p.target, free = freePair(t, dir, free)
			if lc.missing {
				p.target = "nowhere/gone-" + p.src
			}
			editNode(t, dir, p.src, func(n *forest.Node) { addLinks(n, link(p.rel, p.target, p.confidence)) })
			cases = append(cases, p)
		}
	})
	for _, p := range cases {
		if p.hs > 0 {
			deposit(t, v, p.hs, now, p.src)
		}
		if p.ht > 0 {
			deposit(t, v, p.ht, now, p.target)
		}
	}
	base := head(t, dir)
	res, err := newRanger(t, v).TendLinks(ctx)
	require.NoError(t, err)
	assert.Empty(t, res.Refused)

	shortcut := shortcutSrc + " discovered-shortcut->" + shortcutTarget
	assert.Contains(t, res.Pruned, shortcut, "the fixture's cold shortcut goes")
	var subjects []string
	for _, p := range cases {
		t.Run(p.name, func(t *testing.T) {
			entries := entriesFor(readNode(t, dir, p.src), p.rel, p.target)
			switch p.want {
			case promoted:
				assert.Contains(t, res.Promoted, p.ref())
				require.Len(t, entries, 1)
				c, _ := entries[0].Get("confidence")
				assert.Equal(t, 0.8, c)
				subjects = append(subjects, gitops.RangerPromoteSubject(p.src, p.rel, p.target, 0.8))
			case pruned:
				assert.Contains(t, res.Pruned, p.ref())
				assert.Empty(t, entries)
				subjects = append(subjects, gitops.RangerPruneSubject(p.src, p.rel, p.target))
			default:
				assert.NotContains(t, res.Promoted, p.ref())
				assert.NotContains(t, res.Pruned, p.ref())
				require.Len(t, entries, 1)
				c, has := entries[0].Get("confidence")
				assert.Equal(t, p.confidence != nil, has)
				if has {
					assert.Equal(t, p.confidence, c, "an untouched link keeps its value and type")
				}
			}
		})
	}
	subjects = append(subjects, gitops.RangerPruneSubject(shortcutSrc, "discovered-shortcut", shortcutTarget))
	commits := commitsSince(t, dir, base)
	require.Len(t, commits, len(subjects), "one commit per change, none for the rest")
	var got []string
	for _, c := range commits {
		got = append(got, c.Subject)
		require.Len(t, c.Files, 1, "%s commits one file", c.Subject)
		assert.Regexp(t, `\.md$`, c.Files[0])
	}
	assert.ElementsMatch(t, subjects, got)
}

func TestPromotionKeepsTheLinkEntry(t *testing.T) {
	ctx := context.Background()
	v, dir, _ := openFixture(t, nil)
	deposit(t, v, 0.5, now, shortcutSrc, shortcutTarget)
	res, err := newRanger(t, v).TendLinks(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{shortcutSrc + " discovered-shortcut->" + shortcutTarget}, res.Promoted)

	n := readNode(t, dir, shortcutSrc)
	entries := entriesFor(n, "discovered-shortcut", shortcutTarget)
	require.Len(t, entries, 1)
	assert.Equal(t, []string{"rel", "target", "confidence", "discovered_by"}, entries[0].Keys(),
		"the confidence changes in place and the extras stay")
	assert.Equal(t, "agent", entries[0].String("discovered_by"))
	assert.Equal(t, now.Format(time.DateOnly), n.Updated(), "the rewrite stamps updated")
}

func TestPruneTouchesOnlyTheManagedEntry(t *testing.T) {
	ctx := context.Background()
	const lonely, authored = "finance/fuel-subsidy", "finance/member-dues"
	v, dir, _ := openFixture(t, func(dir string, _ *fixture.Manifest) {
		editNode(t, dir, lonely, func(n *forest.Node) {
			require.False(t, n.Front.Has("links"), "the test needs a node without links")
			addLinks(n, link("related-to", "finance/budget-rules", 0.3))
		})
		editNode(t, dir, authored, func(n *forest.Node) {
			addLinks(n, link("related-to", "finance/budget-rules", nil),
				link("related-to", "finance/budget-rules", 0.3, forest.Field{Key: "note", Value: "proposed"}))
		})
	})
	res, err := newRanger(t, v).TendLinks(ctx)
	require.NoError(t, err)
	assert.Subset(t, res.Pruned, []string{lonely + " related-to->finance/budget-rules",
		authored + " related-to->finance/budget-rules"})

	assert.False(t, readNode(t, dir, lonely).Front.Has("links"), "a links list left empty loses its key")
	left := entriesFor(readNode(t, dir, authored), "related-to", "finance/budget-rules")
	require.Len(t, left, 1, "the authored twin of a pruned proposal stays")
	assert.False(t, left[0].Has("confidence"))
}

func TestTendLinksGoesOnPastARefusedNode(t *testing.T) {
	ctx := context.Background()
	const broken = "finance/fuel-subsidy"
	v, dir, _ := openFixture(t, func(dir string, _ *fixture.Manifest) {
		editNode(t, dir, broken, func(n *forest.Node) {
			addLinks(n, link("admires", "finance/member-dues", nil), link("related-to", "finance/budget-rules", 0.3))
		})
	})
	before := readNode(t, dir, broken).Bytes()
	res, err := newRanger(t, v).TendLinks(ctx)
	require.NoError(t, err)
	require.Len(t, res.Refused, 1)
	assert.Contains(t, res.Refused[0], broken+" related-to->finance/budget-rules: ")
	assert.Contains(t, res.Refused[0], "admires", "the refusal says what is wrong with the node")
	assert.Equal(t, before, readNode(t, dir, broken).Bytes(), "a refused node is left as it was")
	assert.Contains(t, res.Pruned, shortcutSrc+" discovered-shortcut->"+shortcutTarget, "the sweep went on")
}
