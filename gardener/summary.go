// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

// derivedSummaryTokens is how much prose the model-free summary takes: a
// margin under A.4's 60 tokens, so a sentence boundary never lands past
// the limit.
const derivedSummaryTokens = 50

var (
	strikeRE   = regexp.MustCompile(`~~(.+?)~~`)
	sentenceRE = regexp.MustCompile(`[.!?]+\s+`)
)

// DeriveSummary is the model-free summary of a draft (G.4.1): prose only
// — heading lines, lines starting with - * > | or a backtick, fenced code
// and images dropped, link text kept, emphasis marks stripped, white
// space collapsed — then whole sentences while they fit 50 estimated
// tokens; a first sentence longer than that is cut by words and ends
// with "…". When nothing valid is left it is "Adopted content
// '<title>'; pending curation."
func DeriveSummary(title, body string) string {
	text := proseOf(body)
	if s := fitSentences(text); s != "" && forest.ValidateSummary(s) == nil {
		return s
	}
	return fallbackSummary("Adopted content '%s'; pending curation.", title)
}

// proseOf keeps the lines of body that read as prose.
func proseOf(body string) string {
	var kept []string
	fenced := false
	for line := range strings.Lines(body) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || t == "" || strings.ContainsRune("#-*>|`", rune(t[0])) {
			continue
		}
		kept = append(kept, t)
	}
	text := strings.Join(kept, " ")
	for _, m := range markup {
		if m.need(text) {
			text = m.rewrite(text)
		}
	}
	return collapseSpace(text)
}

// markup are proseOf's rewrites in order, each with a test that is false
// only when its pattern cannot match (the literal every match contains
// is absent): the regexp engine scanning a whole manual page for emphasis
// it does not have was a third of an adopt's conversion cost. The
// single-mark emphasis patterns,
//
//	\*(\S(?:[^*]*?\S)?)\*                            → $1
//	(^|[^\pL\pN_])_(\S(?:[^_]*?\S)?)_($|[^\pL\pN_])   → $1$2$3
//
// are applied by direct scans (emphasis.go), as are the strong pattern,
// (\*\*|__)(\S(?:.*?\S)?)(\*\*|__) → $2, and the image and link patterns
// (links.go).
var markup = []struct {
	rewrite func(string) string
	need    func(string) bool
}{
	{stripImages, func(s string) bool { return strings.Contains(s, "![") }},
	{stripLinks, func(s string) bool { return strings.Contains(s, "](") }},
	{stripStrong, func(s string) bool { return strings.Contains(s, "**") || strings.Contains(s, "__") }},
	{stripStarEmphasis, func(s string) bool { return strings.Count(s, "*") >= 2 }},
	{stripUnderscoreEmphasis, func(s string) bool { return strings.Count(s, "_") >= 2 }},
	{replacer(strikeRE, "$1"), func(s string) bool { return strings.Contains(s, "~~") }},
}

func replacer(re *regexp.Regexp, repl string) func(string) string {
	return func(s string) string { return re.ReplaceAllString(s, repl) }
}

// fitSentences takes whole sentences from text while the summary fits
// derivedSummaryTokens; an over-long first sentence is cut by words.
func fitSentences(text string) string {
	if text == "" {
		return ""
	}
	// Sentences are found one at a time: a summary takes a few, and
	// splitting a whole manual page into sentences cost more than the
	// rest of the summary.
	out, first, last := "", "", 0
	for last < len(text) {
		var s string
		if m := sentenceRE.FindStringIndex(text[last:]); m != nil {
			s = strings.TrimSpace(text[last : last+m[1]])
			last += m[1]
		} else {
			s = strings.TrimSpace(text[last:])
			last = len(text)
			if s == "" {
				break
			}
		}
		if first == "" {
			first = s
		}
		next := strings.TrimSpace(out + " " + s)
		if budget.EstimateTokens(next) > derivedSummaryTokens {
			break
		}
		out = next
	}
	if out == "" {
		return cutWords(first, derivedSummaryTokens)
	}
	return out
}

// cutWords keeps the leading words of s that fit maxTokens with a
// trailing "…".
func cutWords(s string, maxTokens int) string {
	out := ""
	for _, w := range strings.Fields(s) {
		next := strings.TrimSpace(out + " " + w)
		if budget.EstimateTokens(next+"…") > maxTokens {
			break
		}
		out = next
	}
	if out == "" {
		r := []rune(s)
		return string(r[:min(len(r), maxTokens*4-1)]) + "…"
	}
	return strings.TrimRight(out, ",;:") + "…"
}

// DatasetSummary is the model-free summary of a dataset passport
// (G.4.1, G.2.3 rule 5): it names the tables and their row counts, at
// most four, "+<m> more" for the rest. tables are in map order; rows
// holds the known counts (a table absent from rows is named without
// one).
func DatasetSummary(title string, tables []string, rows map[string]int64) string {
	const tail = ". Adopted from source; pending curation."
	if len(tables) > 0 {
		named := make([]string, 0, 4)
		for _, t := range tables[:min(len(tables), 4)] {
			if n, ok := rows[t]; ok {
				t = fmt.Sprintf("%s (%s)", t, rowCount(n))
			}
			named = append(named, t)
		}
		var s string
		if len(tables) == 1 {
			s = fmt.Sprintf("Tabular data '%s': table %s", title, named[0])
		} else {
			s = fmt.Sprintf("Tabular data '%s': %d tables %s", title, len(tables), strings.Join(named, ", "))
			if more := len(tables) - len(named); more > 0 {
				s += fmt.Sprintf(", +%d more", more)
			}
		}
		if s += tail; forest.ValidateSummary(s) == nil {
			return s
		}
	}
	return fallbackSummary("Tabular data '%s' with "+fmt.Sprint(len(tables))+" table(s)"+tail, title)
}

func rowCount(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// fallbackSummary renders format with the title, shortening the title
// until the summary passes A.4 (a title may be longer than a summary).
func fallbackSummary(format, title string) string {
	runes := []rune(strings.Join(strings.Fields(title), " "))
	for n := len(runes); ; n = n * 3 / 4 {
		t := string(runes[:n])
		if n < len(runes) {
			t = strings.TrimSpace(t) + "…"
		}
		if s := fmt.Sprintf(format, t); n == 0 || forest.ValidateSummary(s) == nil {
			return s
		}
	}
}
