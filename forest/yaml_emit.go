// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
)

// This file writes frontmatter byte-for-byte the way the reference wrote
// it: PyYAML's safe_dump(allow_unicode=True, sort_keys=False,
// default_flow_style=False) at width 80, indent 2. Byte parity keeps
// diffs quiet when the Go and the Python engines take turns on a forest.
// The emitter follows PyYAML's algorithm (scalar analysis, style choice,
// the column bookkeeping that decides where long scalars fold) for the
// block-style subset a frontmatter needs: mappings, sequences, scalars,
// and the empty collections written in flow style as [] and {}.
//
// It departs from PyYAML only where the output would not read back the
// same through goccy/go-yaml, the reader this package uses (a YAML 1.2
// reader with quirks of its own); each departure is a rare string:
//   - strings a YAML 1.2 reader would type are quoted even when YAML 1.1
//     would not (0o17, +.5);
//   - the YAML 1.1 line breaks U+0085, U+2028 and U+2029 are escaped in
//     double quotes instead of being written raw;
//   - a single-quoted line never starts with escaped quotes followed by
//     white space (no fold there; after a line break, double quotes);
//   - a plain key ending in "<<" is quoted;
//   - the value of an explicit "? key" entry is quoted when a plain
//     rendering would fold.

const (
	yamlIndent = 2  // PyYAML best_indent
	yamlWidth  = 80 // PyYAML best_width
)

// MarshalFrontmatter renders f as PyYAML's safe_dump does, with the final
// newline. A nil or empty frontmatter renders as "{}\n".
func MarshalFrontmatter(f *Frontmatter) []byte {
	e := &yamlEmitter{whitespace: true, indention: true, indent: -1}
	e.buf = make([]byte, 0, 64+f.Len()*48)
	e.node(f, ctxRoot)
	e.writeIndent() // document end
	return e.buf
}

// nodeContext says where a node sits; PyYAML's root/sequence/mapping and
// simple-key flags collapse into one value because they are exclusive
// here.
type nodeContext int

const (
	ctxRoot nodeContext = iota
	ctxSequence
	ctxMapping
	ctxSimpleKey
	ctxComplexValue // the value of a "? key" entry
)

// yamlEmitter holds PyYAML's writer state. indent -1 stands for PyYAML's
// None (no block opened yet); column counts code points, as Python's len
// does.
type yamlEmitter struct {
	buf        []byte
	column     int
	whitespace bool // the last written character is whitespace
	indention  bool // only indentation (spaces, '-', '?', ':') on this line so far
	indent     int
	indents    []int
}

func (e *yamlEmitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	switch {
	case e.indent < 0 && flow:
		e.indent = yamlIndent
	case e.indent < 0:
		e.indent = 0
	case !indentless:
		e.indent += yamlIndent
	}
}

