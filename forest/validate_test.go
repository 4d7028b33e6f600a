// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

const validSummary = "Q2 2026 returns by SKU: 9 units, $12,400 refunded. Not in the sales dataset (see sales/report-q2)."

func validNode() *Node {
	return &Node{ID: "sales/returns-q2", Front: NewFrontmatter(
		Field{"id", "sales/returns-q2"},
		Field{"type", "note"},
		Field{"title", "Returns Q2"},
		Field{"summary", validSummary},
		Field{"created", "2026-06-01"},
		Field{"updated", "2026-06-10"},
		Field{"tags", []string{"returns", "q2"}},
		Field{"links", []any{NewFrontmatter(Field{"rel", "part-of"}, Field{"target", "sales/_index"})}},
		Field{"source", "agent"},
	), Body: "# Returns Q2\n"}
}

func plantCheck() WriteCheck {
	return WriteCheck{Dialect: DefaultDialect(), StrictSummary: true, Plant: true}
}

func manyLinks(n int) []any {
	links := make([]any, n)
	for i := range links {
		links[i] = NewFrontmatter(Field{"rel", "related-to"}, Field{"target", fmt.Sprintf("x/%d", i)})
	}
	return links
}

func manyStrings(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func TestValidateWriteAcceptsValidNode(t *testing.T) {
	require.NoError(t, ValidateWrite(validNode(), plantCheck()))
	assert.Empty(t, ValidateWriteAll(validNode(), plantCheck()))

	n := validNode()
	n.Front.Set("type", "entity")
	n.Front.Set("entity_kind", "person")
	n.Front.Set("confidence", 0)
	n.Front.Set("payload_type", "pdf")
	n.Front.Set("aliases", []string{"Returns", strings.Repeat("é", MaxAliasChars)})
	n.Front.Set("origin", "https://example.org/returns?q=2%20026")
	n.Front.Set("lang", "pt-BR")
	n.Front.Set("tags", []string{"produção", "日本語", "v2", "a_b-c"})
	n.Front.Set("links", manyLinks(MaxLinks))
	n.Front.Set("source_path", "inbox/returns.pdf")
	require.NoError(t, ValidateWrite(n, plantCheck()))
}

// Every rule of the write pipeline (spec §2.6), with its code and the
// dotted field path the message starts with.
func TestValidateWriteRules(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(f *Frontmatter)
		check  func(c *WriteCheck)
		code   envelope.Code
		prefix string // the message starts with it
		more   string // and contains it
	}{
		// 1. shape: E_FRONTMATTER
		{name: "id missing", edit: func(f *Frontmatter) { f.Delete("id") },
			code: envelope.Frontmatter, prefix: "id: field required"},
		{name: "type missing", edit: func(f *Frontmatter) { f.Delete("type") },
			code: envelope.Frontmatter, prefix: "type: field required"},
		{name: "title not a string", edit: func(f *Frontmatter) { f.Set("title", 3) },
			code: envelope.Frontmatter, prefix: "title: expected a string, got integer 3"},
		{name: "summary null", edit: func(f *Frontmatter) { f.Set("summary", nil) },
			code: envelope.Frontmatter, prefix: "summary: field required"},
		{name: "created missing", edit: func(f *Frontmatter) { f.Delete("created") },
			code: envelope.Frontmatter, prefix: "created: field required"},
		{name: "created not a date", edit: func(f *Frontmatter) { f.Set("created", "2026-13-01") },
			code: envelope.Frontmatter, prefix: "created: expected a date YYYY-MM-DD", more: "'2026-13-01'"},
		{name: "updated an integer", edit: func(f *Frontmatter) { f.Set("updated", 20260601) },
			code: envelope.Frontmatter, prefix: "updated: expected a date YYYY-MM-DD, got integer 20260601"},
		{name: "tags not a list", edit: func(f *Frontmatter) { f.Set("tags", "solo") },
			code: envelope.Frontmatter, prefix: "tags: expected a list of strings, got string 'solo'"},
		{name: "tag not a string", edit: func(f *Frontmatter) { f.Set("tags", []any{"a", 2}) },
			code: envelope.Frontmatter, prefix: "tags.1: expected a string, got integer 2"},
		{name: "links not a list", edit: func(f *Frontmatter) { f.Set("links", "x") },
			code: envelope.Frontmatter, prefix: "links: expected a list"},
		{name: "link not a mapping", edit: func(f *Frontmatter) { f.Set("links", []any{"sales/_index"}) },
			code: envelope.Frontmatter, prefix: "links.0: expected a mapping with rel and target"},
		{name: "link target missing", edit: func(f *Frontmatter) {
			f.Set("links", []any{NewFrontmatter(Field{"rel", "part-of"})})
		}, code: envelope.Frontmatter, prefix: "links.0.target: field required"},
		{name: "link rel not a string", edit: func(f *Frontmatter) {
			f.Set("links", append(manyLinks(1), NewFrontmatter(Field{"rel", true}, Field{"target", "x"})))
		}, code: envelope.Frontmatter, prefix: "links.1.rel: expected a string, got boolean true"},
		{name: "link target empty", edit: func(f *Frontmatter) {
			f.Set("links", []any{NewFrontmatter(Field{"rel", "part-of"}, Field{"target", " "})})
		}, code: envelope.Frontmatter, prefix: "links.0.target: must not be empty"},
		{name: "confidence above 1", edit: func(f *Frontmatter) { f.Set("confidence", 1.5) },
			code: envelope.Frontmatter, prefix: "confidence: expected a number in [0.0, 1.0], got number 1.5"},
		{name: "confidence negative", edit: func(f *Frontmatter) { f.Set("confidence", -1) },
			code: envelope.Frontmatter, prefix: "confidence:"},
		{name: "confidence text", edit: func(f *Frontmatter) { f.Set("confidence", "high") },
			code: envelope.Frontmatter, prefix: "confidence:", more: "string 'high'"},
		{name: "confidence boolean", edit: func(f *Frontmatter) { f.Set("confidence", true) },
			code: envelope.Frontmatter, prefix: "confidence:", more: "boolean"},
		{name: "source not a string", edit: func(f *Frontmatter) { f.Set("source", []string{"agent"}) },
			code: envelope.Frontmatter, prefix: "source: expected a string, got list"},
		{name: "alias not a string", edit: func(f *Frontmatter) { f.Set("aliases", []any{NewFrontmatter()}) },
			code: envelope.Frontmatter, prefix: "aliases.0: expected a string, got mapping"},
		{name: "lang a number", edit: func(f *Frontmatter) { f.Set("lang", 1) },
			code: envelope.Frontmatter, prefix: "lang: expected a string"},
		{name: "moved_from not a list", edit: func(f *Frontmatter) { f.Set("moved_from", "old/x") },
			code: envelope.Frontmatter, prefix: "moved_from: expected a list of strings"},

		// 2-4. dialect: E_SCHEMA
		{name: "type undeclared", edit: func(f *Frontmatter) { f.Set("type", "robot") },
			code: envelope.Schema, prefix: "type: 'robot' is not a node type declared"},
		{name: "rel undeclared", edit: func(f *Frontmatter) {
			f.Set("links", append(manyLinks(1), NewFrontmatter(Field{"rel", "likes"}, Field{"target", "people/ana"})))
		}, code: envelope.Schema, prefix: "links.1.rel: 'likes' is not a rel declared", more: "(link to 'people/ana')"},
		{name: "too many links", edit: func(f *Frontmatter) { f.Set("links", manyLinks(MaxLinks+1)) },
			code: envelope.Schema, prefix: "links: 51 links, over the limit of 50"},
		{name: "rel declared by the forest's own schema only", edit: func(f *Frontmatter) {
			f.Set("links", []any{NewFrontmatter(Field{"rel", "supersedes"}, Field{"target", "x"})})
		}, check: func(c *WriteCheck) {
			c.Dialect = &Dialect{Types: []string{"note"}, Rels: []Rel{{Name: "part-of", Inverse: "contains"}}}
		}, code: envelope.Schema, prefix: "links.0.rel: 'supersedes'"},

		// 5. enums: E_FRONTMATTER
		{name: "entity without kind", edit: func(f *Frontmatter) { f.Set("type", "entity") },
			code: envelope.Frontmatter, prefix: "entity_kind: required for type 'entity'", more: "person, organization"},
		{name: "entity kind out of set", edit: func(f *Frontmatter) {
			f.Set("type", "entity")
			f.Set("entity_kind", "robot")
		}, code: envelope.Frontmatter, prefix: "entity_kind: 'robot' is not allowed"},
		{name: "payload_type out of set", edit: func(f *Frontmatter) { f.Set("payload_type", "video") },
			code: envelope.Frontmatter, prefix: "payload_type: 'video' is not allowed", more: "sqlite, pdf, docx, image, audio"},
		{name: "source out of set", edit: func(f *Frontmatter) { f.Set("source", "bot") },
			code: envelope.Frontmatter, prefix: "source: 'bot' is not allowed", more: "manual, ingest, agent"},

		// 6. summary: E_FRONTMATTER
		{name: "summary empty", edit: func(f *Frontmatter) { f.Set("summary", "  ") },
			code: envelope.Frontmatter, prefix: "summary: must not be empty"},
		{name: "summary over 60 tokens", edit: func(f *Frontmatter) { f.Set("summary", strings.Repeat("word ", 49)) },
			code: envelope.Frontmatter, prefix: "summary: 62 tokens", more: "over the limit of 60 tokens"},
		{name: "summary anti-pattern", edit: func(f *Frontmatter) { f.Set("summary", "  This document describes returns.") },
			code: envelope.Frontmatter, prefix: "summary: starts with 'this document describes'"},
		{name: "summary anti-pattern, other opening", edit: func(f *Frontmatter) { f.Set("summary", "File containing returns.") },
			code: envelope.Frontmatter, prefix: "summary: starts with 'file containing'"},

		// 7. tags, aliases, origin, lang, moved_from: E_SCHEMA
		{name: "tag with whitespace", edit: func(f *Frontmatter) { f.Set("tags", []string{"two words"}) },
			code: envelope.Schema, prefix: "tags.0: tag 'two words' contains whitespace"},
		{name: "tag too long", edit: func(f *Frontmatter) { f.Set("tags", []string{strings.Repeat("a", 41)}) },
			code: envelope.Schema, prefix: "tags.0: tag '" + strings.Repeat("a", 41) + "' is 41 characters (max 40)"},
		{name: "tag starting with a dash", edit: func(f *Frontmatter) { f.Set("tags", []string{"ok", "-x"}) },
			code: envelope.Schema, prefix: "tags.1: tag '-x' must start with a letter or a digit"},
		{name: "tag with punctuation", edit: func(f *Frontmatter) { f.Set("tags", []string{"a.b"}) },
			code: envelope.Schema, prefix: "tags.0: tag 'a.b' contains '.'"},
		{name: "tag empty", edit: func(f *Frontmatter) { f.Set("tags", []string{""}) },
			code: envelope.Schema, prefix: "tags.0: tag is empty"},
		{name: "tag duplicate ignoring case", edit: func(f *Frontmatter) { f.Set("tags", []string{"Straße", "STRASSE"}) },
			code: envelope.Schema, prefix: "tags.1: tag 'STRASSE' repeats 'Straße'"},
		{name: "too many tags", edit: func(f *Frontmatter) { f.Set("tags", manyStrings("t", MaxTags+1)) },
			code: envelope.Schema, prefix: "tags: 13 tags, over the limit of 12"},
		{name: "too many aliases", edit: func(f *Frontmatter) { f.Set("aliases", manyStrings("a", MaxAliases+1)) },
			code: envelope.Schema, prefix: "aliases: 17 aliases, over the limit of 16"},
		{name: "alias empty", edit: func(f *Frontmatter) { f.Set("aliases", []string{" "}) },
			code: envelope.Schema, prefix: "aliases.0: alias must be a non-empty string"},
		{name: "alias too long", edit: func(f *Frontmatter) { f.Set("aliases", []string{"ok", strings.Repeat("é", 81)}) },
			code: envelope.Schema, prefix: "aliases.1: alias '", more: "is 81 characters (max 80)"},
		{name: "origin with a space", edit: func(f *Frontmatter) { f.Set("origin", "my file.pdf") },
			code: envelope.Schema, prefix: "origin: contains whitespace or a control character (U+0020) at character 2"},
		{name: "origin with a newline", edit: func(f *Frontmatter) { f.Set("origin", "https://x\nfree text") },
			code: envelope.Schema, prefix: "origin: contains whitespace"},
		{name: "origin empty", edit: func(f *Frontmatter) { f.Set("origin", "") },
			code: envelope.Schema, prefix: "origin: must be a non-empty string"},
		{name: "origin too long", edit: func(f *Frontmatter) { f.Set("origin", strings.Repeat("a", MaxOriginChars+1)) },
			code: envelope.Schema, prefix: "origin: 2049 characters, over the limit of 2048"},
		{name: "lang a language name", edit: func(f *Frontmatter) { f.Set("lang", "portuguese") },
			code: envelope.Schema, prefix: "lang: 'portuguese' is not a BCP-47 language tag"},
		{name: "lang with underscore", edit: func(f *Frontmatter) { f.Set("lang", "pt_BR") },
			code: envelope.Schema, prefix: "lang: 'pt_BR' is not a BCP-47 tag"},
		{name: "moved_from in a plant", edit: func(f *Frontmatter) { f.Set("moved_from", []string{"old/x"}) },
			code: envelope.Schema, prefix: "moved_from: written only by transplant"},

		// branch id shape at plant (spec §12): E_SCHEMA
		{name: "branch at a leaf id", edit: func(f *Frontmatter) { f.Set("type", "branch") },
			code: envelope.Schema, prefix: "type: 'branch' needs an index id", more: "got id 'sales/returns-q2'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := validNode()
			tt.edit(n.Front)
			c := plantCheck()
			if tt.check != nil {
				tt.check(&c)
			}
			err := ValidateWrite(n, c)
			require.Error(t, err)
			var e *envelope.Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, tt.code, e.Code, e.Message)
			assert.True(t, strings.HasPrefix(e.Message, tt.prefix), "message %q should start with %q", e.Message, tt.prefix)
			assert.Contains(t, e.Message, tt.more)
			assert.NotEmpty(t, e.Hint, "every refusal names the next move")

			all := ValidateWriteAll(n, c)
			require.NotEmpty(t, all)
			assert.Equal(t, e, all[0], "a dry run's first problem is the real call's")
		})
	}
}

