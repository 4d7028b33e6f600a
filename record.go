// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/bodysum"
)

// recordOf is the catalog row of a parsed node (C.6.1). Branches missing a
// title or summary read them from the body, as the spec's read tolerance
// asks.
func recordOf(n *forest.Node) catalog.Record { return recordSummed(n, nil) }

// recordSummed is recordOf with the body's hash and token estimate taken
// from sums, which reads only what changed since the last large body it
// summed for the node (a folder's index, rewritten on every write into
// the folder). A nil sums sums the body whole.
func recordSummed(n *forest.Node, sums *bodysum.Memo) catalog.Record {
	outline := forest.ParseOutline(n.Body)
	kind := "note"
	if n.Type() == "branch" {
		kind = "branch"
	}
	title := n.Title()
	if title == "" {
		title = outline.Title
	}
	if title == "" {
		title = n.ID
	}
	summary := n.Summary()
	if summary == "" {
		summary = outline.Quote
	}
	sections := make([]string, len(outline.Sections))
	for i, h := range outline.Sections {
		sections[i] = h.Text
	}
	rec := catalog.Record{
		ID: n.ID, Kind: kind, Type: n.Type(), Title: title, Summary: summary,
		Tags: n.Tags(), Aliases: n.Aliases(),
		Created: n.Front.String("created"), Updated: n.Front.String("updated"),
		Confidence: n.Confidence(), Source: n.Source(), EntityKind: n.EntityKind(),
		Payload: n.Payload(), PayloadType: n.PayloadType(), PayloadHash: n.PayloadHash(),
		Origin: n.Origin(), Lang: n.Lang(),
		Parent: forest.ParentIndex(n.ID), Trail: forest.Trail(n.ID),
		Coverage: n.Coverage(), Outline: sections, Content: n.Content(), MovedFrom: n.MovedFrom(),
	}
	sum := sums.Of(n.ID, n.Body)
	rec.BodyTokens = sum.Tokens
	if rec.Content != "cached" && rec.Content != "reference" {
		rec.BodyHash = sum.Hash
	}
	for _, l := range n.Links() {
		if l.Rel != "" && l.Target != "" {
			rec.Edges = append(rec.Edges, catalog.Edge{Rel: l.Rel, Dst: l.Target, Confidence: l.Confidence})
		}
	}
	return rec
}

// BodyHash is the normative body hash (C.6.1 §2.2): SHA-256 hex of the body
// as sniff scans it. It is [catalog.BodyHash], which owns it.
func BodyHash(body string) string { return catalog.BodyHash(body) }
