// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"encoding/json"
	"slices"

	"github.com/monkeyllm/vine"
)

// hopArgNames are the arguments a hop record keeps (J.10.5, v0.79):
// what shaped the call, never the id (the record names it apart).
var hopArgNames = []string{"query", "terms", "sql", "section", "rel", "scope", "parent_id", "direction", "k",
	"filter", "type_filter", "since", "until", "date_field", "recursive", "granularity"}

// hopArgs keeps the non-empty recorded arguments, strings clipped to 160
// characters.
func hopArgs(obj map[string]any) map[string]any {
	out := map[string]any{}
	for _, name := range hopArgNames {
		v, ok := obj[name]
		if !ok || empty(v) {
			continue
		}
		out[name] = clipValue(v)
	}
	return out
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func clipValue(v any) any {
	switch x := v.(type) {
	case string:
		return clip(x, 160)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clipValue(e)
		}
		return out
	}
	return v
}

// argID is the node a call addressed: its string id or parent_id.
func argID(obj map[string]any) string {
	if id, ok := obj["id"].(string); ok {
		return id
	}
	if id, ok := obj["parent_id"].(string); ok {
		return id
	}
	return ""
}

// listKeys are where results carry their nodes, in the order looked for.
var listKeys = []string{"results", "nodes", "neighbors", "children"}

// hopOut counts what a call returned: tokens for pick, rows for query,
// edges for look, buckets for calendar, roots for coverage, else the size
// of its result list.
func hopOut(tool string, res map[string]any) HopOut {
	n := func(i int) *int { return &i }
	switch tool {
	case "pick":
		return HopOut{Tokens: n(pickTokens(res))}
	case "query":
		return HopOut{Rows: n(intOf(res["row_count"]))}
	case "look":
		return HopOut{Edges: n(lookEdges(res))}
	case "calendar":
		return HopOut{Buckets: n(len(listOf(res, "buckets")))}
	case "coverage":
		return HopOut{Roots: n(len(listOf(res, "roots")))}
	}
	var out HopOut
	for _, k := range listKeys {
		if list, ok := res[k].([]any); ok {
			c := n(len(list))
			switch k {
			case "results":
				out.Results = c
			case "nodes":
				out.Nodes = c
			case "neighbors":
				out.Neighbors = c
			default:
				out.Children = c
			}
			return out
		}
	}
	return out
}

func pickTokens(res map[string]any) int {
	if nodes, ok := res["nodes"].([]any); ok {
		n := 0
		for _, x := range nodes {
			if m, ok := x.(map[string]any); ok {
				n += pickTokens(m)
			}
		}
		return n
	}
	if secs, ok := res["sections"].([]any); ok {
		n := 0
		for _, x := range secs {
			if m, ok := x.(map[string]any); ok {
				n += intOf(m["body_tokens"])
			}
		}
		return n
	}
	return intOf(res["body_tokens"])
}

func lookEdges(res map[string]any) int {
	if nodes, ok := res["nodes"].([]any); ok {
		n := 0
		for _, x := range nodes {
			if m, ok := x.(map[string]any); ok {
				n += lookEdges(m)
			}
		}
		return n
	}
	return len(listOf(res, "edges_out")) + len(listOf(res, "edges_in"))
}

func listOf(res map[string]any, key string) []any {
	l, _ := res[key].([]any)
	return l
}