func TestValidateWriteLeafAtIndexID(t *testing.T) {
	n := validNode()
	n.ID = "sales/_index"
	err := ValidateWrite(n, plantCheck())
	require.Error(t, err)
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.Contains(t, err.Error(), "type: id 'sales/_index' is a branch index, so type must be 'branch', got 'note'")

	n.Front.Set("type", "branch")
	assert.NoError(t, ValidateWrite(n, plantCheck()))
	n.ID = "_index"
	assert.NoError(t, ValidateWrite(n, plantCheck()))

	n.ID = ""
	n.Front.Set("id", "x/_index")
	assert.NoError(t, ValidateWrite(n, plantCheck()), "without a path id the frontmatter id is used")

	leaf := validNode()
	leaf.Front.Set("type", "branch")
	assert.NoError(t, ValidateWrite(leaf, WriteCheck{StrictSummary: true}), "the id shape is a plant rule")
}

func TestValidateWriteHints(t *testing.T) {
	n := validNode()
	n.Front.Set("type", "robot")
	err := ValidateWrite(n, plantCheck())
	var e *envelope.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "This forest declares these node types: branch, concept, dataset, document, entity, event, "+
		"media, note. New ones are declared in _meta/schema.md before first use.", e.Hint)
	assert.Empty(t, e.Data, "the wire envelope stays code, message, hint")

	n = validNode()
	n.Front.Set("links", []any{NewFrontmatter(Field{"rel", "likes"}, Field{"target", "x"})})
	require.True(t, errors.As(ValidateWrite(n, plantCheck()), &e))
	assert.Contains(t, e.Hint, "rels: author, compared-with, derived-from, discovered-shortcut, mentioned-in, "+
		"part-of, related-to, same-as, succeeds, supersedes.")
	assert.Contains(t, e.Message, "'likes'")
	assert.Contains(t, e.Message, "'x'", "the refusal names the link's target")

	many := &Dialect{Types: manyStrings("type", 25)}
	n = validNode()
	require.True(t, errors.As(ValidateWrite(n, WriteCheck{Dialect: many}), &e))
	assert.True(t, strings.HasSuffix(e.Hint, ", type3, type4 (+5 more). New ones are declared in _meta/schema.md before first use."), e.Hint)

	n = validNode()
	n.Front.Set("summary", "")
	require.True(t, errors.As(ValidateWrite(n, plantCheck()), &e))
	assert.Contains(t, e.Hint, "60 tokens", "the summary hint restates the rule")
}

