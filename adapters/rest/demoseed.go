// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"

	"github.com/monkeyllm/vine"
)

// demoNodes are the "demo" seed of forest creation (J.7): a small forest
// about the forest itself, planted through the public plant primitive in
// one commit, so it is exactly what an agent could have written and
// ships no content of anyone's.
func demoNodes() []vine.NodeSpec {
	related := func(to string) []vine.Link { return []vine.Link{{Rel: "related-to", Target: to}} }
	return []vine.NodeSpec{
		{ID: "guide/_index", Type: "branch", Title: "Guide", Parent: "_index",
			Summary: "How an agent finds its way through this forest: entry, reading and writing.",
			Body:    "Start here to learn the primitives by using them on the notes below."},
		{ID: "guide/finding", Type: "note", Title: "Finding a way in", Parent: "guide/_index",
			Summary: "locate ranks passports for a question; scan lists a branch; sniff searches bodies literally.",
			Body: "## Locate\n\nAsk a question in your own words; locate answers passports, never bodies.\n\n" +
				"## Scan\n\nList a branch, by heat or page by page with a cursor.\n\n" +
				"## Sniff\n\nFind the exact words inside bodies, with the line they sit on.",
			Tags: []string{"primitives", "entry"}, Links: related("guide/reading")},
		{ID: "guide/reading", Type: "note", Title: "Reading within a budget", Parent: "guide/_index",
			Summary: "look gives a digest under 500 tokens; pick reads a body or one section; move follows edges.",
			Body: "## Look\n\nA passport, an outline and the edges both ways.\n\n" +
				"## Pick\n\nThe body, whole or one section, paged when it is long.\n\n" +
				"## Move\n\nNeighbours along typed edges.",
			Tags: []string{"primitives", "reading"}, Links: related("guide/writing")},
		{ID: "guide/writing", Type: "note", Title: "Writing that leaves a trail", Parent: "guide/_index",
			Summary: "plant adds a node, graft edits one, prune retires one: each write is one git commit.",
			Body: "## Plant\n\nA new node and its entry in the parent index, in one commit.\n\n" +
				"## Graft\n\nA patch to one node: a section, frontmatter, a link.\n\n" +
				"## History\n\nEvery node's commits, newest first.",
			Tags: []string{"primitives", "writing"}, Links: related("guide/finding")},
	}
}

// seedDemo plants the demo nodes into the new forest on its writer lane
// and returns the commit.
func (s *Server) seedDemo(ctx context.Context, id string) (string, error) {
	var commit string
	err := s.lanes.withWriter(ctx, id, func(v *vine.Vine) error {
		res, err := v.PlantBatch(ctx, demoNodes(), vine.PlantOptions{})
		if err == nil {
			commit = res.Commit
		}
		return err
	})
	return commit, err
}