func intOf(v any) int {
	switch x := v.(type) {
	case json.Number:
		n, _ := x.Int64()
		return int(n)
	case float64:
		return int(x)
	}
	return 0
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// resultIDs are the ids of a result list in order, at most max.
func resultIDs(res map[string]any, max int) []string {
	var ids []string
	for _, k := range listKeys {
		for _, x := range listOf(res, k) {
			if m, ok := x.(map[string]any); ok && str(m, "id") != "" && len(ids) < max {
				ids = append(ids, str(m, "id"))
			}
		}
	}
	return ids
}

// smell gathers the scent of every node a result shows: id, title,
// summary, type and trail, first non-empty value kept. Sources are built
// from it, without any extra call.
func (w *walker) smell(tool string, raw []byte) {
	res := decodeObject(raw)
	if res == nil {
		return
	}
	if tool == "look" || tool == "pick" {
		w.sniffScent(res)
	}
	for _, k := range listKeys {
		for _, x := range listOf(res, k) {
			if m, ok := x.(map[string]any); ok {
				w.sniffScent(m)
			}
		}
	}
}

func (w *walker) sniffScent(m map[string]any) {
	id := str(m, "id")
	if id == "" {
		return
	}
	s, ok := w.scent[id]
	if !ok {
		s = &Source{ID: id}
		w.scent[id] = s
	}
	fill := func(dst *string, key string) {
		if *dst == "" {
			*dst = str(m, key)
		}
	}
	fill(&s.Title, "title")
	fill(&s.Summary, "summary")
	fill(&s.Type, "type")
	if s.Trail == nil {
		for _, x := range listOf(m, "trail") {
			if t, ok := x.(string); ok {
				s.Trail = append(s.Trail, t)
			}
		}
	}
}

// absorb records what a successful call opened and the material it read.
func (w *walker) absorb(tool string, args, res map[string]any) {
	switch tool {
	case "look":
		for _, id := range openedIDs(res) {
			w.open(id)
		}
	case "pick":
		for _, node := range pickedNodes(res) {
			id := str(node, "id")
			w.open(id)
			w.pickMaterial(id, node)
		}
	case "query":
		id := str(args, "id")
		w.open(id)
		rn := w.readNode(id, "query")
		m := Material{SQL: str(args, "sql"), Columns: []string{}}
		for _, c := range listOf(res, "columns") {
			if s, ok := c.(string); ok {
				m.Columns = append(m.Columns, s)
			}
		}
		for _, r := range listOf(res, "rows") {
			if row, ok := r.([]any); ok {
				m.Rows = append(m.Rows, row)
			}
		}
		n := intOf(res["row_count"])
		limited, _ := res["limited"].(bool)
		m.RowCount, m.Limited = &n, &limited
		rn.Content = append(rn.Content, m)
	case "sniff":
		for _, x := range listOf(res, "results") {
			hit, ok := x.(map[string]any)
			if !ok || str(hit, "id") == "" {
				continue
			}
			rn := w.readNode(str(hit, "id"), "sniff")
			rn.Matches = append(rn.Matches, sniffMatches(hit)...)
		}
	}
}

func (w *walker) open(id string) {
	if id != "" && !slices.Contains(w.opened, id) {
		w.opened = append(w.opened, id)
	}
}

// openedIDs are the nodes a look answered for: one digest, or a batch.
func openedIDs(res map[string]any) []string {
	if id := str(res, "id"); id != "" {
		return []string{id}
	}
	var ids []string
	for _, x := range listOf(res, "nodes") {
		if m, ok := x.(map[string]any); ok && str(m, "id") != "" {
			ids = append(ids, str(m, "id"))
		}
	}
	return ids
}

// pickedNodes are the content objects of a pick: one, or a batch.
func pickedNodes(res map[string]any) []map[string]any {
	if str(res, "id") != "" {
		return []map[string]any{res}
	}
	var out []map[string]any
	for _, x := range listOf(res, "nodes") {
		if m, ok := x.(map[string]any); ok && str(m, "id") != "" {
			out = append(out, m)
		}
	}
	return out
}

// pickMaterial keeps what a pick read: the body or section (with the
// outline of a page), or each of several sections.
func (w *walker) pickMaterial(id string, node map[string]any) {
	rn := w.readNode(id, "pick")
	if secs := listOf(node, "sections"); secs != nil {
		for _, x := range secs {
			if s, ok := x.(map[string]any); ok {
				name := str(s, "section")
				rn.Content = append(rn.Content, Material{Section: &name, Body: str(s, "body"),
					BodyTokens: intOf(s["body_tokens"])})
			}
		}
		return
	}
	m := Material{Body: str(node, "body"), BodyTokens: intOf(node["body_tokens"])}
	if sec, ok := node["section"].(string); ok {
		m.Section = &sec
	}
	for _, x := range listOf(node, "outline") {
		if s, ok := x.(string); ok {
			m.Outline = append(m.Outline, s)
		}
	}
	rn.Content = append(rn.Content, m)
}

func sniffMatches(hit map[string]any) []vine.SniffMatch {
	var out []vine.SniffMatch
	for _, x := range listOf(hit, "matches") {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		sm := vine.SniffMatch{Line: intOf(m["line"]), Snippet: str(m, "snippet")}
		if s, ok := m["section"].(string); ok {
			sm.Section = &s
		}
		out = append(out, sm)
	}
	return out
}

// readNode returns the read record of id, noting how it was found.
func (w *walker) readNode(id, how string) *ReadNode {
	rn, ok := w.read[id]
	if !ok {
		rn = &ReadNode{ID: id, FoundBy: []string{}, Matches: []vine.SniffMatch{}, Content: []Material{}}
		w.read[id] = rn
		w.readSeq = append(w.readSeq, id)
	}
	if !slices.Contains(rn.FoundBy, how) {
		rn.FoundBy = append(rn.FoundBy, how)
	}
	return rn
}

func (w *walker) readNodes() []ReadNode {
	out := make([]ReadNode, 0, len(w.readSeq))
	for _, id := range w.readSeq {
		out = append(out, *w.read[id])
	}
	return out
}

// sources are the scent of everything opened or read, in that order.
func (w *walker) sources() []Source {
	out := []Source{}
	seen := map[string]bool{}
	for _, id := range append(slices.Clone(w.opened), w.readSeq...) {
		if seen[id] {
			continue
		}
		seen[id] = true
		if s, ok := w.scent[id]; ok {
			out = append(out, *s)
		} else {
			out = append(out, Source{ID: id})
		}
	}
	return out
}