func TestValidateWriteOrder(t *testing.T) {
	n := validNode()
	n.Front.Set("tags", []string{"bad tag"})                                                 // step 7
	n.Front.Set("summary", "This document describes x.")                                     // step 6
	n.Front.Set("source", "bot")                                                             // step 5
	n.Front.Set("links", []any{NewFrontmatter(Field{"rel", "likes"}, Field{"target", "x"})}) // step 3
	n.Front.Set("type", "robot")                                                             // step 2
	n.Front.Set("created", "yesterday")                                                      // step 1

	err := ValidateWrite(n, plantCheck())
	assert.True(t, strings.HasPrefix(err.Error(), "E_FRONTMATTER: created:"), err.Error())

	all := ValidateWriteAll(n, plantCheck())
	var got []string
	for _, e := range all {
		field, _, _ := strings.Cut(e.Message, ":")
		got = append(got, string(e.Code)+" "+field)
	}
	assert.Equal(t, []string{
		"E_FRONTMATTER created",
		"E_SCHEMA type",
		"E_SCHEMA links.0.rel",
		"E_FRONTMATTER source",
		"E_FRONTMATTER summary",
		"E_SCHEMA tags.0",
	}, got)
}

func TestValidateWriteRelaxedSummary(t *testing.T) {
	legacy := validNode()
	legacy.Front.Set("summary", "This document describes a legacy node whose summary predates the contract. "+
		strings.Repeat("More words. ", 30))
	c := WriteCheck{Dialect: DefaultDialect()}
	assert.NoError(t, ValidateWrite(legacy, c), "an unrelated rewrite never fails on a legacy summary")
	c.StrictSummary = true
	assert.Error(t, ValidateWrite(legacy, c))

	legacy.Front.Set("summary", "")
	assert.NoError(t, ValidateWrite(legacy, WriteCheck{}), "relaxed: an empty summary is a legacy summary too")
	legacy.Front.Delete("summary")
	assert.Error(t, ValidateWrite(legacy, WriteCheck{}), "but the key stays required")
}

