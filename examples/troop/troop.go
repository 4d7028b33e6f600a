// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/trails"
)

// Stop policies of the lab (Part E): when the troop stops sending
// walkers out.
const (
	StopFirst  = "first"  // the first confident answer
	StopQuorum = "quorum" // ⌈N/2⌉ confident answers
	StopNone   = "none"   // every walker runs
)

// Lab heat: what a walker's read deposits in the troop's session, and
// what a winning trail earns persistently.
const (
	sessionDeposit = 0.2
	winDeposit     = trails.DefaultDeposit
)

// Troop sends N walkers into one forest from distinct entry points. They
// share a session: a node one walker reads ranks warmer for the next,
// and an identical call is served from a shared cache at no cost and no
// trace event. A judge (one more model call) synthesises their answers;
// only the trails it cites become persistent heat.
type Troop struct {
	Forest   *vine.Vine
	Answerer *answer.Answerer
	Judge    answer.Model
	N        int    // walkers; 0 means 3
	Hops     int    // each walker's hop budget; 0 means answer.DefaultHops
	Policy   string // StopFirst, StopQuorum or StopNone; "" means StopFirst
	// Progress, when set, hears each walker's hops as they land.
	Progress func(walker int, h answer.Hop)
}

// Walker is one walker's run.
type Walker struct {
	Entry     string           `json:"entry"`
	Answer    string           `json:"answer"`
	Evidence  []string         `json:"evidence"`
	Confident bool             `json:"confident"`
	Hops      int              `json:"hops"`
	Usage     answer.Usage     `json:"usage"`
	Error     string           `json:"error,omitempty"`
	Response  *answer.Response `json:"-"`
}

// Result is a troop's hunt.
type Result struct {
	Question    string       `json:"question"`
	Session     string       `json:"session"`
	Walkers     []Walker     `json:"walkers"`
	Answer      string       `json:"answer"`
	Winners     []string     `json:"winners"`
	Rounds      int          `json:"rounds"`       // the longest walker's hops
	SoloHops    int          `json:"solo_hops"`    // hops of the first walker alone
	Tokens      int          `json:"tokens"`       // every model token, judge included
	CacheServed int          `json:"cache_served"` // calls answered from the shared cache
	Judge       answer.Usage `json:"judge_usage"`
}

// Hunt runs the troop on question.
func (tr *Troop) Hunt(ctx context.Context, question string) (*Result, error) {
	n, hops, policy := tr.N, tr.Hops, tr.Policy
	if n <= 0 {
		n = 3
	}
	if hops <= 0 {
		hops = answer.DefaultHops
	}
	if policy == "" {
		policy = StopFirst
	}
	entries, err := tr.entries(ctx, question, n)
	if err != nil {
		return nil, err
	}
	res := &Result{Question: question, Session: "troop-" + trails.NewSession()}
	sctx := vine.WithSession(ctx, res.Session)
	cache := &sharedCache{v: tr.Forest, m: map[string]any{}}
	for i, entry := range entries {
		w := tr.walk(sctx, question, i, entry, hops, res.Session, cache)
		res.Walkers = append(res.Walkers, w)
		if stop(policy, res.Walkers, len(entries)) {
			break
		}
	}
	res.CacheServed = cache.served
	if err := tr.judge(ctx, res); err != nil {
		return nil, err
	}
	if err := tr.settle(sctx, res); err != nil {
		return nil, err
	}
	for i, w := range res.Walkers {
		res.Rounds = max(res.Rounds, w.Hops)
		res.Tokens += w.Usage.Prompt + w.Usage.Completion
		if i == 0 {
			res.SoloHops = w.Hops
		}
	}
	res.Tokens += res.Judge.Prompt + res.Judge.Completion
	return res, nil
}

// entries are N distinct entry points: one locate of the question.
func (tr *Troop) entries(ctx context.Context, question string, n int) ([]string, error) {
	loc, err := tr.Forest.Locate(ctx, question, vine.LocateOptions{K: n})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, h := range loc.Results {
		ids = append(ids, h.ID)
	}
	if len(ids) == 0 {
		ids = []string{"_index"} // nothing matched: everyone starts at the root
	}
	return ids, nil
}

// walk sends one walker out, leaving the session open: the troop decides
// which trails earn heat. A walker's pick or query warms the node's trail
// in the session, so the next walker ranks with it.
func (tr *Troop) walk(ctx context.Context, question string, i int, entry string, hops int, session string,
	cache *sharedCache) Walker {
	w := Walker{Entry: entry}
	res, err := tr.Answerer.Walk(ctx, tr.Forest, question, answer.Params{
		Hops: hops, Session: session, LeaveOpen: true, Entry: entry, Call: cache.call, NoCache: true,
		OnHop: func(h answer.Hop) {
			if h.OK && h.ID != "" && (h.Tool == "pick" || h.Tool == "query") {
				tr.warm(ctx, session, h.ID)
			}
			if tr.Progress != nil {
				tr.Progress(i, h)
			}
		},
	})
	if err != nil {
		w.Error = err.Error()
		return w
	}
	w.Response, w.Answer, w.Evidence, w.Hops = res, res.Answer, res.Evidence, len(res.Hops)
	if res.Usage != nil {
		w.Usage = *res.Usage
	}
	w.Confident = res.Answer != "" && !res.Exhausted && !res.Truncated && len(res.AnswerNodes) > 0
	return w
}

