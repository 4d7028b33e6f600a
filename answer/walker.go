// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/trails"
)

// walker is one walk in progress: the conversation, what was opened and
// read, the scent of every node seen, and the hop records.
type walker struct {
	a      *Answerer
	v      *vine.Vine
	q      *query
	ctx    context.Context
	call   func(ctx context.Context, tool string, args []byte) (any, error)
	budget int
	today  string

	msgs     []Message
	hops     []Hop
	made     map[string]bool // tool + canonical args already called
	opened   []string        // looked, picked or queried, in order
	scent    map[string]*Source
	read     map[string]*ReadNode
	readSeq  []string
	usage    Usage
	modelMS  float64
	stripped bool
	exts     []string // extensions that changed the messages
}

func newWalker(ctx context.Context, a *Answerer, v *vine.Vine, q *query, today string) *walker {
	w := &walker{a: a, v: v, q: q, ctx: ctx, call: q.p.Call, budget: q.hops, today: today, made: map[string]bool{},
		scent: map[string]*Source{}, read: map[string]*ReadNode{}}
	if w.call == nil {
		w.call = v.Call
	}
	return w
}

// toolCall is one parsed turn.
type toolCall struct {
	tool string
	args json.RawMessage
}

// run enters the forest, then loops: at most budget + 1 model calls.
func (w *walker) run() (*Response, error) {
	entry, how, err := w.enter()
	if err != nil {
		return nil, err
	}
	w.msgs = []Message{
		{Role: "system", Content: walkSystem(w.q, w.today, w.budget, w.a.replyCap(w.q), walkTools)},
		{Role: "user", Content: walkEntry(w.q.question, how, entry)},
	}
	w.exts = w.a.appendPrompt(w.ctx, w.q, "walk", &w.msgs[0])
	for n := 1; ; n++ {
		t, err := w.a.complete(w.ctx, w.q, w.msgs, w.a.maxTokens(w.q))
		if err != nil {
			return nil, err
		}
		w.account(t)
		w.msgs = append(w.msgs, Message{Role: "assistant", Content: t.text})
		c, isTool := parseTurn(t.text)
		if isTool && c.tool == "answer" {
			return w.finish(n, t, c.args), nil
		}
		if n > w.budget { // the deadline turn: a tool call is not executed
			return w.exhausted(n, t), nil
		}
		reply := w.step(n, t, c, isTool)
		if n == w.budget {
			reply += "\n\n" + deadline
		}
		w.msgs = append(w.msgs, Message{Role: "user", Content: reply})
	}
}

// enter runs the entry: the synthetic locate of the question verbatim
// (not a hop), or the digest of a lab's chosen entry node. Dataset and
// media hits get their notes attached, best effort.
func (w *walker) enter() ([]byte, string, error) {
	if id := w.q.p.Entry; id != "" {
		out, err := w.call(w.ctx, "look", mustJSON(map[string]any{"id": id}))
		if err != nil {
			return nil, "", err
		}
		raw := compact(out)
		w.smell("look", raw)
		return raw, "Your entry node (look " + id + ")", nil
	}
	args := map[string]any{"query": w.q.question, "k": w.q.k, "hybrid": w.q.p.Hybrid}
	w.mergeWindow(args)
	out, err := w.call(w.ctx, "locate", mustJSON(args))
	if err != nil {
		return nil, "", err
	}
	raw := w.withNotes(compact(out))
	w.smell("locate", raw)
	return raw, "Entry (locate of the question verbatim)", nil
}

// withNotes attaches the notes of dataset and media hits in place.
func (w *walker) withNotes(raw []byte) []byte {
	res := decodeObject(raw)
	list := listOf(res, "results")
	changed := false
	for _, x := range list {
		hit, _ := x.(map[string]any)
		typ, _ := hit["type"].(string)
		id, _ := hit["id"].(string)
		if id == "" || (typ != "dataset" && typ != "media") {
			continue
		}
		d, err := w.v.Look(w.ctx, id, vine.LookOptions{Fields: []string{"notes"}})
		if err == nil && d.Notes != "" {
			hit["notes"], changed = d.Notes, true
		}
	}
	if !changed {
		return raw
	}
	return compact(res)
}

// account adds a turn's usage and clock.
func (w *walker) account(t turn) {
	w.usage.Prompt += t.prompt
	w.usage.Completion += t.complete
	w.usage.Calls++
	w.modelMS += t.ms
	w.stripped = w.stripped || t.stripped
}

// parseTurn reads a reply as a tool call.
func parseTurn(text string) (toolCall, bool) {
	tool, args, ok := ToolCall(text)
	return toolCall{tool: tool, args: args}, ok
}