func TestValidateWriteGrandfathersTags(t *testing.T) {
	prior := validNode()
	prior.Front.Set("tags", append(manyStrings("t", MaxTags), "old tag", "Data", "data"))
	check := WriteCheck{Dialect: DefaultDialect(), Prior: prior}

	n := validNode()
	n.Front.Set("tags", []string{"old tag"})
	assert.NoError(t, ValidateWrite(n, check), "same spelling as stored: grandfathered")
	n.Front.Set("tags", []string{"Old tag"})
	assert.Error(t, ValidateWrite(n, check), "another spelling is a new tag")

	n.Front.Set("tags", []string{"Data", "data"})
	assert.NoError(t, ValidateWrite(n, check), "a duplicate pair already stored is grandfathered")
	n.Front.Set("tags", []string{"data", "DATA"})
	assert.Error(t, ValidateWrite(n, check), "a new spelling may not join it")

	over, _ := prior.Front.Get("tags")
	n.Front.Set("tags", over)
	assert.NoError(t, ValidateWrite(n, check), "an over-cap list passes when every tag is already stored")
	n.Front.Set("tags", append(manyStrings("t", MaxTags), "new"))
	err := ValidateWrite(n, check)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tags: 13 tags, over the limit of 12")

	n.Front.Set("tags", []string{"old tag"})
	assert.Error(t, ValidateWrite(n, WriteCheck{}), "without a prior node nothing is grandfathered")
}

