// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"fmt"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"

	"github.com/monkeyllm/vine/envelope"
)

// ReadLimits bound what reading one node file may cost. A hand-written
// file is read by reindex, look, pick and every write's read-back, and a
// few kilobytes of YAML can cost hundreds of megabytes to parse: ten
// thousand nested brackets, a list of ten thousand links, a "billion
// laughs" of aliases. A file past a limit is refused E_FRONTMATTER
// naming the limit, like any unreadable file: reindex skips it, lint
// reports it.
//
// A zero field means its default; DefaultReadLimits lists them.
type ReadLimits struct {
	// FrontmatterBytes bounds the YAML between the two '---' lines,
	// checked before it is parsed.
	FrontmatterBytes int
	// YAMLDepth bounds how deep that YAML nests (block indentation and
	// flow brackets together), measured on its tokens before it is
	// parsed: the parser's cost grows with the square of the depth.
	YAMLDepth int
	// YAMLValues bounds the values the frontmatter expands to, every
	// alias counted as the values it repeats.
	YAMLValues int
	// Links bounds the links one node declares. Writes allow 50 (A.3);
	// reads tolerate more so that old forests open.
	Links int
}

// The default read limits: each far above what a passport holds (a few
// dozen fields, at most 50 links written), low enough that parsing a
// file at every limit at once costs a few megabytes.
const (
	DefaultFrontmatterBytes = 64 << 10
	DefaultYAMLDepth        = 100
	DefaultYAMLValues       = 100_000
	DefaultLinks            = 1000
)

// DefaultReadLimits returns the limits a zero ReadLimits stands for.
func DefaultReadLimits() ReadLimits {
	return ReadLimits{FrontmatterBytes: DefaultFrontmatterBytes, YAMLDepth: DefaultYAMLDepth,
		YAMLValues: DefaultYAMLValues, Links: DefaultLinks}
}

func (l ReadLimits) orDefault() ReadLimits {
	d := DefaultReadLimits()
	return ReadLimits{
		FrontmatterBytes: positiveOr(l.FrontmatterBytes, d.FrontmatterBytes),
		YAMLDepth:        positiveOr(l.YAMLDepth, d.YAMLDepth),
		YAMLValues:       positiveOr(l.YAMLValues, d.YAMLValues),
		Links:            positiveOr(l.Links, d.Links),
	}
}

func positiveOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// limitError is the E_FRONTMATTER refusal of a file past a read limit.
func limitError(id, what, limit string, max int) *envelope.Error {
	return frontmatterError(id, fmt.Sprintf("%s: over the %s read limit of %s", what, limit, limitText(limit, max))).
		WithHint("A passport is a few dozen fields with at most 50 links; move long text into the body. " +
			"The limit protects readers from hostile files; a host can raise it (ReadLimits).")
}

func limitText(limit string, n int) string {
	if limit == "FrontmatterBytes" && n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	if limit == "FrontmatterBytes" {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprint(n)
}

// listLen is the length of a list value, 0 for anything else.
func listLen(v any) int {
	l, _ := v.([]any)
	return len(l)
}

// depthBound is an upper bound of yamlDepth(src, any limit) read from
// its bytes alone: a level opens only at the first token of a line (the
// lexer breaks lines at LF and CR), at a "-" or "?" indicator, or at a
// flow bracket, so one plus the count of those characters bounds the
// depth. A frontmatter whose bound is within the limit needs no
// tokenizing before the parser tokenizes it anyway: that halved what
// reading a passport costs.
func depthBound(src string) int {
	n := 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n', '\r', '-', '?', '[', '{':
			n++
		}
	}
	return n
}

// yamlDepth measures how deep src nests from its tokens, without parsing
// it: flow brackets open a level each; in block context every line's
// first token and every "- " or "? " indicator opens a level at its
// column, closing those right of it (a "- " under a key at the key's own
// column is still one level deeper). It stops counting past limit. The
// lexer is linear and keeps no tree, where the parser's cost grows with
// the square of the depth.
func yamlDepth(src string, limit int) int {
	var open []blockLevel
	flow, line, deepest := 0, -1, 0
	prev := token.UnknownType
	for _, tk := range lexer.Tokenize(src) {
		typ, after := tk.Type, prev
		prev = typ
		switch typ {
		case token.CommentType, token.DirectiveType, token.DocumentHeaderType, token.DocumentEndType:
			continue
		case token.SequenceEndType, token.MappingEndType:
			flow = max0(flow - 1)
			continue
		}
		first := tk.Position.Line != line
		line = tk.Position.Line
		if after == token.LiteralType || after == token.FoldedType {
			continue // the text of a block scalar, whatever its indent
		}
		entry := typ == token.SequenceEntryType || typ == token.MappingKeyType
		if flow == 0 && (first || entry) {
			open = openAt(open, tk.Position.Column, typ == token.SequenceEntryType)
		}
		if typ == token.SequenceStartType || typ == token.MappingStartType {
			flow++
		}
		if deepest = max(deepest, len(open)+flow); deepest > limit {
			return deepest
		}
	}
	return deepest
}

// blockLevel is an open block collection: its column, and whether a
// "- " opened it.
type blockLevel struct {
	col int
	seq bool
}

// openAt closes the levels right of col, and those at col unless a
// sequence opens under a key there, then opens one at col.
func openAt(open []blockLevel, col int, seq bool) []blockLevel {
	for n := len(open); n > 0; n = len(open) {
		top := open[n-1]
		if top.col < col || top.col == col && seq && !top.seq {
			break
		}
		open = open[:n-1]
	}
	return append(open, blockLevel{col: col, seq: seq})
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}
