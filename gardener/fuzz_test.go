// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

// FuzzParseConfig: any bytes parse to a config or an E_SCHEMA refusal,
// and a parsed config saves to text that parses to the same values.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("source_root: /srv\ndest: handbook\nignore: ['~$*']\naliases: {back-end: BE}\ncontent: cached\n"))
	f.Add([]byte("curation:\n  default_tags: [a]\n  directives: x\nextra: {a: [1, 2]}\n"))
	f.Add([]byte("- 1\n- 2"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if envelope.CodeOf(err) != envelope.Schema {
				t.Fatalf("refusal is not E_SCHEMA: %v", err)
			}
			return
		}
		out, err := c.Marshal()
		if err != nil {
			return // an exotic value the encoder cannot write back; never a panic
		}
		back, err := ParseConfig(out)
		if err != nil {
			t.Fatalf("saved config does not parse: %v\n%s", err, out)
		}
		if back.SourceRoot != c.SourceRoot || back.Dest != c.Dest || back.Content != c.Content ||
			back.Archive != c.Archive || !slices.Equal(back.Ignore, c.Ignore) {
			t.Fatalf("round trip changed the config: %+v vs %+v", c, back)
		}
	})
}

// FuzzDeriveSummary: whatever the text and title, the summary passes A.4
// (a fallback included: it is planted as is).
func FuzzDeriveSummary(f *testing.F) {
	f.Add("Title", "# H\n\nOne sentence. Two! Three?")
	f.Add("", "**bold** [link](x) ![img](y) `code`")
	f.Add(strings.Repeat("t", 300), strings.Repeat("word ", 200))
	f.Add("x", "This document describes nothing.")
	f.Fuzz(func(t *testing.T, title, body string) {
		if !utf8.ValidString(title) || !utf8.ValidString(body) {
			return // converters hand over valid UTF-8
		}
		if s := DeriveSummary(title, body); forest.ValidateSummary(s) != nil {
			t.Fatalf("summary %q breaks A.4", s)
		}
		if d := DatasetSummary(title, []string{"a", "b"}, map[string]int64{"a": 1}); forest.ValidateSummary(d) != nil {
			t.Fatalf("dataset summary %q breaks A.4", d)
		}
	})
}

// FuzzDeriveAliases: derived aliases are never empty and never repeat.
func FuzzDeriveAliases(f *testing.F) {
	f.Add("back-end/291-provider-budget.md", "ADR-0002 Storage", "# INC-1")
	f.Add("9router.md", "", "")
	f.Add("a/b/c/0001_x.txt", "BE-1 BE-1", "")
	f.Fuzz(func(t *testing.T, rel, title, body string) {
		got := DeriveAliases(rel, title, body, map[string]string{"back-end": "API"})
		seen := map[string]bool{}
		for _, a := range got {
			if a == "" || seen[a] {
				t.Fatalf("alias list %q has an empty or repeated entry", got)
			}
			seen[a] = true
		}
		if n := leadingNumber(stem(rel)); n != "" && !slices.Contains(got, n) {
			t.Fatalf("number %s of %q not among %q", n, rel, got)
		}
		merged, _ := unionAliases(nil, got)
		if len(merged) > forest.MaxAliases {
			t.Fatalf("union kept %d aliases", len(merged))
		}
	})
}

// FuzzCleanTags: every kept tag passes the rule, keys are unique, and
// nothing but duplicates goes uncounted.
func FuzzCleanTags(f *testing.F) {
	f.Add("Orçamento,São-Paulo,two words,,x")
	f.Add("Straße,STRASSE,cafe\u0301,café")
	f.Fuzz(func(t *testing.T, list string) {
		in := strings.Split(list, ",")
		kept, dropped := CleanTags(in)
		if len(kept) > forest.MaxTags || len(kept)+dropped > len(in) {
			t.Fatalf("kept %d dropped %d of %d", len(kept), dropped, len(in))
		}
		keys := map[string]bool{}
		for _, tag := range kept {
			if forest.ValidateTag(tag) != nil || keys[forest.TagKey(tag)] {
				t.Fatalf("kept %q breaks the rule or repeats", tag)
			}
			keys[forest.TagKey(tag)] = true
		}
	})
}

// FuzzUploadEntry: a staged name is accepted only when it stays under the
// staging root, and a source URL only when it is http(s) without control
// characters.
func FuzzUploadEntry(f *testing.F) {
	f.Add("report.pdf", "https://example.org/r")
	f.Add("../x", "ftp://x")
	f.Add(`a\..\..\b`, "http://a b")
	f.Add("q1/sales.csv", "")
	f.Fuzz(func(t *testing.T, name, url string) {
		clean, err := stagedName(0, name)
		if err == nil && (clean == "" || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." ||
			path.IsAbs(clean) || path.Clean(clean) != clean) {
			t.Fatalf("name %q accepted as %q", name, clean)
		}
		if url == "" {
			return
		}
		if err := checkSourceURL(0, url); err == nil {
			if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") &&
				!strings.HasPrefix(strings.ToLower(url), "http") {
				t.Fatalf("url %q accepted", url)
			}
			for _, r := range url {
				if r < 0x21 || r == 0x7f {
					t.Fatalf("url %q with control characters accepted", url)
				}
			}
		}
	})
}

// proseOfUnguarded is proseOf before its rewrites were guarded: every
// pattern runs on every text. The guarded one must answer the same.
func proseOfUnguarded(body string) string {
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
	for _, m := range markupRegexps {
		text = m.re.ReplaceAllString(text, m.repl)
	}
	return strings.Join(strings.Fields(text), " ")
}

