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