func TestValidateWriteMovedFromOutsidePlant(t *testing.T) {
	n := validNode()
	n.Front.Set("moved_from", []string{"old/returns"})
	assert.NoError(t, ValidateWrite(n, WriteCheck{StrictSummary: true}), "transplant writes it")
}

func TestValidateWriteNilDialectIsDefault(t *testing.T) {
	n := validNode()
	n.Front.Set("links", []any{NewFrontmatter(Field{"rel", "supersedes"}, Field{"target", "x"})})
	assert.NoError(t, ValidateWrite(n, WriteCheck{}))
	n.Front.Set("type", "robot")
	assert.Error(t, ValidateWrite(n, WriteCheck{}))
}

func TestValidateWriteLangBoolean(t *testing.T) {
	n, err := Parse("notes/x", []byte("---\nid: notes/x\ntype: note\ntitle: T\nsummary: A note in Norwegian.\n"+
		"created: '2026-06-01'\nupdated: '2026-06-01'\nlang: false\n---\n"))
	require.NoError(t, err)
	assert.NoError(t, ValidateWrite(n, WriteCheck{StrictSummary: true}), "a YAML 1.1 'no' reads as Norwegian")
}

func TestValidateTag(t *testing.T) {
	valid := []string{"sales", "Sales", "produção", "produc\u0327a\u0303o", "日本語", "v2", "2026", "a_b-c",
		"١٢٣", "x-", strings.Repeat("é", 40)}
	for _, tag := range valid {
		assert.NoError(t, ValidateTag(tag), tag)
	}
	invalid := map[string]string{
		"":                      "tag is empty",
		" x":                    "must start with a letter or a digit",
		"-x":                    "must start with a letter or a digit",
		"_x":                    "must start with a letter or a digit",
		"\u0301x":               "must start with a letter or a digit",
		"x y":                   "contains whitespace",
		"x\u00a0y":              "contains whitespace",
		"x\ty":                  "contains whitespace",
		"a.b":                   "contains '.'",
		"a/b":                   "contains '/'",
		"c++":                   "contains '+'",
		"a\u200bb":              "contains",
		strings.Repeat("a", 41): "is 41 characters (max 40)",
	}
	for tag, want := range invalid {
		err := ValidateTag(tag)
		require.Error(t, err, tag)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
		assert.Contains(t, err.Error(), want, tag)
		var e *envelope.Error
		require.True(t, errors.As(err, &e))
		assert.Contains(t, e.Hint, "1-40 characters")
	}
}

