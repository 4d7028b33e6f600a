// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/terms"
)

// codeRE finds team codes such as ADR-0002 or BE-291 in a title or H1.
var codeRE = regexp.MustCompile(`\b[A-Z]{2,6}-\d{1,6}\b`)

// DeriveAliases is what a source states about itself as alternative
// names (G.2.6): the number leading the file stem, qualified by the
// folder's declared prefix (declared maps folder name → prefix), else by
// the folder's initials, then folder/number and the bare number; plus
// every code like ADR-0002 in the title or first H1 (never the body below
// it: codes in prose usually cite other documents). rel is the
// source-relative path with "/". Duplicates go, the first kept. Nothing
// derivable is nothing. The cap of 16 is applied, and counted, when the
// aliases join a passport.
func DeriveAliases(rel, title, body string, declared map[string]string) []string {
	var out []string
	add := func(a string) {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	folder := ""
	if dir := path.Dir(rel); dir != "." && dir != "/" {
		folder = path.Base(dir)
	}
	if n := leadingNumber(stem(rel)); n != "" {
		if p, ok := declared[folder]; ok && folder != "" && strings.TrimSpace(p) != "" {
			add(strings.TrimSpace(p) + "-" + n)
		} else if i := initials(folder); i != "" {
			add(i + "-" + n)
		}
		if folder != "" {
			add(folder + "/" + n)
		}
		add(n)
	}
	for _, code := range codeRE.FindAllString(title+"\n"+firstH1(body), -1) {
		add(code)
	}
	return out
}

// leadingNumber is the run of ASCII digits starting the stem, when it
// ends at a separator or at the stem's end: "291-provider-budget" gives
// 291, "9router-free" nothing.
func leadingNumber(stem string) string {
	i := 0
	for i < len(stem) && stem[i] >= '0' && stem[i] <= '9' {
		i++
	}
	if i == 0 {
		return ""
	}
	if i < len(stem) {
		r, _ := utf8.DecodeRuneInString(stem[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return ""
		}
	}
	return stem[:i]
}

// initials are the upper-cased first letters of a folder name of two or
// more parts split on "-" and "_" (back-end → BE); a one-word folder has
// none.
func initials(folder string) string {
	parts := strings.FieldsFunc(folder, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) < 2 {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		r, _ := utf8.DecodeRuneInString(p)
		b.WriteString(strings.ToUpper(string(r)))
	}
	return b.String()
}

// firstH1 is the text of the body's first "# " heading line.
func firstH1(body string) string {
	for line := range strings.Lines(body) {
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// unionAliases appends the candidates existing lacks (exact spelling),
// never displacing an existing alias. Candidates that are blank, longer
// than 80 characters or beyond the cap of 16 are not added and are
// counted as clipped.
func unionAliases(existing, candidates []string) (out []string, clipped int) {
	out = append([]string(nil), existing...)
	for _, a := range candidates {
		a = strings.TrimSpace(a)
		if slices.Contains(out, a) {
			continue
		}
		if a == "" || utf8.RuneCountInString(a) > forest.MaxAliasChars || len(out) >= forest.MaxAliases {
			clipped++
			continue
		}
		out = append(out, a)
	}
	return out, clipped
}

// proposedAliases filters a Curator's alias proposals through the
// structural guard (G.4 §11.4): trimmed, non-empty, at most 80
// characters, occurring in the title or body under the one shared fold,
// not the title itself and not already present (folded). Proposals that
// fail the guard are dropped silently: they are not the source's words.
func proposedAliases(existing, proposals []string, title, body string) []string {
	text := terms.Fold(title + "\n" + body)
	seen := map[string]bool{terms.Fold(strings.TrimSpace(title)): true}
	for _, a := range existing {
		seen[terms.Fold(a)] = true
	}
	var out []string
	for _, p := range proposals {
		p = strings.TrimSpace(p)
		f := terms.Fold(p)
		if p == "" || utf8.RuneCountInString(p) > forest.MaxAliasChars || seen[f] || !strings.Contains(text, f) {
			continue
		}
		seen[f] = true
		out = append(out, p)
	}
	return out
}
