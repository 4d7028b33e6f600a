// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/internal/budget"
)

// Limits of the write rules (spec §2.2, §2.5, §2.9).
const (
	MaxLinks         = 50
	MaxTags          = 12
	MaxTagChars      = 40
	MaxAliases       = 16
	MaxAliasChars    = 80
	MaxOriginChars   = 2048
	SummaryMaxTokens = 60
)

// The closed value sets of A.3; out-of-set values are E_FRONTMATTER.
var (
	entityKinds  = []string{"person", "organization", "product", "place", "other"}
	payloadTypes = []string{"sqlite", "pdf", "docx", "image", "audio"}
	sources      = []string{"manual", "ingest", "agent"}
)

// summaryBannedOpenings are the A.4 anti-patterns: openings that spend
// tokens without saying what the node is.
var summaryBannedOpenings = []string{"this document describes", "file containing"}

const (
	summaryRule = "A summary lets a reader decide relevance without opening the body: " +
		"what it is (category + subject), the key content (numbers, names, time span), " +
		"optionally what is not here and where it lives. 1-3 sentences, at most 60 tokens " +
		"(about 240 characters); never open with 'This document describes' or 'File containing'."
	tagRule = "A tag is 1-40 characters of Unicode letters, marks and digits plus '-' and '_', " +
		"starting with a letter or a digit, with no whitespace (one token; a phrase belongs in " +
		"the summary). Spelling and accents are kept; tags are unique ignoring case. At most 12 per node."
	aliasRule  = "Aliases are other names locate finds the node by: at most 16, each a non-empty string of at most 80 characters."
	originRule = "origin is one URI: a path, URL or commit ref, at most 2048 characters, " +
		"with no whitespace or control characters; percent-encode spaces."
	langRule = "lang is one BCP-47 tag: a 2-3 letter language, optionally a script and a region " +
		"('pt', 'pt-BR', 'zh-Hans'). A language's name is not a tag; leave lang absent when unknown."
	shapeHint = "Frontmatter needs id, type, title, summary (strings) and created, updated " +
		"(dates YYYY-MM-DD); tags and aliases are lists of strings; links are {rel, target} " +
		"mappings; confidence is a number in [0.0, 1.0]."
)

// WriteCheck configures ValidateWrite for one write.
type WriteCheck struct {
	// Dialect is the forest's vocabulary; nil means the built-in default
	// dialect, which is what a forest without _meta/schema.md speaks.
	Dialect *Dialect
	// StrictSummary applies the whole A.4 contract: at plant and whenever
	// the write sets summary. Other rewrites relax it so a legacy summary
	// never blocks an unrelated edit.
	StrictSummary bool
	// Plant refuses moved_from (only transplant writes it) and enforces
	// the branch id shape: type branch if and only if the id is _index or
	// ends in /_index.
	Plant bool
	// Prior is the stored node being rewritten, if any: tags already on it
	// with the exact same spelling are grandfathered, so old forests and
	// editor round trips still save.
	Prior *Node
}