func (e *yamlEmitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

func (e *yamlEmitter) node(v any, ctx nodeContext) {
	switch t := v.(type) {
	case *Frontmatter:
		if t.Len() == 0 {
			e.emptyCollection("{}")
			return
		}
		e.blockMapping(t)
	case []any:
		if len(t) == 0 {
			e.emptyCollection("[]")
			return
		}
		e.blockSequence(t, ctx)
	default:
		s := representScalar(v)
		e.increaseIndent(true, false)
		if ctx == ctxComplexValue && e.plainWouldFold(s.text) {
			// goccy/go-yaml refuses a folded plain value after an explicit
			// "? key"; quoting is cheap for a key this unusual.
			s.implicit = false
		}
		e.scalar(s, ctx)
		e.popIndent()
	}
}

// emptyCollection writes [] or {}: PyYAML switches an empty collection to
// flow style.
func (e *yamlEmitter) emptyCollection(s string) {
	e.writeIndicator(s[:1], true, true, false)
	e.writeIndicator(s[1:], false, false, false)
}

func (e *yamlEmitter) blockSequence(items []any, ctx nodeContext) {
	// A sequence that is a mapping value is not indented under its key.
	e.increaseIndent(false, (ctx == ctxMapping || ctx == ctxComplexValue) && !e.indention)
	for _, it := range items {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.node(it, ctxSequence)
	}
	e.popIndent()
}

func (e *yamlEmitter) blockMapping(f *Frontmatter) {
	e.increaseIndent(false, false)
	for _, fd := range f.fields {
		e.writeIndent()
		key := representScalar(fd.Key)
		if strings.HasSuffix(fd.Key, "<<") {
			// goccy/go-yaml reads a plain key ending in "<<" as a merge key.
			key.implicit = false
		}
		if isSimpleKey(key.analysis) {
			e.simpleKeyEntry(key, fd.Value)
		} else {
			e.explicitKeyEntry(key, fd.Value)
		}
	}
	e.popIndent()
}

// simpleKeyEntry writes "key: value".
func (e *yamlEmitter) simpleKeyEntry(key yamlScalar, v any) {
	e.increaseIndent(true, false)
	e.scalar(key, ctxSimpleKey)
	e.popIndent()
	e.writeIndicator(":", false, false, false)
	e.node(v, ctxMapping)
}

// explicitKeyEntry writes "? key" and ": value" on their own lines, for
// keys that are empty, multi-line or long.
func (e *yamlEmitter) explicitKeyEntry(key yamlScalar, v any) {
	e.writeIndicator("?", true, false, true)
	e.increaseIndent(true, false)
	e.scalar(key, ctxMapping)
	e.popIndent()
	e.writeIndent()
	e.writeIndicator(":", true, false, true)
	e.node(v, ctxComplexValue)
}

// isSimpleKey is PyYAML's check_simple_key for a string key. PyYAML
// counts the key's tag, "!!str", into the 128-character limit even
// though an implicit tag is never written.
func isSimpleKey(a scalarAnalysis) bool {
	return len("!!str")+a.length < 128 && !a.empty && !a.multiline
}

// yamlScalar is one scalar ready to write: its text, whether a plain
// rendering would read back as the same value (PyYAML's implicit[0]), and
// the analysis of the text.
type yamlScalar struct {
	text     string
	implicit bool
	analysis scalarAnalysis
}

// representScalar is PyYAML's SafeRepresenter for the scalar types a
// frontmatter holds.
func representScalar(v any) yamlScalar {
	var text string
	implicit := true
	switch t := v.(type) {
	case nil:
		text = "null"
	case bool:
		text = strconv.FormatBool(t)
	case int64:
		text = strconv.FormatInt(t, 10)
	case float64:
		text = formatFloat(t)
	case string:
		text = t
		implicit = plainReadsAsString(t)
	default:
		text = fmt.Sprint(t)
		implicit = plainReadsAsString(text)
	}
	return yamlScalar{text: text, implicit: implicit, analysis: analyzeScalar(text)}
}

// formatFloat is Python's repr of a float as PyYAML's represent_float
// adjusts it: shortest round-trip digits, exponent form outside
// [1e-4, 1e16), ".0" added so the text always reads back as a float.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	if exp < -4 || exp >= 16 {
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// PyYAML's implicit resolvers (YAML 1.1): a plain scalar matching one of
// these would not read back as a string, so such strings are quoted.
var yaml11Typed = regexp.MustCompile(`^(?:` +
	// bool
	`yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF` +
	// float
	`|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?` +
	`|\.[0-9_]+(?:[eE][-+][0-9]+)?` +
	`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*` +
	`|[-+]?\.(?:inf|Inf|INF)` +
	`|\.(?:nan|NaN|NAN)` +
	// int
	`|[-+]?0b[0-1_]+` +
	`|[-+]?0[0-7_]+` +
	`|[-+]?(?:0|[1-9][0-9_]*)` +
	`|[-+]?0x[0-9a-fA-F_]+` +
	`|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+` +
	// merge, null, value, yaml
	`|<<|~|null|Null|NULL|=|!|&|\*` +
	// timestamp
	`|[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]` +
	`|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?` +
	`(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?` +
	`(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?` +
	`)$`)

// plainReadsAsString reports whether s written plain reads back as the
// string s under both YAML 1.1 (the reference) and goccy's YAML 1.2.
// Every typed form starts with one of a few characters; those starting
// with a letter are a fixed set of words, so most strings are decided by
// their first byte.
func plainReadsAsString(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O':
		return !isYAMLWord(s)
	case '-', '+', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return !yaml11Typed.MatchString(s) && token.New(s, s, nil).Type == token.StringType
	case '<', '~', '=', '!', '&', '*':
		return !yaml11Typed.MatchString(s)
	}
	return true
}

// isYAMLWord reports the booleans and nulls of YAML 1.1, a superset of
// YAML 1.2's.
func isYAMLWord(s string) bool {
	switch s {
	case "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL":
		return true
	}
	return false
}

// scalarAnalysis is PyYAML's ScalarAnalysis, reduced to the block context.
type scalarAnalysis struct {
	length            int // code points
	empty             bool
	multiline         bool
	allowBlockPlain   bool
	allowSingleQuoted bool
}

func isYAMLBreak(r rune) bool {
	return r == '\n' || r == '\u0085' || r == '\u2028' || r == '\u2029'
}

func isYAMLBlank(r rune) bool {
	return r == 0 || r == ' ' || r == '\t' || r == '\r' || isYAMLBreak(r)
}