// warm deposits session heat on a node and the indexes of its trail.
func (tr *Troop) warm(ctx context.Context, session, id string) {
	recs, err := tr.Forest.Records(ctx, []string{id})
	if err != nil || len(recs) == 0 {
		return
	}
	ids := append([]string{recs[id].ID}, recs[id].Trail...)
	_ = tr.Forest.Trails().Deposit(ctx, session, ids, sessionDeposit, time.Now()) // lab heat is best effort
}

func stop(policy string, ws []Walker, n int) bool {
	confident := 0
	for _, w := range ws {
		if w.Confident {
			confident++
		}
	}
	switch policy {
	case StopFirst:
		return confident >= 1
	case StopQuorum:
		return confident >= (n+1)/2
	}
	return false
}

// citeRE finds [id] citations in the judge's answer.
var citeRE = regexp.MustCompile(`\[([^\[\]\s]+)\]`)

// judge asks the model once to synthesise the walkers' answers; the ids
// it cites among their evidence are the winners.
func (tr *Troop) judge(ctx context.Context, res *Result) error {
	var evidence []string
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\n", res.Question)
	for i, w := range res.Walkers {
		fmt.Fprintf(&b, "Explorer %d (entered at %s):\n", i+1, w.Entry)
		switch {
		case w.Error != "":
			b.WriteString("  failed\n")
		case w.Answer == "":
			b.WriteString("  no answer\n")
		default:
			fmt.Fprintf(&b, "  answer: %s\n  read: %s\n", w.Answer, strings.Join(w.Evidence, ", "))
		}
		for _, id := range w.Evidence {
			if !slices.Contains(evidence, id) {
				evidence = append(evidence, id)
			}
		}
	}
	msgs := []answer.Message{
		{Role: "system", Content: "You judge the answers of several explorers of one knowledge forest. " +
			"Write one answer from what they read; where they disagree, say so and prefer what is better " +
			"supported. Cite the nodes you rely on as [id], only ids listed as read. If none answered, say so."},
		{Role: "user", Content: b.String()},
	}
	r, err := tr.Judge.Complete(ctx, msgs, answer.DefaultMaxTokens)
	if err != nil {
		return fmt.Errorf("troop: judge: %w", err)
	}
	res.Answer = strings.TrimSpace(r.Content)
	res.Judge = answer.Usage{Prompt: r.PromptTokens, Completion: r.CompletionTokens, Calls: 1}
	for _, m := range citeRE.FindAllStringSubmatch(res.Answer, -1) {
		if slices.Contains(evidence, m[1]) && !slices.Contains(res.Winners, m[1]) {
			res.Winners = append(res.Winners, m[1])
		}
	}
	return nil
}

// settle turns winning trails into persistent heat, clears the troop's
// session heat, and closes the session (which deposits nothing more).
func (tr *Troop) settle(ctx context.Context, res *Result) error {
	if len(res.Winners) > 0 {
		recs, err := tr.Forest.Records(ctx, res.Winners)
		if err != nil {
			return err
		}
		var ids []string
		for _, id := range res.Winners {
			ids = append(ids, id)
			ids = append(ids, recs[id].Trail...)
		}
		if err := tr.Forest.Trails().Deposit(ctx, "", ids, winDeposit, time.Now()); err != nil {
			return err
		}
	}
	if err := tr.Forest.Trails().ClearScope(ctx, res.Session); err != nil {
		return fmt.Errorf("troop: clear session heat: %w", err)
	}
	_, err := tr.Forest.CloseSession(ctx, false, nil)
	return err
}

// sharedCache serves identical calls once for the whole troop.
type sharedCache struct {
	v      *vine.Vine
	mu     sync.Mutex
	m      map[string]any
	served int
}

func (c *sharedCache) call(ctx context.Context, tool string, args []byte) (any, error) {
	key := tool + "\x00" + canonical(args)
	c.mu.Lock()
	if out, ok := c.m[key]; ok {
		c.served++
		c.mu.Unlock()
		return out, nil
	}
	c.mu.Unlock()
	out, err := c.v.Call(ctx, tool, args)
	if err == nil {
		c.mu.Lock()
		c.m[key] = out
		c.mu.Unlock()
	}
	return out, err
}

// canonical re-encodes arguments with sorted keys, so spellings of one
// call share an entry.
func canonical(args []byte) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return string(args)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
