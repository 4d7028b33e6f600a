// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted stands, in a redacted subject, for an id the reader may not see
// and for the free text (a title, a patch summary) that belongs to one.
const Redacted = "<hidden>"

// RedactSubject rewrites a commit subject for a reader who may not see
// every node, so that history under an access policy names no hidden id.
// hidden reports whether the reader may not see ref, an id or a
// slash-bearing word of free text.
//
// A subject of one of the shapes in subjects.go keeps its literal text and
// its closed-vocabulary words (action, source, verb, count, relation); each
// id hidden reports true for becomes Redacted, and so does the free text
// owned by the subject's first id when that id is hidden (a hidden node's
// title must not appear either). Free text of a visible id, and a subject
// of no known shape, keep their words except slash-bearing ones hidden
// reports true for, since a writer may type an id into a title.
//
// Ids and titles may contain a shape's own separators ("): ", " -> "), so
// a subject can fit its shape in more than one way. When it does and any
// reading names a hidden id, every id and free text is redacted: whichever
// reading is true, none can leak. The same holds when there are too many
// readings to list; a subject too tangled to read at all is Redacted whole.
func RedactSubject(subject string, hidden func(ref string) bool) string {
	for _, sh := range subjectShapes {
		readings, complete := sh.readings(subject)
		switch {
		case len(readings) > 0:
			return sh.redact(readings, complete, hidden)
		case !complete:
			return Redacted
		}
	}
	return redactText(subject, hidden)
}

// partKind is what one part of a subject shape holds.
type partKind uint8

const (
	literal  partKind = iota // fixed text
	idPart                   // a node id: any non-empty text
	textPart                 // free text owned by the shape's first id
	wordPart                 // a closed-vocabulary word (see notWordChar)
)

// part is one piece of a shape. A shape never puts two slots side by side,
// so each slot ends at an occurrence of the literal after it, or at the end.
type part struct {
	kind  partKind
	lit   string   // the literal, for literal parts
	vocab []string // the allowed words of a word part; nil: any word
}

// shape is the grammar of one subject writer: literals and slots.
type shape []part

// lit is a literal part.
func lit(s string) part { return part{kind: literal, lit: s} }

// oneOf is a word slot that holds one of words.
func oneOf(words ...string) part { return part{kind: wordPart, vocab: words} }

// The slots of the shapes: an id, free text, any closed-vocabulary word.
var (
	idSlot   = part{kind: idPart}
	textSlot = part{kind: textPart}
	wordSlot = part{kind: wordPart}
)

// subjectShapes mirrors subjects.go, one line a writer. The first shape a
// subject fits is the one it is read with, so a backfill (a field word,
// then the id) comes before a plain sync.
var subjectShapes = []shape{
	{lit("init: forest '"), textSlot, lit("' (empty A.5 skeleton)")},
	{lit("plant(batch): "), wordSlot, lit(" nodes")},
	{lit("plant("), idSlot, lit("): "), textSlot, lit(" [source="), wordSlot, lit("]")},
	{lit("graft("), idSlot, lit("): "), textSlot},
	{lit("tend("), idSlot, lit("): "), wordSlot, lit(" "), wordSlot, lit(" row(s)")},
	{lit("prune("), idSlot, lit(")")},
	{lit("transplant("), idSlot, lit(" -> "), idSlot, lit(")")},
	{lit("gardener(sync): "), oneOf("aliases", "origin"), lit(" "), idSlot},
	{lit("gardener(sync): "), idSlot},
	{lit("recurate("), wordSlot, lit("): "), idSlot},
	{lit("ranger(promote): "), idSlot, lit(" "), wordSlot, lit("->"), idSlot, lit(" "), wordSlot},
	{lit("ranger(prune): "), idSlot, lit(" "), wordSlot, lit("->"), idSlot},
	{lit(RangerLandmarksSubject)},
	{lit("links("), oneOf("accept", "reject"), lit("): "), idSlot, lit(" "), wordSlot, lit("->"), idSlot},
}

// Bounds of reading one subject against one shape: past maxReadings the
// subject is ambiguous enough to redact strictly; past maxSteps it is
// unreadable.
const (
	maxReadings = 16
	maxSteps    = 4096
)

// reader enumerates the ways a subject fits one shape.
type reader struct {
	sh       shape
	steps    int
	readings [][]string
}

// readings returns the slot values of the ways subject fits sh, shortest
// first slot first; complete is false when the list stopped early, at
// maxReadings or after maxSteps.
func (sh shape) readings(subject string) (out [][]string, complete bool) {
	r := &reader{sh: sh, steps: maxSteps}
	complete = r.walk(subject, 0, nil)
	return r.readings, complete
}

