// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"strconv"
	"strings"

	"github.com/monkeyllm/vine"
)

// neighbours completes a primitive's own doc with the tool that does what
// it refuses or does not do (spec 08 §4.3 r7), where the doc does not say
// it already. A small model that hits a wall reads the description again;
// the way around the wall has to be written there.
var neighbours = map[string]string{
	"locate": "For dates and periods ask calendar first. An empty result is not proof of absence: check coverage before trusting a silence.",
	"sniff":  "An empty result is not proof of absence: check coverage before trusting a silence.",
	"look":   "An image payload is seen with view.",
	"pick":   "For the passport and edges use look first; an image payload is seen with view.",
	"plant": "A taken id is refused with E_SCHEMA: pass if_absent=true to skip taken ids, or change the existing node with graft. " +
		"Relocating a node is transplant.",
	"prune":         "To move a node instead of removing it, use transplant.",
	"transplant":    "Content changes are graft.",
	"scan":          "Search by meaning is locate; words inside bodies are sniff.",
	"harvest":       "For one node's whole body use pick; for a rare literal term use sniff. Check coverage before trusting an empty answer.",
	"history":       "The node as it is now: look, or pick for its body.",
	"coverage":      "Counts per period are calendar; finding the nodes is locate or scan.",
	"view":          "Other payloads: a dataset is read with query, a document with pick.",
	"close_session": "Reads never deposit heat; only this does.",
}

// Description is a tool's description: the primitive's doc, its token
// budget when the doc does not state it, and the neighbour that does
// what the tool refuses.
func Description(sig vine.Signature) string {
	parts := []string{strings.TrimSpace(sig.Doc)}
	if b := budgetSentence(sig); b != "" {
		parts = append(parts, b)
	}
	if n := neighbours[sig.Name]; n != "" {
		parts = append(parts, n)
	}
	return strings.Join(parts, " ")
}

func budgetSentence(sig vine.Signature) string {
	switch {
	case sig.Budget > 0:
		n := strconv.Itoa(sig.Budget)
		if strings.Contains(sig.Doc, n+" tokens") {
			return ""
		}
		return "Budget " + n + " tokens."
	case sig.Name == "view":
		return "No token budget: answers the image itself (at most " + strconv.Itoa(vine.MaxViewBytes>>20) + " MiB) beside a small header."
	case !sig.ReadOnly:
		return "No token budget: a write answers a short receipt."
	}
	return "No token budget."
}

// titles are the human names of the tools (MCP's title, the OpenAPI
// summary): what a person picking a tool reads, where the name is what a
// model calls.
var titles = map[string]string{
	ForestsTool:     "List forests",
	"locate":        "Find nodes by title, summary and tags",
	"look":          "Look at a node",
	"move":          "Walk a node's edges",
	"pick":          "Read a node's body",
	"view":          "View an image payload",
	"scan":          "List nodes under a branch",
	"sniff":         "Search bodies for exact words",
	"harvest":       "Gather passages for a question",
	"query":         "Query a dataset with SQL",
	"calendar":      "Count nodes by period",
	"coverage":      "Check what the forest covers",
	"history":       "Show a node's history",
	"plant":         "Create nodes",
	"graft":         "Change a node",
	"tend":          "Change dataset rows",
	"prune":         "Remove a node",
	"transplant":    "Move or rename a node",
	"close_session": "Close the session",
	"answer":        "Answer a question from the forest",
	"curate":        "Curate documents into the forest",
}

// Title is the tool's human name; a name without one is its own title.
func Title(name string) string {
	if t, ok := titles[name]; ok {
		return t
	}
	return name
}

// destructiveOverride names tools the signature table does not yet mark
// destructive although they can destroy what was there: graft replaces
// bodies and sections and removes links.
var destructiveOverride = map[string]bool{"graft": true}

// Destructive reports whether a tool may destroy what was there: the
// signature table's flag, or an override the table has not caught up
// with. Every surface asks here, so the hint cannot differ between them.
func Destructive(sig vine.Signature) bool {
	return sig.Destructive || destructiveOverride[sig.Name]
}