// ValidateWrite runs the write checks of spec §2.6 in order and returns
// the first failure as an *envelope.Error, or nil. Every message starts
// with the dotted field path it is about (links.0.target: field required).
func ValidateWrite(n *Node, c WriteCheck) error {
	if errs := validateWrite(n, c, false); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// ValidateWriteAll returns every failure, in pipeline order, for dry runs
// (C.7.3): the first entry is the one ValidateWrite returns. Checks whose
// input is ill-typed are skipped rather than reported twice.
func ValidateWriteAll(n *Node, c WriteCheck) []*envelope.Error {
	return validateWrite(n, c, true)
}

// writeCheck is one step of the pipeline; it reports every failure of its
// rule.
type writeCheck func(n *Node, c WriteCheck) []*envelope.Error

var writePipeline = []writeCheck{
	checkShape,
	checkTypeDeclared,
	checkBranchShape,
	checkRelsDeclared,
	checkLinkCount,
	checkEnums,
	checkSummary,
	checkTags,
	checkAliases,
	checkOrigin,
	checkLang,
	checkMovedFrom,
}

func validateWrite(n *Node, c WriteCheck, all bool) []*envelope.Error {
	if c.Dialect == nil {
		c.Dialect = DefaultDialect()
	}
	var errs []*envelope.Error
	for _, step := range writePipeline {
		errs = append(errs, step(n, c)...)
		if len(errs) > 0 && !all {
			return errs[:1]
		}
	}
	return errs
}

// ---- step 1: shape (E_FRONTMATTER) ----

var (
	requiredText  = []string{"id", "type", "title", "summary"}
	requiredDates = []string{"created", "updated"}
	optionalText  = []string{"source", "payload", "payload_type", "payload_hash", "entity_kind", "origin", "coverage", "content"}
	optionalLists = []string{"tags", "aliases", "moved_from"}
)

func checkShape(n *Node, _ WriteCheck) []*envelope.Error {
	f := n.Front
	var errs []*envelope.Error
	fail := func(path, reason string) {
		errs = append(errs, envelope.New(envelope.Frontmatter, path+": "+reason, shapeHint))
	}
	for _, key := range requiredText {
		v, ok := f.Get(key)
		switch {
		case !ok || v == nil:
			fail(key, "field required")
		case !isString(v):
			fail(key, "expected a string, got "+describe(v))
		}
	}
	for _, key := range requiredDates {
		v, ok := f.Get(key)
		if !ok || v == nil {
			fail(key, "field required")
			continue
		}
		if s, isStr := v.(string); !isStr {
			fail(key, "expected a date YYYY-MM-DD, got "+describe(v))
		} else if _, ok := leadingDate(s); !ok {
			fail(key, "expected a date YYYY-MM-DD, got "+describe(v))
		}
	}
	for _, key := range optionalLists {
		for _, p := range stringListProblems(f, key) {
			fail(p[0], p[1])
		}
	}
	for _, p := range linkShapeProblems(f) {
		fail(p[0], p[1])
	}
	if v, ok := f.Get("confidence"); ok && v != nil {
		if x, isNum := number(v); !isNum || !(x >= 0 && x <= 1) {
			fail("confidence", "expected a number in [0.0, 1.0], got "+describe(v))
		}
	}
	for _, key := range optionalText {
		if v, ok := f.Get(key); ok && v != nil && !isString(v) {
			fail(key, "expected a string, got "+describe(v))
		}
	}
	if v, ok := f.Get("lang"); ok && v != nil && !isString(v) {
		if _, isBool := v.(bool); !isBool {
			fail("lang", "expected a string, got "+describe(v))
		}
	}
	return errs
}

// stringListProblems reports a list field that is not a list of strings,
// as [path, reason] pairs. Null is absent.
func stringListProblems(f *Frontmatter, key string) [][2]string {
	v, ok := f.Get(key)
	if !ok || v == nil {
		return nil
	}
	items, isList := v.([]any)
	if !isList {
		return [][2]string{{key, "expected a list of strings, got " + describe(v)}}
	}
	var out [][2]string
	for i, it := range items {
		if !isString(it) {
			out = append(out, [2]string{key + "." + strconv.Itoa(i), "expected a string, got " + describe(it)})
		}
	}
	return out
}

func linkShapeProblems(f *Frontmatter) [][2]string {
	v, ok := f.Get("links")
	if !ok || v == nil {
		return nil
	}
	items, isList := v.([]any)
	if !isList {
		return [][2]string{{"links", "expected a list of {rel, target} mappings, got " + describe(v)}}
	}
	var out [][2]string
	for i, it := range items {
		path := "links." + strconv.Itoa(i)
		m, isMap := it.(*Frontmatter)
		if !isMap {
			out = append(out, [2]string{path, "expected a mapping with rel and target, got " + describe(it)})
			continue
		}
		for _, key := range []string{"rel", "target"} {
			v, ok := m.Get(key)
			switch {
			case !ok || v == nil:
				out = append(out, [2]string{path + "." + key, "field required"})
			case !isString(v):
				out = append(out, [2]string{path + "." + key, "expected a string, got " + describe(v)})
			case strings.TrimSpace(v.(string)) == "":
				out = append(out, [2]string{path + "." + key, "must not be empty"})
			}
		}
	}
	return out
}

// ---- steps 2-4: dialect (E_SCHEMA) ----

func checkTypeDeclared(n *Node, c WriteCheck) []*envelope.Error {
	t, ok := n.Front.fieldString("type")
	if !ok || c.Dialect.HasType(t) {
		return nil
	}
	return []*envelope.Error{envelope.New(envelope.Schema,
		fmt.Sprintf("type: '%s' is not a node type declared in this forest", t),
		declaredHint(c.Dialect.Types, "node types"))}
}

// declaredInHint caps the names a hint spells out; a hint that scrolls is
// not a hint, and the count sends the reader to the schema file.
const declaredInHint = 20

// declaredHint names the declared set, sorted, so the refusal answers the
// question completely (v0.61).
func declaredHint(names []string, kind string) string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	shown := strings.Join(sorted[:min(len(sorted), declaredInHint)], ", ")
	if more := len(sorted) - declaredInHint; more > 0 {
		shown += fmt.Sprintf(" (+%d more)", more)
	}
	return fmt.Sprintf("This forest declares these %s: %s. New ones are declared in _meta/schema.md before first use.",
		kind, shown)
}

