// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"encoding/json"
	"slices"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/harvest"
	"github.com/monkeyllm/vine/trails"
)

// ReasonInsufficientEvidence is the Reason of a sweep refused by its
// evidence floor.
const ReasonInsufficientEvidence = "insufficient_evidence"

// Response is an answer (J.10.3 sweep, J.10.5 walk), or a sweep refused
// by its evidence floor (Reason set: the answer is null on the wire, no
// model ran). Fields a mode does not produce stay empty and are omitted.
type Response struct {
	// Answer is the model's reply, reasoning stripped. "" for an exhausted
	// walk or an empty reply; null on the wire when Reason is set.
	Answer string `json:"answer"`
	// AnswerNodes are the ids the answer cites that it actually had: in
	// the bundle (sweep) or opened (walk). Invented or unread ids never
	// count.
	AnswerNodes []string `json:"answer_nodes,omitempty"`

	// Reason, EvidenceCount, MinEvidence, MinScore and BelowMinScore
	// explain a floor refusal (J.10.10).
	Reason        string   `json:"reason,omitempty"`
	EvidenceCount *int     `json:"evidence_count,omitempty"`
	MinEvidence   *int     `json:"min_evidence,omitempty"`
	MinScore      *float64 `json:"min_score,omitempty"`
	BelowMinScore *int     `json:"below_min_score,omitempty"`

	// Model names the model; ModelMS is the time spent in it (Σ turns),
	// absent when no provider ran for the call (sweep store hits,
	// refusals). A walk hit is the stored walk, served whole.
	Model   string   `json:"model,omitempty"`
	ModelMS *float64 `json:"model_ms,omitempty"`
	// Turns, Hops and Read are the walk's: model calls, tool calls, and
	// the material it read per node.
	Turns int        `json:"turns,omitempty"`
	Hops  []Hop      `json:"hops,omitempty"`
	Read  []ReadNode `json:"read,omitempty"`
	// Usage is the provider's metered tokens; Cost adds prices when the
	// provider publishes them.
	Usage *Usage `json:"usage,omitempty"`
	Cost  *Cost  `json:"cost,omitempty"`
	// Evidence are the ids the answer stands on: every bundle item
	// (sweep), or the cited ids that were opened, else the first k opened
	// (walk).
	Evidence []string `json:"evidence"`
	// Sources are the scent of the evidence and read nodes.
	Sources []Source `json:"sources,omitempty"`
	// Harvest is the sweep's evidence bundle.
	Harvest *harvest.Result `json:"harvest,omitempty"`
	// Trace is the slice of the forest's trace this call appended.
	Trace *Trace `json:"trace,omitempty"`
	// Extensions name the extensions that changed this answer: a ranking
	// of its evidence, a prompt appended to its instruction ("ext:<id>");
	// absent when none did (spec 11 §3).
	Extensions []string `json:"extensions,omitempty"`
	// Window echoes the caller's window of a walk.
	Window *vine.WindowEcho `json:"window,omitempty"`

	// Exhausted reports a walk that ran out of hops without answering.
	Exhausted bool `json:"exhausted,omitempty"`
	// Truncated reports a reply cut at its cap: not a whole answer.
	Truncated bool `json:"truncated,omitempty"`
	// FinishReason is the last turn's, when not "stop".
	FinishReason string `json:"finish_reason,omitempty"`
	// ReasoningStripped reports that reasoning was removed from a reply.
	ReasoningStripped bool `json:"reasoning_stripped,omitempty"`
	// ReplyTokens echoes the clamped reply_tokens when the caller set it.
	ReplyTokens int `json:"reply_tokens,omitempty"`
	// Cached and CachedAt mark a response served from the answer store.
	Cached   bool   `json:"cached,omitempty"`
	CachedAt string `json:"cached_at,omitempty"`
	// Outcome is the session close (Part D): the whisper's verdict,
	// metrics and shortcut suggestions.
	Outcome *trails.Outcome `json:"outcome,omitempty"`
}

// Refused reports a floor refusal: no answer, no model call.
func (r *Response) Refused() bool { return r.Reason != "" }

// MarshalJSON writes answer as null for a refusal and evidence always
// for an answer.
func (r Response) MarshalJSON() ([]byte, error) {
	type plain Response
	out := struct {
		Answer   *string   `json:"answer"`
		Evidence *[]string `json:"evidence,omitempty"`
		plain
	}{plain: plain(r)}
	if r.Reason == "" {
		ans, ev := r.Answer, nonNil(r.Evidence)
		out.Answer, out.Evidence = &ans, &ev
	}
	return json.Marshal(out)
}

// NodeIDs lists the evidence (vine.IDLister), so the engine's observer
// sees what an answer stood on.
func (r *Response) NodeIDs() []string { return slices.Clone(r.Evidence) }

// Usage is the provider's metered token count, summed over calls.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Calls      int `json:"calls"`
}

