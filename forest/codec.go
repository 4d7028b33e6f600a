// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"github.com/monkeyllm/vine/envelope"
)

const frontmatterDelim = "---"

const frontmatterShapeHint = "A node file starts with a '---' line, then the YAML " +
	"frontmatter (id, type, title, summary, created, updated, ...), then a closing " +
	"'---' line, then the markdown body."

// Parse reads a node file leniently, as every reader must (spec §2.6,
// steps 1-4): it checks the frontmatter block's shape and that the YAML
// is a non-empty mapping, and never validates field values — old forests
// must open. id is the node's canonical path id; the frontmatter's own id
// field is kept as written.
//
// Line endings are read the way the reference reads files (universal
// newlines): CRLF and lone CR become LF before anything else.
//
// Reading is bounded by the default ReadLimits; ParseWithin takes
// others. Every refusal is an *envelope.Error with code E_FRONTMATTER.
func Parse(id string, data []byte) (*Node, error) {
	return ParseWithin(id, data, ReadLimits{})
}

// ParseWithin is Parse bounded by lim (zero fields mean the defaults): a
// frontmatter block past FrontmatterBytes, or nesting past YAMLDepth, is
// refused before the YAML parser sees it; one that expands past
// YAMLValues or declares more than Links links, once it is parsed.
func ParseWithin(id string, data []byte, lim ReadLimits) (*Node, error) {
	raw, body, err := Split(id, data)
	if err != nil {
		return nil, err
	}
	return decodeNode(id, raw, body, lim)
}

// decodeNode is the node of a file Split cut into raw and body.
func decodeNode(id, raw, body string, lim ReadLimits) (*Node, error) {
	lim = lim.orDefault()
	front, err := decodeFrontmatter(id, raw, lim)
	if err != nil {
		return nil, err
	}
	if links, _ := front.Get("links"); listLen(links) > lim.Links {
		return nil, limitError(id, fmt.Sprintf("%d links", listLen(links)), "Links", lim.Links)
	}
	return &Node{ID: id, Front: front, Body: body}, nil
}

// AppendEncoded appends n's file (what Bytes renders) to dst and returns
// the extended buffer with the node the file reads back as: exactly what
// ParseWithin(n.ID, file, lim) returns, refusals included. A writer reads
// back what it is about to write, to be sure the file opens.
//
// Where the file holds n's body unchanged (a body as a file reads: no
// carriage return, no leading newline, one trailing newline), the node
// read back shares n.Body instead of copying it out of the file again: a
// folder's index is rewritten by every write into the folder and grows
// with it.
func AppendEncoded(dst []byte, n *Node, lim ReadLimits) ([]byte, *Node, error) {
	start := len(dst)
	dst = n.AppendBytes(dst)
	data := dst[start:]
	if raw, ok := sharedBody(n, data); ok {
		back, err := decodeNode(n.ID, raw, n.Body, lim)
		return dst, back, err
	}
	back, err := ParseWithin(n.ID, data, lim)
	return dst, back, err
}

// sharedBody reports whether Split would cut data, the bytes n rendered,
// into a YAML block (returned) and a body equal to n.Body.
func sharedBody(n *Node, data []byte) (string, bool) {
	body := n.Body
	if len(body) < 2 || body[0] == '\n' || body[len(body)-1] != '\n' ||
		len(strings.TrimRightFunc(body, pyIsSpace)) != len(body)-1 || bytes.IndexByte(data, '\r') >= 0 {
		return "", false
	}
	// data is "---\n" + YAML + "\n---\n\n" + body; Split ends the YAML
	// at the first "\n---" after the opening delimiter.
	closing := len(data) - len(body) - len("\n"+frontmatterDelim+"\n\n")
	end := bytes.Index(data[len(frontmatterDelim):], []byte("\n"+frontmatterDelim))
	if closing < len(frontmatterDelim) || end+len(frontmatterDelim) != closing {
		return "", false
	}
	return string(data[len(frontmatterDelim):closing]), true
}

// Split cuts a node file into its raw YAML block and its body by Parse's
// steps 1-3, without decoding the YAML: the cheap read for scans that need
// only the body (sniff) or a glance at one key. Newlines are normalized
// first, exactly as Parse does, so the body is the one body_hash covers.
func Split(id string, data []byte) (yamlBlock, body string, err error) {
	text := normalizeNewlines(data)
	if !strings.HasPrefix(text, frontmatterDelim) {
		return "", "", frontmatterError(id, "no frontmatter block: the file must start with a '---' line")
	}
	end := strings.Index(text[len(frontmatterDelim):], "\n"+frontmatterDelim)
	if end < 0 {
		return "", "", frontmatterError(id, "unterminated frontmatter block: no closing '---' line after the opening one")
	}
	end += len(frontmatterDelim)
	yamlBlock = text[len(frontmatterDelim):end]
	if nl := strings.IndexByte(text[end+1:], '\n'); nl >= 0 {
		body = strings.TrimLeft(text[end+1+nl+1:], "\n")
	}
	return yamlBlock, body, nil
}

// Bytes renders the node as the reference serializes it (spec §2.7):
// "---\n" + YAML + "\n---\n\n" + body with trailing whitespace trimmed +
// "\n". An empty body therefore ends the file with "---\n\n\n".
func (n *Node) Bytes() []byte { return n.AppendBytes(nil) }