func TestTagKey(t *testing.T) {
	assert.Equal(t, TagKey("Straße"), TagKey("STRASSE"))
	assert.Equal(t, TagKey("produção"), TagKey("PRODUC\u0327A\u0303O"), "NFC before folding")
	assert.Equal(t, "produção", TagKey("Produção"))
	assert.NotEqual(t, TagKey("producao"), TagKey("produção"), "accents are kept")
}

func TestValidateOrigin(t *testing.T) {
	for _, s := range []string{"https://example.org/a?b=c", "inbox/report.pdf", "git:3f2a9c1", "file:///x/y%20z", "ação/ü"} {
		assert.NoError(t, ValidateOrigin(s), s)
	}
	for _, s := range []string{"", " ", "a b", "a\tb", "a\nb", "a\u00a0b", "a\u2003b", "a\x7fb", "a\x00b", "a\u0085b",
		strings.Repeat("x", MaxOriginChars+1)} {
		err := ValidateOrigin(s)
		require.Error(t, err, "%q", s)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
		assert.Contains(t, err.Error(), "origin: ")
	}
	assert.NoError(t, ValidateOrigin(strings.Repeat("é", MaxOriginChars)), "the limit counts characters")
}

func TestValidateLang(t *testing.T) {
	for _, s := range []string{"pt", "pt-BR", "zh-Hans", "no", "en-US", "es-419", "PT-br"} {
		assert.NoError(t, ValidateLang(s), s)
	}
	for _, s := range []string{"", "portuguese", "pt_BR", " pt", "pt ", "pt BR", "zz", "english"} {
		err := ValidateLang(s)
		require.Error(t, err, "%q", s)
		assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
		assert.True(t, strings.HasPrefix(err.(*envelope.Error).Message, "lang: "), s)
	}
}

func TestValidateSummary(t *testing.T) {
	assert.NoError(t, ValidateSummary(validSummary))
	assert.NoError(t, ValidateSummary(strings.Repeat("a", 240)), "60 tokens exactly")
	assert.NoError(t, ValidateSummary("Describes: this document describes nothing at the start."))
	for s, want := range map[string]string{
		"":                                "must not be empty",
		"\n\t ":                           "must not be empty",
		strings.Repeat("a", 241):          "61 tokens (241 characters)",
		strings.Repeat("é", 241):          "61 tokens",
		"THIS DOCUMENT DESCRIBES returns": "starts with 'this document describes'",
		"file containing the Q2 returns":  "starts with 'file containing'",
	} {
		err := ValidateSummary(s)
		require.Error(t, err, s)
		assert.Equal(t, envelope.Frontmatter, envelope.CodeOf(err))
		assert.Contains(t, err.Error(), "summary: "+want)
	}
}
