// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

// PrincipalKey is the trailer key the adapter stamps on scoped writes
// (J.4, v0.57). The core never writes it on its own.
const PrincipalKey = "station-principal"

// Trailer is one "Key: Value" line at the end of a commit message.
type Trailer struct {
	Key   string
	Value string
}

// Message is a commit message: a one-line subject, an optional body, and
// trailers written after one blank line, in order.
type Message struct {
	Subject  string
	Body     string
	Trailers []Trailer
}

type trailersKey struct{}

// WithTrailers returns a context whose commits carry the given trailers
// after the message's own and the Options' ones. It lets an adapter stamp
// the principal of one call without the core in between knowing about it;
// the stamp lives in the call, never in shared state.
func WithTrailers(ctx context.Context, t ...Trailer) context.Context {
	prev := TrailersFrom(ctx)
	all := make([]Trailer, 0, len(prev)+len(t))
	return context.WithValue(ctx, trailersKey{}, append(append(all, prev...), t...))
}

// TrailersFrom returns the trailers [WithTrailers] put on ctx.
func TrailersFrom(ctx context.Context) []Trailer {
	t, _ := ctx.Value(trailersKey{}).([]Trailer)
	return t
}

// render builds the full commit text, refusing anything that could blur the
// message's structure: a multi-line subject would push text into the body,
// and a trailer value with a newline, or a body line shaped like the
// principal trailer, could pose as a principal stamp.
func (m Message) render(extra ...[]Trailer) (string, error) {
	if strings.TrimSpace(m.Subject) == "" {
		return "", invalid("commit subject is empty", "pass one of the subjects of spec §4, e.g. PlantSubject(...)")
	}
	if i := strings.IndexFunc(m.Subject, isBreak); i >= 0 {
		return "", invalid(fmt.Sprintf("commit subject %q has a control character at byte %d; a subject is one line", m.Subject, i),
			"build subjects with the Subject helpers, which fold titles onto one line")
	}
	var b strings.Builder
	b.WriteString(m.Subject)
	b.WriteByte('\n')
	if body := strings.Trim(m.Body, "\n"); body != "" {
		if line, ok := principalLine(body); ok {
			return "", invalid(fmt.Sprintf("commit body line %q looks like the %s trailer", line, PrincipalKey),
				"the principal is stamped only as a trailer, through Options or WithTrailers")
		}
		b.WriteString("\n" + body + "\n")
	}
	all := append([]Trailer(nil), m.Trailers...)
	for _, t := range extra {
		all = append(all, t...)
	}
	for i, t := range all {
		if i == 0 {
			b.WriteByte('\n')
		}
		line, err := t.line()
		if err != nil {
			return "", err
		}
		b.WriteString(line + "\n")
	}
	return b.String(), nil
}

// line validates and renders the trailer. Keys follow git's trailer token
// (letters, digits, '-'), values are one line.
func (t Trailer) line() (string, error) {
	if t.Key == "" || strings.IndexFunc(t.Key, func(r rune) bool {
		return !(r == '-' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) >= 0 {
		return "", invalid(fmt.Sprintf("commit trailer key %q is not a git trailer token", t.Key),
			"use ASCII letters, digits and '-', e.g. "+PrincipalKey)
	}
	v := strings.TrimSpace(t.Value)
	if v == "" || strings.IndexFunc(v, isBreak) >= 0 {
		return "", invalid(fmt.Sprintf("commit trailer %s has value %q; expected one non-empty line", t.Key, t.Value),
			"drop control characters and newlines from the value")
	}
	return t.Key + ": " + v, nil
}

// isBreak reports characters that end or disturb a line of a commit message.
func isBreak(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u0085'
}

// ParseAction is history's action (C.16): the subject's leading word before
// the first "(" or ":" ("plant", "graft", "init", ...), or the whole subject
// when that word is empty or holds whitespace.
func ParseAction(subject string) string {
	i := strings.IndexAny(subject, "(:")
	if i <= 0 || strings.IndexFunc(subject[:i], unicode.IsSpace) >= 0 {
		return subject
	}
	return subject[:i]
}

// ParsePrincipal is history's "by" (C.16): the trimmed value of the last
// message line that starts, in any case, with "station-principal:"; "" when
// there is none (engine-only writes).
func ParsePrincipal(message string) string {
	by := ""
	for line := range strings.SplitSeq(message, "\n") {
		if v, ok := principalValue(line); ok {
			by = v
		}
	}
	return by
}

func principalValue(line string) (string, bool) {
	const prefix = PrincipalKey + ":"
	if len(line) < len(prefix) || !strings.EqualFold(line[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(line[len(prefix):]), true
}

func principalLine(text string) (string, bool) {
	for line := range strings.SplitSeq(text, "\n") {
		if _, ok := principalValue(line); ok {
			return line, true
		}
	}
	return "", false
}

// subjectOf is git's %s: the first paragraph with its lines joined by
// spaces.
func subjectOf(message string) string {
	para, _, _ := strings.Cut(strings.TrimLeft(message, "\n"), "\n\n")
	para = strings.TrimRight(para, "\n")
	return strings.ReplaceAll(para, "\n", " ")
}