// isYAMLPrintable is the set PyYAML writes raw with allow_unicode, minus
// the YAML 1.1 line breaks U+0085, U+2028, U+2029 (a YAML 1.2 reader takes
// them as content, so they must be escaped).
func isYAMLPrintable(r rune) bool {
	switch {
	case r == '\n', r >= 0x20 && r <= 0x7E:
		return true
	case r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r < 0x10FFFF:
		return r != 0x2028 && r != 0x2029
	}
	return false
}

// analyzeScalar follows PyYAML's analyze_scalar.
func analyzeScalar(s string) scalarAnalysis {
	if s == "" {
		return scalarAnalysis{empty: true, allowBlockPlain: true, allowSingleQuoted: true}
	}
	runes := []rune(s)
	n := len(runes)
	var blockIndicators, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockIndicators = true
	}
	precededByWS := true
	followedByWS := n == 1 || isYAMLBlank(runes[1])
	prevSpace, prevBreak := false, false
	for i, ch := range runes {
		if i == 0 {
			if strings.ContainsRune("#,[]{}&*!|>'\"%@`", ch) {
				blockIndicators = true
			}
			if (ch == '?' || ch == ':' || ch == '-') && followedByWS {
				blockIndicators = true
			}
		} else if (ch == ':' && followedByWS) || (ch == '#' && precededByWS) {
			blockIndicators = true
		}
		if isYAMLBreak(ch) {
			lineBreaks = true
		}
		if !isYAMLPrintable(ch) {
			special = true
		}
		switch {
		case ch == ' ':
			leadingSpace = leadingSpace || i == 0
			trailingSpace = trailingSpace || i == n-1
			breakSpace = breakSpace || prevBreak
			prevSpace, prevBreak = true, false
		case isYAMLBreak(ch):
			leadingBreak = leadingBreak || i == 0
			trailingBreak = trailingBreak || i == n-1
			spaceBreak = spaceBreak || prevSpace
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWS = isYAMLBlank(ch)
		followedByWS = i+2 >= n || isYAMLBlank(runes[i+2])
	}
	a := scalarAnalysis{length: n, multiline: lineBreaks, allowBlockPlain: true, allowSingleQuoted: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak || lineBreaks || blockIndicators {
		a.allowBlockPlain = false
	}
	if breakSpace || spaceBreak || special {
		a.allowBlockPlain, a.allowSingleQuoted = false, false
	}
	return a
}

// scalar chooses the style as PyYAML's choose_scalar_style does and
// writes the scalar. Keys never fold (PyYAML's split is off for them).
func (e *yamlEmitter) scalar(s yamlScalar, ctx nodeContext) {
	a := s.analysis
	simpleKey := ctx == ctxSimpleKey
	split := !simpleKey
	switch {
	case s.implicit && a.allowBlockPlain && !(simpleKey && (a.empty || a.multiline)):
		e.writePlain(s.text, split)
	case a.allowSingleQuoted && !(simpleKey && a.multiline) && !quoteRunAfterBreak(s.text):
		e.writeSingleQuoted(s.text, split)
	default:
		e.writeDoubleQuoted(s.text, split)
	}
}

func (e *yamlEmitter) write(s string) {
	e.buf = append(e.buf, s...)
	e.column += utf8.RuneCountInString(s)
}

func (e *yamlEmitter) writeIndicator(ind string, needWhitespace, whitespace, indention bool) {
	if !e.whitespace && needWhitespace {
		ind = " " + ind
	}
	e.whitespace = whitespace
	e.indention = e.indention && indention
	e.write(ind)
}

func (e *yamlEmitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.writeLineBreak()
	}
	if e.column < indent {
		e.whitespace = true
		e.write(strings.Repeat(" ", indent-e.column))
	}
}

func (e *yamlEmitter) writeLineBreak() {
	e.whitespace = true
	e.indention = true
	e.column = 0
	e.buf = append(e.buf, '\n')
}

// plainWouldFold reports whether writePlain would break text over lines
// from the current position, by writing it into a scratch emitter.
func (e *yamlEmitter) plainWouldFold(text string) bool {
	scratch := yamlEmitter{column: e.column, whitespace: e.whitespace, indention: e.indention, indent: e.indent}
	scratch.writePlain(text, true)
	return bytes.IndexByte(scratch.buf, '\n') >= 0
}

// writePlain is PyYAML's write_plain for single-line text: a run of one
// space past the width becomes a line break.
func (e *yamlEmitter) writePlain(text string, split bool) {
	if text == "" {
		return
	}
	if !e.whitespace {
		e.write(" ")
	}
	e.whitespace, e.indention = false, false
	start := 0
	spaces := false
	for end := 0; end <= len(text); {
		ch, size := nextRune(text, end)
		if spaces {
			if ch != ' ' {
				if start+1 == end && e.column > yamlWidth && split {
					e.writeIndent()
					e.whitespace, e.indention = false, false
				} else {
					e.write(text[start:end])
				}
				start = end
			}
		} else if ch < 0 || ch == ' ' {
			e.write(text[start:end])
			start = end
		}
		spaces = ch == ' '
		end += size
	}
}