// checkBranchShape enforces, at plant, that branches live at index ids
// and only there (spec §12).
func checkBranchShape(n *Node, c WriteCheck) []*envelope.Error {
	t, ok := n.Front.fieldString("type")
	if !c.Plant || !ok {
		return nil
	}
	id := n.ID
	if id == "" {
		id, _ = n.Front.fieldString("id")
	}
	isIndex := IsIndex(id)
	switch {
	case t == "branch" && !isIndex:
		return []*envelope.Error{envelope.New(envelope.Schema,
			fmt.Sprintf("type: 'branch' needs an index id ('_index' or '<folder>/_index'), got id '%s'", id),
			"A branch is a folder's _index.md: plant it as '<folder>/_index', or give this leaf another type.")}
	case t != "branch" && isIndex:
		return []*envelope.Error{envelope.New(envelope.Schema,
			fmt.Sprintf("type: id '%s' is a branch index, so type must be 'branch', got '%s'", id, t),
			"Only branches live at '_index' ids; plant a leaf under another name.")}
	}
	return nil
}

func checkRelsDeclared(n *Node, c WriteCheck) []*envelope.Error {
	var errs []*envelope.Error
	for i, l := range linkEntries(n.Front) {
		rel, ok := l.fieldString("rel")
		if !ok || c.Dialect.HasRel(rel) {
			continue
		}
		target, _ := l.fieldString("target")
		path := fmt.Sprintf("links.%d.rel", i)
		errs = append(errs, envelope.New(envelope.Schema,
			fmt.Sprintf("%s: '%s' is not a rel declared in this forest (link to '%s')", path, rel, target),
			declaredHint(c.Dialect.RelNames(), "rels")))
	}
	return errs
}

// linkEntries returns the mapping entries of links, keeping positions
// (non-mappings become nil so indices match the file).
func linkEntries(f *Frontmatter) []*Frontmatter {
	v, _ := f.Get("links")
	items, _ := v.([]any)
	out := make([]*Frontmatter, len(items))
	for i, it := range items {
		out[i], _ = it.(*Frontmatter)
	}
	return out
}

func checkLinkCount(n *Node, _ WriteCheck) []*envelope.Error {
	v, _ := n.Front.Get("links")
	items, _ := v.([]any)
	if len(items) <= MaxLinks {
		return nil
	}
	return []*envelope.Error{envelope.New(envelope.Schema,
		fmt.Sprintf("links: %d links, over the limit of %d per node", len(items), MaxLinks),
		"A node this connected is a branch candidate: split it, or keep the strongest links.")}
}

// ---- step 5: enums (E_FRONTMATTER) ----

func checkEnums(n *Node, _ WriteCheck) []*envelope.Error {
	var errs []*envelope.Error
	if t, _ := n.Front.fieldString("type"); t == "entity" {
		kind, ok := n.Front.fieldString("entity_kind")
		switch {
		case !ok:
			errs = append(errs, enumError("entity_kind", "required for type 'entity'", entityKinds))
		case !slices.Contains(entityKinds, kind):
			errs = append(errs, enumError("entity_kind", fmt.Sprintf("'%s' is not allowed", kind), entityKinds))
		}
	}
	for _, e := range []struct {
		key string
		set []string
	}{{"payload_type", payloadTypes}, {"source", sources}} {
		if v, ok := n.Front.fieldString(e.key); ok && !slices.Contains(e.set, v) {
			errs = append(errs, enumError(e.key, fmt.Sprintf("'%s' is not allowed", v), e.set))
		}
	}
	return errs
}

func enumError(key, what string, set []string) *envelope.Error {
	return envelope.New(envelope.Frontmatter,
		fmt.Sprintf("%s: %s; expected one of %s", key, what, strings.Join(set, ", ")),
		fmt.Sprintf("Set %s to one of: %s.", key, strings.Join(set, ", ")))
}

// ---- step 6: summary (E_FRONTMATTER) ----