// AppendBytes appends the node's rendering (Bytes) to dst and returns the
// extended buffer: a writer that renders many files can reuse one buffer.
func (n *Node) AppendBytes(dst []byte) []byte {
	// The reference strips all trailing white space here; only the final
	// newline is ever trailing in practice, and stripping more (a
	// no-break space ending the last value) would change the value.
	y := bytes.TrimRight(MarshalFrontmatter(n.Front), "\n")
	body := strings.TrimRightFunc(n.Body, pyIsSpace)
	dst = slices.Grow(dst, len(y)+len(body)+16)
	dst = append(dst, frontmatterDelim+"\n"...)
	dst = append(dst, y...)
	dst = append(dst, "\n"+frontmatterDelim+"\n\n"...)
	dst = append(dst, body...)
	return append(dst, '\n')
}

// decodeFrontmatter parses the YAML between the delimiters into an
// ordered frontmatter, within lim.
func decodeFrontmatter(id, raw string, lim ReadLimits) (*Frontmatter, error) {
	if len(raw) > lim.FrontmatterBytes {
		return nil, limitError(id, fmt.Sprintf("frontmatter of %d bytes", len(raw)), "FrontmatterBytes", lim.FrontmatterBytes)
	}
	if !utf8.ValidString(raw) {
		return nil, frontmatterError(id, "frontmatter is not valid UTF-8")
	}
	// The byte bound settles nearly every passport without the lexer.
	if depthBound(raw) > lim.YAMLDepth && yamlDepth(raw, lim.YAMLDepth) > lim.YAMLDepth {
		return nil, limitError(id, "frontmatter YAML nesting depth", "YAMLDepth", lim.YAMLDepth)
	}
	root, err := unmarshalYAML(raw)
	if err != nil {
		return nil, frontmatterError(id, "frontmatter is not valid YAML: "+err.Error()).
			WithHint("Fix the YAML between the two '---' lines; quote a value that " +
				"contains ': ' or ' #' or starts with a YAML indicator, e.g. title: 'a: b'.")
	}
	switch t := root.(type) {
	case nil:
		return nil, frontmatterError(id, "frontmatter is empty: expected a YAML mapping of fields")
	case yaml.MapSlice:
		if len(t) == 0 {
			return nil, frontmatterError(id, "frontmatter is empty: expected a YAML mapping of fields")
		}
		if yamlTreeSize(t, map[sharedValue]int{}, lim.YAMLValues) > lim.YAMLValues {
			return nil, limitError(id, "frontmatter values with YAML aliases expanded", "YAMLValues", lim.YAMLValues).
				WithHint("A passport is a few dozen fields; write values out instead of repeating anchors (&name) through aliases (*name).")
		}
		return normalizeValue(t).(*Frontmatter), nil
	default:
		return nil, frontmatterError(id, fmt.Sprintf(
			"frontmatter must be a YAML mapping of fields, got %s", yamlKind(t)))
	}
}

// yamlTreeSize counts the values of decoded YAML as a tree, saturating
// just past limit. The decoder shares the value an alias repeats, but the
// frontmatter is a tree: a few lines of nested aliases ("billion laughs")
// would expand to more values than memory holds. Shared lists and
// mappings are measured once (memo, keyed by their backing array), so
// the count is linear in what the decoder built.
func yamlTreeSize(v any, memo map[sharedValue]int, limit int) int {
	var key sharedValue
	var children []any
	switch t := v.(type) {
	case []any:
		if len(t) == 0 {
			return 1
		}
		key, children = sharedValue{reflect.ValueOf(t).Pointer(), len(t)}, t
	case yaml.MapSlice:
		if len(t) == 0 {
			return 1
		}
		key = sharedValue{reflect.ValueOf(t).Pointer(), len(t)}
		children = make([]any, len(t))
		for i, it := range t {
			children[i] = it.Value
		}
	default:
		return 1
	}
	if n, ok := memo[key]; ok {
		return n
	}
	n := 1
	for _, c := range children {
		n = min(n+yamlTreeSize(c, memo, limit), limit+1)
	}
	memo[key] = n
	return n
}

// sharedValue identifies a decoded list or mapping by its backing array.
type sharedValue struct {
	ptr uintptr
	len int
}

// unmarshalYAML decodes with key order kept and duplicate keys allowed
// (the reference's PyYAML keeps the last value). A panic inside the YAML
// library is turned into an error: one hostile file must not take down a
// reindex.
func unmarshalYAML(raw string) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("YAML parser failed on this input: %v", r)
		}
	}()
	err = yaml.UnmarshalWithOptions([]byte(raw), &v, yaml.UseOrderedMap(), yaml.AllowDuplicateMapKey())
	if err != nil {
		return nil, yamlErrorDetail(err)
	}
	return v, nil
}

// yamlErrorDetail keeps the parser's position and reason but drops the
// source excerpt, which repeats the file back at the caller.
func yamlErrorDetail(err error) error {
	msg := yaml.FormatError(err, false, false)
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	return errors.New(msg)
}

func yamlKind(v any) string {
	switch v.(type) {
	case []any:
		return "a sequence"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, float32:
		return "a number"
	case int, int64, uint64:
		return "an integer"
	}
	return fmt.Sprintf("a %T", v)
}

func frontmatterError(id, what string) *envelope.Error {
	msg := what
	if id != "" {
		msg = fmt.Sprintf("node '%s': %s", id, what)
	}
	return envelope.New(envelope.Frontmatter, msg, frontmatterShapeHint)
}

// normalizeNewlines converts CRLF and CR to LF, as Python's text mode
// does when the reference reads a node.
func normalizeNewlines(data []byte) string {
	if bytes.IndexByte(data, '\r') < 0 {
		return string(data)
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// pyIsSpace is Python's str.isspace, which the reference's rstrip uses:
// Unicode white space plus the four ASCII separators U+001C..U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1C && r <= 0x1F)
}