// writeSingleQuoted is PyYAML's write_single_quoted: quotes doubled, a
// single space past the width folds, a line break is written as an empty
// line (YAML folding turns one break into a space).
func (e *yamlEmitter) writeSingleQuoted(text string, split bool) {
	e.writeIndicator("'", true, false, false)
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(text); {
		ch, size := nextRune(text, end)
		switch {
		case spaces:
			if ch != ' ' {
				if start+1 == end && e.column > yamlWidth && split && start != 0 && end != len(text) &&
					!isQuoteRunTrap(text, end) {
					e.writeIndent()
				} else {
					e.write(text[start:end])
				}
				start = end
			}
		case breaks:
			if ch < 0 || !isYAMLBreak(ch) {
				if text[start] == '\n' {
					e.writeLineBreak()
				}
				for _, br := range text[start:end] {
					if br == '\n' {
						e.writeLineBreak()
					}
				}
				e.writeIndent()
				start = end
			}
		default:
			if ch < 0 || ch == ' ' || ch == '\'' || isYAMLBreak(ch) {
				if start < end {
					e.write(text[start:end])
					start = end
				}
			}
		}
		if ch == '\'' {
			e.write("''")
			start = end + 1
		}
		if ch >= 0 {
			spaces = ch == ' '
			breaks = isYAMLBreak(ch)
		}
		end += size
	}
	e.writeIndicator("'", false, false, false)
}

var yamlEscapes = map[rune]string{
	0: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f",
	0x0D: "r", 0x1B: "e", '"': "\"", '\\': "\\", 0x85: "N", 0xA0: "_",
	0x2028: "L", 0x2029: "P",
}

// isDoubleQuotedRaw is the set write_double_quoted leaves unescaped with
// allow_unicode (characters beyond the BMP are escaped there).
func isDoubleQuotedRaw(r rune) bool {
	switch r {
	case '"', '\\', 0x85, 0x2028, 0x2029, 0xFEFF:
		return false
	}
	return (r >= 0x20 && r <= 0x7E) || (r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD)
}

func yamlEscape(r rune) string {
	if esc, ok := yamlEscapes[r]; ok {
		return "\\" + esc
	}
	switch {
	case r <= 0xFF:
		return fmt.Sprintf("\\x%02X", r)
	case r <= 0xFFFF:
		return fmt.Sprintf("\\u%04X", r)
	}
	return fmt.Sprintf("\\U%08X", r)
}

// writeDoubleQuoted is PyYAML's write_double_quoted: the only style that
// can carry non-printable characters. Long text folds with an escaped
// line break, and a space starting the next line is escaped so folding
// cannot eat it.
func (e *yamlEmitter) writeDoubleQuoted(text string, split bool) {
	e.writeIndicator("\"", true, false, false)
	runes := []rune(text)
	start := 0
	for end := 0; end <= len(runes); end++ {
		ch := rune(-1)
		if end < len(runes) {
			ch = runes[end]
		}
		if ch < 0 || !isDoubleQuotedRaw(ch) {
			if start < end {
				e.write(string(runes[start:end]))
				start = end
			}
			if ch >= 0 {
				e.write(yamlEscape(ch))
				start = end + 1
			}
		}
		if 0 < end && end < len(runes)-1 && (ch == ' ' || start >= end) &&
			e.column+(end-start) > yamlWidth && split {
			data := ""
			if start < end {
				data = string(runes[start:end])
				start = end
			}
			e.write(data + "\\")
			e.writeIndent()
			e.whitespace, e.indention = false, false
			if runes[start] == ' ' {
				e.write("\\")
			}
		}
	}
	e.writeIndicator("\"", false, false, false)
}

// nextRune decodes the rune at byte offset i, or -1 past the end.
func nextRune(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return r, size
}

// isQuoteRunTrap reports whether a single-quoted line starting at text[i]
// would begin with escaped quotes (”) followed by a space or a line
// break. goccy/go-yaml drops that whitespace when reading such a line
// back, so the writer neither folds there nor, when a line break leads
// there, uses single quotes at all.
func isQuoteRunTrap(text string, i int) bool {
	j := i
	for j < len(text) && text[j] == '\'' {
		j++
	}
	return j > i && j < len(text) && (text[j] == ' ' || text[j] == '\n')
}

// quoteRunAfterBreak reports whether some line of text, after a line
// break, starts with an isQuoteRunTrap.
func quoteRunAfterBreak(text string) bool {
	for i := 1; i < len(text); i++ {
		if text[i-1] == '\n' && isQuoteRunTrap(text, i) {
			return true
		}
	}
	return false
}