// markupRegexps are proseOf's rewrites as the reference states them, all
// as patterns: the oracle for the direct scans.
var markupRegexps = []struct {
	re   *regexp.Regexp
	repl string
}{
	{imageRE, ""}, {linkRE, "$1"}, {strongRE, "$2"},
	{emphStarRE, "$1"}, {emphUndRE, "$1$2$3"}, {strikeRE, "$1"},
}

var (
	imageRE    = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	linkRE     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	strongRE   = regexp.MustCompile(`(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)`)
	emphStarRE = regexp.MustCompile(`\*(\S(?:[^*]*?\S)?)\*`)
	emphUndRE  = regexp.MustCompile(`(^|[^\pL\pN_])_(\S(?:[^_]*?\S)?)_($|[^\pL\pN_])`)
)

// FuzzEmphasisScanners: the direct scans answer as the patterns do, on
// any text (invalid UTF-8 included: both read a bad byte as U+FFFD).
func FuzzEmphasisScanners(f *testing.F) {
	for _, s := range []string{
		"_a_", "a _b_ c", "_a_ _b_", "x__y__z", "__", "___", "_ a_", "_a _", "(_a_)", "é_ü_é",
		"*a*", "**", "***", "* a*", "*a *b*", "a*b*c", "_a_b_ *c*d*", "_\u00a0_", "\v_x_\v",
		"snake_case and _emph_", "_x_\xff_y_", "1_2_3", "-_x_-_y_-",
		"**a**", "__a__", "**a__", "**a**b**", "***a**", "** a**", "**a **b**", "**é**", "**\xff**",
		"**a\n**b**", "**ab\n**", "x**y** **z**", "****", "*****", "__init__ and __main__", "**a** __b__",
		"** **a**", "a** b**c**", "**a\t**", "**\u00e9\u00e8 **x**",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripUnderscoreEmphasis(s), emphUndRE.ReplaceAllString(s, "$1$2$3"); got != want {
			t.Fatalf("underscores in %q: %q, pattern %q", s, got, want)
		}
		if got, want := stripStarEmphasis(s), emphStarRE.ReplaceAllString(s, "$1"); got != want {
			t.Fatalf("stars in %q: %q, pattern %q", s, got, want)
		}
		if got, want := stripStrong(s), strongRE.ReplaceAllString(s, "$2"); got != want {
			t.Fatalf("strong in %q: %q, pattern %q", s, got, want)
		}
	})
}

// FuzzLinkScanners: the direct scans answer as the patterns do, on any
// text (invalid UTF-8 included).
func FuzzLinkScanners(f *testing.F) {
	for _, s := range []string{
		"[t](u)", "![i](v)", "[a [b](c)", "![a] ![b](c)", "[a]](b)", "[a] (b)", "[a](b", "[](", "[]()",
		"x ![i](v) [t](u) y", "![x](y) trailing [", "[a]\n(b)", "[a](\n)", "é[ü](é)\xff[\xfe](x)",
		"![![i](v)](w)", "[[a](b)](c)", "(([a]))(b)", "![](", "![a](b)(c)", "[a][b](c)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripImages(s), imageRE.ReplaceAllString(s, ""); got != want {
			t.Fatalf("images in %q: %q, pattern %q", s, got, want)
		}
		if got, want := stripLinks(s), linkRE.ReplaceAllString(s, "$1"); got != want {
			t.Fatalf("links in %q: %q, pattern %q", s, got, want)
		}
	})
}

// FuzzProseOfGuards: skipping a rewrite whose literal is absent changes
// nothing.
func FuzzProseOfGuards(f *testing.F) {
	for _, s := range []string{
		"plain text only", "a **b** c __d__ e", "a *b* c", "x _y_ z", "snake_case and more_words",
		"~~gone~~ kept", "[t](u) ![i](v)", "*", "_", "**", "__", "~~", "a * b * c", "a_b _c_",
		"_a_b_ *c*d* __e**", "![x] (y)", "[a]](b)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !utf8.ValidString(body) {
			return
		}
		if got, want := proseOf(body), proseOfUnguarded(body); got != want {
			t.Fatalf("proseOf(%q) = %q, unguarded %q", body, got, want)
		}
	})
}

// fitSentencesWhole is fitSentences as it was, splitting the whole text
// into sentences first: the oracle for the one that stops early.
func fitSentencesWhole(text string) string {
	if text == "" {
		return ""
	}
	var sentences []string
	last := 0
	for _, m := range sentenceRE.FindAllStringIndex(text, -1) {
		sentences = append(sentences, strings.TrimSpace(text[last:m[1]]))
		last = m[1]
	}
	if rest := strings.TrimSpace(text[last:]); rest != "" {
		sentences = append(sentences, rest)
	}
	out := ""
	for _, s := range sentences {
		next := strings.TrimSpace(out + " " + s)
		if budget.EstimateTokens(next) > derivedSummaryTokens {
			break
		}
		out = next
	}
	if out == "" {
		return cutWords(sentences[0], derivedSummaryTokens)
	}
	return out
}

// FuzzFitSentences: taking sentences one at a time answers as splitting
// the whole text did, on proseOf's output (no space at either end).
func FuzzFitSentences(f *testing.F) {
	f.Add("One. Two! Three? " + strings.Repeat("word ", 60))
	f.Add(strings.Repeat("This sentence has exactly forty chars. ", 8))
	f.Add(strings.Repeat("x", 300) + ". y")
	f.Add("a.b. c!? d")
	f.Fuzz(func(t *testing.T, s string) {
		text := strings.Join(strings.Fields(s), " ")
		if got, want := fitSentences(text), fitSentencesWhole(text); got != want {
			t.Fatalf("fitSentences(%q) = %q, whole split %q", text, got, want)
		}
	})
}