// walk matches s against the parts from i on; false stops the walk (step
// budget spent, or enough readings).
func (r *reader) walk(s string, i int, vals []string) bool {
	if r.steps--; r.steps < 0 {
		return false
	}
	if i == len(r.sh) {
		if s == "" {
			r.readings = append(r.readings, slices.Clone(vals))
		}
		return len(r.readings) < maxReadings
	}
	p := r.sh[i]
	if p.kind == literal {
		rest, ok := strings.CutPrefix(s, p.lit)
		return !ok || r.walk(rest, i+1, vals)
	}
	if i+1 == len(r.sh) {
		return !p.fits(s) || r.walk("", i+1, append(vals, s))
	}
	next := r.sh[i+1].lit
	for j := 0; ; j++ {
		k := strings.Index(s[j:], next)
		if k < 0 {
			return true
		}
		j += k
		if p.kind == wordPart && strings.IndexFunc(s[:j], notWordChar) >= 0 {
			return true // a longer word would hold the same bad character
		}
		if p.fits(s[:j]) && !r.walk(s[j:], i+1, append(vals, s[:j])) {
			return false
		}
	}
}

// fits reports whether v may fill the slot p.
func (p part) fits(v string) bool {
	switch p.kind {
	case idPart:
		return v != ""
	case wordPart:
		return v != "" && strings.IndexFunc(v, notWordChar) < 0 && (p.vocab == nil || slices.Contains(p.vocab, v))
	}
	return true
}

// notWordChar is false for the characters of a closed-vocabulary word:
// ASCII letters and digits, "_", "." and "-". No slash, space or bracket,
// so a word can never hold an id.
func notWordChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-')
}

// redact renders the first reading with hidden ids and the free text they
// own redacted. It is strict when the readings are not all known, or there
// are several and one names a hidden id: then every id and free text is
// redacted, and so is a word the readings disagree on, as it may be a
// piece of an id.
func (sh shape) redact(readings [][]string, complete bool, hidden func(string) bool) string {
	anyHidden, ownerHidden := false, false
	for _, vals := range readings {
		first := true
		for k, p := range sh.slots() {
			if p.kind == idPart && hidden(vals[k]) {
				anyHidden = true
				ownerHidden = ownerHidden || first
			}
			first = first && p.kind != idPart
		}
	}
	strict := !complete || anyHidden && len(readings) > 1
	var b strings.Builder
	k := 0
	for _, p := range sh {
		if p.kind == literal {
			b.WriteString(p.lit)
			continue
		}
		v := readings[0][k]
		if strict && p.kind == wordPart && (!complete || !agreed(readings, k)) {
			v = Redacted
		}
		b.WriteString(p.render(v, strict, ownerHidden, hidden))
		k++
	}
	return b.String()
}

// agreed reports whether every reading holds the same value in slot k.
func agreed(readings [][]string, k int) bool {
	for _, vals := range readings[1:] {
		if vals[k] != readings[0][k] {
			return false
		}
	}
	return true
}

// slots are the shape's parts that hold a value, in order.
func (sh shape) slots() []part {
	out := make([]part, 0, len(sh))
	for _, p := range sh {
		if p.kind != literal {
			out = append(out, p)
		}
	}
	return out
}

// render is one slot's value as a redacted subject shows it.
func (p part) render(v string, strict, ownerHidden bool, hidden func(string) bool) string {
	switch {
	case p.kind == wordPart:
		return v
	case p.kind == idPart && (strict || hidden(v)):
		return Redacted
	case p.kind == idPart:
		return v
	case strict || ownerHidden:
		return Redacted
	}
	return redactText(v, hidden)
}

// redactText replaces each slash-bearing word of free text that hidden
// reports true for. Words end at white space, brackets, quotes and the
// punctuation subjects and prose put around ids; a trailing "." (the end
// of a sentence) stays outside the word.
func redactText(s string, hidden func(string) bool) string {
	var b strings.Builder
	for len(s) > 0 {
		end := len(s)
		next := len(s)
		if i := strings.IndexFunc(s, isDelimiter); i >= 0 {
			_, size := utf8.DecodeRuneInString(s[i:])
			end, next = i, i+size
		}
		word := strings.TrimRight(s[:end], ".")
		if strings.Contains(word, "/") && hidden(word) {
			b.WriteString(Redacted)
		} else {
			b.WriteString(word)
		}
		b.WriteString(s[len(word):next])
		s = s[next:]
	}
	return b.String()
}

// isDelimiter ends a word of free text: white space, brackets, quotes and
// the separators prose and wikilinks put around ids.
func isDelimiter(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("()[]{}<>'\"`,;:|=", r)
}