func checkSummary(n *Node, c WriteCheck) []*envelope.Error {
	s, ok := n.Front.fieldString("summary")
	if !c.StrictSummary || !ok {
		return nil
	}
	if err := ValidateSummary(s); err != nil {
		return []*envelope.Error{err.(*envelope.Error)}
	}
	return nil
}

// ValidateSummary checks the A.4 contract: not empty after trimming, at
// most 60 tokens, and no opening that spends tokens without scent. The
// refusal is E_FRONTMATTER with a hint restating the rule.
func ValidateSummary(s string) error {
	fail := func(what string) error {
		return envelope.New(envelope.Frontmatter, "summary: "+what, summaryRule)
	}
	trimmed := strings.TrimSpace(s)
	if trimmed == "" {
		return fail("must not be empty")
	}
	if tokens := budget.EstimateTokens(s); tokens > SummaryMaxTokens {
		return fail(fmt.Sprintf("%d tokens (%d characters), over the limit of %d tokens",
			tokens, utf8.RuneCountInString(s), SummaryMaxTokens))
	}
	low := strings.ToLower(trimmed)
	for _, banned := range summaryBannedOpenings {
		if strings.HasPrefix(low, banned) {
			return fail(fmt.Sprintf("starts with '%s', which says nothing about the content", banned))
		}
	}
	return nil
}

// ---- step 7: tags, aliases, origin, lang, moved_from (E_SCHEMA) ----

func checkTags(n *Node, c WriteCheck) []*envelope.Error {
	v, _ := n.Front.Get("tags")
	items, isList := v.([]any)
	if !isList {
		return nil
	}
	var prior []string
	if c.Prior != nil {
		prior = c.Prior.Tags()
	}
	grandfathered := func(t string) bool { return slices.Contains(prior, t) }
	var errs []*envelope.Error
	seen := map[string]string{}
	allOld := true
	for i, it := range items {
		tag, ok := it.(string)
		if !ok {
			continue // reported by the shape check
		}
		path := "tags." + strconv.Itoa(i)
		old := grandfathered(tag)
		allOld = allOld && old
		if !old {
			if err := ValidateTag(tag); err != nil {
				e := err.(*envelope.Error)
				errs = append(errs, envelope.New(envelope.Schema, path+": "+e.Message, e.Hint))
				continue
			}
		}
		key := TagKey(tag)
		if first, dup := seen[key]; dup {
			if !old || !grandfathered(first) {
				errs = append(errs, envelope.New(envelope.Schema,
					fmt.Sprintf("%s: tag '%s' repeats '%s' (tags are unique ignoring case)", path, tag, first),
					tagRule))
			}
			continue
		}
		seen[key] = tag
	}
	// The cap is grandfathered too: an over-cap list passes only when
	// every tag on it is already on the stored node (spec §12).
	if len(items) > MaxTags && !allOld {
		errs = append(errs, envelope.New(envelope.Schema,
			fmt.Sprintf("tags: %d tags, over the limit of %d per node", len(items), MaxTags), tagRule))
	}
	return errs
}

// ValidateTag checks one tag against the v0.75 rule (spec §2.5, §12):
// 1-40 characters of Unicode letters (L*), marks (M*) and digits (N*)
// plus '-' and '_', starting with a letter or digit. The refusal is
// E_SCHEMA naming the tag, with the rule as hint.
func ValidateTag(tag string) error {
	fail := func(what string) error {
		return envelope.New(envelope.Schema, what, tagRule)
	}
	if tag == "" {
		return fail("tag is empty")
	}
	if n := utf8.RuneCountInString(tag); n > MaxTagChars {
		return fail(fmt.Sprintf("tag '%s' is %d characters (max %d)", tag, n, MaxTagChars))
	}
	for i, r := range tag {
		if i == 0 {
			if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
				return fail(fmt.Sprintf("tag '%s' must start with a letter or a digit", tag))
			}
			continue
		}
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || r == '-' || r == '_' {
			continue
		}
		if unicode.IsSpace(r) {
			return fail(fmt.Sprintf("tag '%s' contains whitespace (a tag is one token)", tag))
		}
		return fail(fmt.Sprintf("tag '%s' contains %q (U+%04X), which a tag may not", tag, r, r))
	}
	return nil
}

var tagFold = cases.Fold()

