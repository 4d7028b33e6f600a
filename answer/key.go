// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/monkeyllm/vine/harvest"
	"github.com/monkeyllm/vine/internal/window"
)

// normalize is the store's spelling of a question or a term: NFC,
// case-folded, trimmed, runs of whitespace collapsed to one space.
func normalize(s string) string {
	return strings.Join(strings.Fields(cases.Fold().String(norm.NFC.String(s))), " ")
}

// keyPart is one component of a store key, named so that two different
// keys can never encode alike.
type keyPart struct {
	Name  string `json:"n"`
	Value any    `json:"v"`
}

// storeKey is the SHA-256 (hex) of the canonical encoding of exactly the
// components given, in order (J.10.7): every extra component would halve
// the hit rate for nothing.
func storeKey(parts []keyPart) string {
	b, err := json.Marshal(parts)
	if err != nil { // only plain values go in; a failure is a defect
		panic("answer: store key not encodable: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// keyCommon are the components sweeps and walks share, after the mode's
// own: hybrid, the binding, reply_tokens and window when set, and scope.
func (a *Answerer) keyCommon(q *query, scope string) []keyPart {
	parts := []keyPart{
		{"hybrid", q.p.Hybrid},
		{"binding", []any{q.bound.binding.Provider, q.bound.binding.Model, q.bound.binding.MaxTokens, q.bound.binding.Reasoning}},
	}
	if q.replyTokens > 0 {
		parts = append(parts, keyPart{"reply_tokens", q.replyTokens})
	}
	if q.win.Active() {
		parts = append(parts, keyPart{"window", windowPart(q.win)})
	}
	if q.prompter != nil { // an active prompt contribution changes answers (11 §12.4)
		parts = append(parts, keyPart{"extensions", []string{q.prompter.Name()}})
	}
	return append(parts, keyPart{"scope", scope})
}

func windowPart(w window.Window) []string { return []string{w.Since, w.Until, w.Field} }

// sweepKey names a sweep: question, effective terms and k, no hop
// budget, then the common parts, and include_superseded when true.
func (a *Answerer) sweepKey(q *query, terms []string, k int, scope string) string {
	parts := []keyPart{{"mode", "sweep"}, {"question", normalize(q.question)},
		{"terms", normalizeAll(terms)}, {"k", k}, {"hops", nil}}
	parts = append(parts, a.keyCommon(q, scope)...)
	if q.p.IncludeSuperseded {
		parts = append(parts, keyPart{"include_superseded", true})
	}
	return storeKey(parts)
}

// walkKey names a walk: question, derived terms, k as given, the hop
// budget, the common parts, HEAD and today's date — any commit or a new
// day is a miss.
func (a *Answerer) walkKey(q *query, terms []string, scope, head, today string) string {
	parts := []keyPart{{"mode", "walk"}, {"question", normalize(q.question)},
		{"terms", normalizeAll(terms)}, {"k", q.k}, {"hops", q.hops}}
	parts = append(parts, a.keyCommon(q, scope)...)
	parts = append(parts, keyPart{"head", head}, keyPart{"today", today})
	return storeKey(parts)
}

func normalizeAll(terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = normalize(t)
	}
	return out
}

// fingerprint is the reading of a sweep (J.10.7): the items sorted by id,
// each with what the model reads of it, plus the bundle's truncation.
// Score, heat, order and found_by are left out, so a reshuffle is a hit
// and an item in or out, or a changed body, is a miss.
func fingerprint(h *harvest.Result) string {
	items := slices.Clone(h.Results)
	slices.SortFunc(items, func(a, b harvest.Item) int { return cmp.Compare(a.ID, b.ID) })
	rows := make([]any, 0, len(items)+1)
	for _, it := range items {
		rows = append(rows, []any{it.ID, it.Type, it.Title, it.Summary, it.Matches, it.Content, it.Notes,
			it.Created, it.Updated, nonNil(it.Supersedes), nonNil(it.SupersededBy)})
	}
	rows = append(rows, h.Truncated)
	b, err := json.Marshal(rows)
	if err != nil {
		panic("answer: reading not encodable: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