// Cost is what the model calls cost (J.10.4): dollars only when the
// provider publishes rates.
type Cost struct {
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Calls            int      `json:"calls"`
	Priced           bool     `json:"priced"`
	PromptUSD        *float64 `json:"prompt_usd,omitempty"`
	CompletionUSD    *float64 `json:"completion_usd,omitempty"`
	USD              *float64 `json:"usd,omitempty"`
}

// Source is the scent of a node the answer used: what a reader needs to
// judge it without opening it. Trail is absent rather than invented.
type Source struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Summary string   `json:"summary"`
	Type    string   `json:"type"`
	Trail   []string `json:"trail,omitempty"`
}

// Trace is the slice of the forest's trace one call appended (J.10.4):
// shape only, never arguments, queries or snippets.
type Trace struct {
	Steps       []Step   `json:"steps"`
	RetrievalMS float64  `json:"retrieval_ms"`
	TotalMS     float64  `json:"total_ms"`
	EmbedMS     *float64 `json:"embed_ms,omitempty"`
	DenseMS     *float64 `json:"dense_ms,omitempty"`
}

// Step is one traced primitive call, or the model ("model", Detail naming
// it). Hop links a walk step to its hop record.
type Step struct {
	Step    string   `json:"step"`
	MS      float64  `json:"ms"`
	Tokens  int      `json:"tokens,omitempty"`
	ID      string   `json:"id,omitempty"`
	Hop     int      `json:"hop,omitempty"`
	EmbedMS *float64 `json:"embed_ms,omitempty"`
	DenseMS *float64 `json:"dense_ms,omitempty"`
	Detail  string   `json:"detail,omitempty"`
}

// Hop is one tool call of a walk (J.10.5): which tool, the node it
// addressed (ID) or the ids it returned (IDs, ≤ 10), the arguments that
// matter, a count of what came out, and the clocks: MS for the forest
// call, ModelMS for the turn that decided it.
type Hop struct {
	N       int            `json:"n"`
	Tool    string         `json:"tool"`
	ID      string         `json:"id,omitempty"`
	IDs     []string       `json:"ids,omitempty"`
	Args    map[string]any `json:"args"`
	Out     HopOut         `json:"out"`
	MS      float64        `json:"ms"`
	ModelMS float64        `json:"model_ms"`
	OK      bool           `json:"ok"`
}

// HopOut counts what a hop returned: the size of its result list
// (results, nodes, neighbors or children), tokens for pick, rows for
// query, edges for look, buckets for calendar, roots for coverage; or,
// for a refusal, its code and message (≤ 160 characters).
type HopOut struct {
	Results   *int   `json:"results,omitempty"`
	Nodes     *int   `json:"nodes,omitempty"`
	Neighbors *int   `json:"neighbors,omitempty"`
	Children  *int   `json:"children,omitempty"`
	Tokens    *int   `json:"tokens,omitempty"`
	Rows      *int   `json:"rows,omitempty"`
	Edges     *int   `json:"edges,omitempty"`
	Buckets   *int   `json:"buckets,omitempty"`
	Roots     *int   `json:"roots,omitempty"`
	Error     string `json:"error,omitempty"`
	Message   string `json:"message,omitempty"`
}

// ReadNode is the material a walk read from one node: sniff matches,
// picked bodies or sections, query rows. A look digest is never material.
type ReadNode struct {
	ID      string            `json:"id"`
	FoundBy []string          `json:"found_by"`
	Matches []vine.SniffMatch `json:"matches"`
	Content []Material        `json:"content"`
}

// Material is one piece a walk read: a pick (section, body, outline,
// body_tokens) or a query (sql, columns, rows, row_count, limited).
type Material struct {
	Section    *string  `json:"section,omitempty"`
	Body       string   `json:"body,omitempty"`
	Outline    []string `json:"outline,omitempty"`
	BodyTokens int      `json:"body_tokens,omitempty"`
	SQL        string   `json:"sql,omitempty"`
	Columns    []string `json:"columns,omitempty"`
	Rows       [][]any  `json:"rows,omitempty"`
	RowCount   *int     `json:"row_count,omitempty"`
	Limited    *bool    `json:"limited,omitempty"`
}

// project applies detail on the way out, after the store, whisper and
// events saw the full record. A floor refusal is never projected.
func (r *Response) project(detail string) *Response {
	if r.Refused() || detail == DetailFull || detail == "" {
		return r
	}
	out := *r
	out.Harvest, out.Read, out.Hops, out.Trace = nil, nil, nil, nil
	if detail == DetailSources {
		return &out
	}
	return &Response{Answer: r.Answer, Model: r.Model, Evidence: r.Evidence, Exhausted: r.Exhausted,
		Truncated: r.Truncated, FinishReason: r.FinishReason, ReasoningStripped: r.ReasoningStripped,
		ReplyTokens: r.ReplyTokens, Cached: r.Cached, CachedAt: r.CachedAt}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