// TagKey is the comparison form of a tag: case folding of its NFC form,
// so two spellings of one word are one tag. It decides uniqueness only;
// a tag is always stored as spelled.
func TagKey(tag string) string {
	return tagFold.String(norm.NFC.String(tag))
}

func checkAliases(n *Node, _ WriteCheck) []*envelope.Error {
	v, _ := n.Front.Get("aliases")
	items, isList := v.([]any)
	if !isList {
		return nil
	}
	var errs []*envelope.Error
	fail := func(path, what string) {
		errs = append(errs, envelope.New(envelope.Schema, path+": "+what, aliasRule))
	}
	for i, it := range items {
		alias, ok := it.(string)
		if !ok {
			continue // reported by the shape check
		}
		path := "aliases." + strconv.Itoa(i)
		if strings.TrimSpace(alias) == "" {
			fail(path, "alias must be a non-empty string")
		} else if n := utf8.RuneCountInString(alias); n > MaxAliasChars {
			fail(path, fmt.Sprintf("alias '%s' is %d characters (max %d)", alias, n, MaxAliasChars))
		}
	}
	if len(items) > MaxAliases {
		fail("aliases", fmt.Sprintf("%d aliases, over the limit of %d per node", len(items), MaxAliases))
	}
	return errs
}

func checkOrigin(n *Node, _ WriteCheck) []*envelope.Error {
	s, ok := n.Front.fieldString("origin")
	if !ok {
		return nil
	}
	if err := ValidateOrigin(s); err != nil {
		return []*envelope.Error{err.(*envelope.Error)}
	}
	return nil
}

// ValidateOrigin checks that s is one address (v0.57): non-empty, at most
// 2048 characters, no whitespace or control character anywhere — a
// newline would let free text pose as an address. The refusal is E_SCHEMA.
func ValidateOrigin(s string) error {
	fail := func(what string) error {
		return envelope.New(envelope.Schema, "origin: "+what, originRule)
	}
	if s == "" {
		return fail("must be a non-empty string")
	}
	if n := utf8.RuneCountInString(s); n > MaxOriginChars {
		return fail(fmt.Sprintf("%d characters, over the limit of %d", n, MaxOriginChars))
	}
	pos := 0
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fail(fmt.Sprintf("contains whitespace or a control character (U+%04X) at character %d", r, pos))
		}
		pos++
	}
	return nil
}

func checkLang(n *Node, _ WriteCheck) []*envelope.Error {
	if v, ok := n.Front.Get("lang"); !ok || v == nil {
		return nil
	}
	if err := ValidateLang(n.Lang()); err != nil {
		return []*envelope.Error{err.(*envelope.Error)}
	}
	return nil
}

// ValidateLang checks that s is a well-formed, known BCP-47 tag
// (golang.org/x/text/language). The value is stored as written, so the
// separator must be '-' as BCP-47 spells it; the parser's tolerance of
// '_' would otherwise store a second spelling of one language. The
// refusal is E_SCHEMA.
func ValidateLang(s string) error {
	fail := func(what string) error {
		return envelope.New(envelope.Schema, "lang: "+what, langRule)
	}
	if s == "" {
		return fail("must be a non-empty BCP-47 tag")
	}
	if strings.Contains(s, "_") {
		return fail(fmt.Sprintf("'%s' is not a BCP-47 tag: subtags are separated by '-', not '_'", s))
	}
	if _, err := language.Parse(s); err != nil {
		return fail(fmt.Sprintf("'%s' is not a BCP-47 language tag (%v)", s, err))
	}
	return nil
}

func checkMovedFrom(n *Node, c WriteCheck) []*envelope.Error {
	if !c.Plant || !n.Front.Has("moved_from") {
		return nil
	}
	return []*envelope.Error{envelope.New(envelope.Schema,
		"moved_from: written only by transplant, never by plant",
		"To move a node, transplant it (C.15); a planted waymark would forge a redirect.")}
}

// ---- helpers ----

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// number reads an integer or float; booleans are not numbers.
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case int64:
		return float64(t), true
	}
	return math.NaN(), false
}

// describe names a value's type and, for scalars, the value itself, in the
// vocabulary refusals use (string, integer, number, boolean, list, mapping).
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string '%s'", clip(t, 60))
	case bool:
		return fmt.Sprintf("boolean %t", t)
	case int64:
		return fmt.Sprintf("integer %d", t)
	case float64:
		return "number " + formatFloat(t)
	case []any:
		return "list"
	case *Frontmatter:
		return "mapping"
	}
	return fmt.Sprintf("%T", v)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