// step handles one turn that did not answer and returns what the model
// is told: a nudge (the turn is spent) or the tool's result.
func (w *walker) step(n int, t turn, c toolCall, isTool bool) string {
	switch {
	case !isTool:
		return nudgeNotTool
	case !slices.Contains(walkTools, c.tool):
		return nudgeOffList(c.tool, walkTools)
	}
	args := c.args
	var obj map[string]any
	if json.Unmarshal(args, &obj) == nil && obj != nil {
		if slices.Contains(windowed, c.tool) {
			w.mergeWindow(obj)
		}
		args = mustJSON(obj)
	}
	sig := c.tool + "\x00" + string(args)
	if w.made[sig] {
		return nudgeRepeat
	}
	w.made[sig] = true
	return w.execute(n, t, c.tool, args, obj)
}

// mergeWindow writes the caller's bounds over the model's, last: a
// windowed walk never leaves its window.
func (w *walker) mergeWindow(args map[string]any) {
	if !w.q.win.Active() {
		return
	}
	if w.q.win.Since != "" {
		args["since"] = w.q.win.Since
	}
	if w.q.win.Until != "" {
		args["until"] = w.q.win.Until
	}
	args["date_field"] = w.q.win.Field
}

// execute runs one hop and records it.
func (w *walker) execute(n int, t turn, tool string, args []byte, obj map[string]any) string {
	start := time.Now()
	out, err := w.call(w.ctx, tool, args)
	h := Hop{N: n, Tool: tool, Args: hopArgs(obj), MS: round3(float64(time.Since(start).Microseconds()) / 1000),
		ModelMS: t.ms, OK: err == nil}
	h.ID = argID(obj)
	var reply []byte
	if err != nil {
		e := vine.AsError(tool, err)
		h.Out = HopOut{Error: string(e.Code), Message: clip(e.Message, 160)}
		reply = e.Body()
	} else {
		reply = compact(out)
		res := decodeObject(reply)
		h.Out = hopOut(tool, res)
		if slices.Contains([]string{"locate", "sniff", "scan", "move"}, tool) {
			h.IDs = resultIDs(res, 10)
		}
		w.smell(tool, reply)
		w.absorb(tool, obj, res)
	}
	w.hops = append(w.hops, h)
	if w.q.p.OnHop != nil {
		w.q.p.OnHop(h)
	}
	return "Result of " + tool + ":\n" + string(reply)
}

// finish ends the walk with the model's answer. Evidence is the cited
// ids that were opened, else the first k opened: a cited id never read
// does not count.
func (w *walker) finish(n int, t turn, args json.RawMessage) *Response {
	var fin struct {
		Text        string `json:"text"`
		AnswerNodes []any  `json:"answer_nodes"`
	}
	_ = json.Unmarshal(args, &fin) // a malformed answer is an empty one
	res := w.response(n, t)
	res.Answer = fin.Text
	for _, x := range fin.AnswerNodes {
		if id, ok := x.(string); ok && slices.Contains(w.opened, id) && !slices.Contains(res.AnswerNodes, id) {
			res.AnswerNodes = append(res.AnswerNodes, id)
		}
	}
	if len(res.AnswerNodes) > 0 {
		res.Evidence = slices.Clone(res.AnswerNodes)
	}
	return res
}

// exhausted ends a walk that spent its budget without answering.
func (w *walker) exhausted(n int, t turn) *Response {
	res := w.response(n, t)
	res.Exhausted = true
	return res
}

// response assembles what every ending shares.
func (w *walker) response(n int, t turn) *Response {
	res := &Response{Model: w.a.modelName(w.q, t), Turns: n, Hops: nonNil(w.hops), Read: w.readNodes(),
		ReplyTokens: w.q.replyTokens, ReasoningStripped: w.stripped, Extensions: w.exts}
	ms := round3(w.modelMS)
	res.ModelMS = &ms
	u := w.usage
	res.Usage = &u
	res.Cost = w.a.cost(w.q, &u)
	res.Evidence = w.opened[:min(len(w.opened), w.q.k)]
	res.Evidence = slices.Clone(res.Evidence)
	res.Sources = w.sources()
	if w.q.win.Active() {
		e := w.q.win.Echo()
		res.Window = &e
	}
	res.cut(t)
	return res
}

// trace is the walk's slice: steps after the entry that match an ok hop
// (tool and id, in order) carry its number.
func (w *walker) trace(events []trails.Event, model string) *Trace {
	st := steps(events)
	next := 0
	for i := 1; i < len(st); i++ { // st[0] is the entry
		for j := next; j < len(w.hops); j++ {
			h := w.hops[j]
			if h.OK && h.Tool == st[i].Step && (st[i].ID == "" || h.ID == st[i].ID) {
				st[i].Hop, next = h.N, j+1
				break
			}
		}
	}
	return newTrace(st, model, w.modelMS)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("answer: arguments not encodable: " + err.Error())
	}
	return b
}

func decodeObject(raw []byte) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}
