// SPDX-License-Identifier: Apache-2.0

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/forest"
)

// Chunk is a retrievable passage: part of one node's body under its title.
type Chunk struct {
	ID    string // the node
	Title string
	Text  string
}

// chunkChars is the size a section is split at, on paragraph bounds.
const chunkChars = 1200

// Chunks reads every node of the forest directory and cuts its body into
// passages: one per H2 section, long sections split on paragraphs. It
// reads the markdown files, as a RAG pipeline over the documents would;
// the derived layer, git and hidden directories are skipped.
func Chunks(dir string) ([]Chunk, error) {
	var out []Chunk
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(d.Name(), ".") || forest.IsExcludedDir(d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		id := strings.TrimSuffix(filepath.ToSlash(rel), ".md")
		if forest.IsSystem(id) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n, err := forest.Parse(id, data)
		if err != nil {
			return nil // not a node: a RAG index skips it
		}
		title, _ := n.Front.Get("title")
		t, _ := title.(string)
		for _, text := range split(n.Body) {
			out = append(out, Chunk{ID: id, Title: t, Text: text})
		}
		return nil
	})
	return out, err
}

// split cuts a body at H2 headings, then long parts at blank lines.
func split(body string) []string {
	var parts []string
	cur := ""
	for _, line := range strings.SplitAfter(body, "\n") {
		if strings.HasPrefix(line, "## ") && strings.TrimSpace(cur) != "" {
			parts = append(parts, cur)
			cur = ""
		}
		cur += line
	}
	if strings.TrimSpace(cur) != "" {
		parts = append(parts, cur)
	}
	var out []string
	for _, p := range parts {
		piece := ""
		for _, para := range strings.SplitAfter(p, "\n\n") {
			if len(piece)+len(para) > chunkChars && strings.TrimSpace(piece) != "" {
				out = append(out, strings.TrimSpace(piece))
				piece = ""
			}
			piece += para
		}
		if strings.TrimSpace(piece) != "" {
			out = append(out, strings.TrimSpace(piece))
		}
	}
	return out
}

// Index is an in-memory BM25 index over chunks (k1 1.2, b 0.75).
type Index struct {
	chunks []Chunk
	tf     []map[string]int
	df     map[string]int
	lens   []int
	avg    float64
}

// NewIndex indexes chunks, title words included.
func NewIndex(chunks []Chunk) *Index {
	ix := &Index{chunks: chunks, df: map[string]int{}}
	total := 0
	for _, c := range chunks {
		tf := map[string]int{}
		words := tokenize(c.Title + " " + c.Text)
		for _, w := range words {
			tf[w]++
		}
		for w := range tf {
			ix.df[w]++
		}
		ix.tf = append(ix.tf, tf)
		ix.lens = append(ix.lens, len(words))
		total += len(words)
	}
	if len(chunks) > 0 {
		ix.avg = float64(total) / float64(len(chunks))
	}
	return ix
}

// Search returns the k best chunks for query, best first, skipping those
// in skip (by position).
func (ix *Index) Search(query string, k int, skip map[int]bool) []int {
	const k1, b = 1.2, 0.75
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	q := tokenize(query)
	n := float64(len(ix.chunks))
	for i, tf := range ix.tf {
		if skip[i] {
			continue
		}
		s := 0.0
		for _, w := range q {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(ix.df[w])+0.5)/(float64(ix.df[w])+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(ix.lens[i])/ix.avg))
		}
		if s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	slices.SortStableFunc(hits, func(x, y hit) int { return cmp.Compare(y.score, x.score) })
	var out []int
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.i)
	}
	return out
}

// tokenize folds and splits text into words, dropping stopwords and
// one-character tokens.
func tokenize(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(vine.Fold(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) >= 2 && !vine.IsStopword(w) {
			out = append(out, w)
		}
	}
	return out
}

// ragTopK is the classic pipeline: BM25 over chunks, top k, one
// completion.
type ragTopK struct {
	ix    *Index
	m     *meter
	k     int
	reply int
}

func (r *ragTopK) Name() string { return "rag-top6" }

func (r *ragTopK) Ask(ctx context.Context, q Question) (Trial, error) {
	spent := r.m.reset()
	shown := r.ix.Search(q.Question, r.k, nil)
	msgs := []answer.Message{
		{Role: "system", Content: ragSystem},
		{Role: "user", Content: excerpts(r.ix, shown) + "\nQuestion: " + q.Question},
	}
	rep, err := r.m.Complete(ctx, msgs, r.reply)
	if err != nil {
		return Trial{}, err
	}
	t := Trial{Answer: strings.TrimSpace(rep.Content), Truncated: rep.FinishReason == "length"}
	t.AnswerNodes = citedIn(t.Answer, nodesOf(r.ix, shown))
	if banana(r.ix, shown, q) {
		one := 1
		tok, _ := spent(1)
		t.HopsToBanana, t.TokensToBanana = &one, &tok
	}
	t.Tokens, t.Calls = spent(-1)
	return t, nil
}

const ragSystem = "You answer from the excerpts in the user message only. If they do not hold the answer, " +
	"say so. End with the sources you used, one per line, as `Title [id]`."

// ragIterative lets the model search again: each round shows the next
// best unseen chunks; the model answers or asks for another search, for
// at most rounds rounds.
type ragIterative struct {
	ix     *Index
	m      *meter
	k      int
	rounds int
	reply  int
}

func (r *ragIterative) Name() string { return "rag-iterative" }

const iterSystem = "You answer from excerpts of a document collection. Reply with one JSON object only. " +
	"To search again: {\"tool\": \"search\", \"args\": {\"query\": \"...\"}}. To answer: " +
	"{\"tool\": \"answer\", \"args\": {\"text\": \"...\", \"answer_nodes\": [\"<id>\", ...]}}. " +
	"Cite only ids shown in excerpts. On the last round you must answer."

func (r *ragIterative) Ask(ctx context.Context, q Question) (Trial, error) {
	spent := r.m.reset()
	seen := map[int]bool{}
	var shownAll []int
	var t Trial
	bananaRound := 0
	msgs := []answer.Message{{Role: "system", Content: iterSystem}}
	query := q.Question
	for round := 1; round <= r.rounds; round++ {
		shown := r.ix.Search(query, r.k, seen)
		for _, i := range shown {
			seen[i] = true
		}
		shownAll = append(shownAll, shown...)
		if bananaRound == 0 && banana(r.ix, shown, q) {
			bananaRound = round
		}
		note := ""
		if round == r.rounds {
			note = "\nThis is the last round: answer now."
		}
		msgs = append(msgs, answer.Message{Role: "user",
			Content: fmt.Sprintf("Round %d excerpts:\n%s\nQuestion: %s%s", round, excerpts(r.ix, shown), q.Question, note)})
		rep, err := r.m.Complete(ctx, msgs, r.reply)
		if err != nil {
			return Trial{}, err
		}
		msgs = append(msgs, answer.Message{Role: "assistant", Content: rep.Content})
		tool, args, ok := answer.ToolCall(rep.Content)
		if ok && tool == "search" && round < r.rounds {
			var s struct {
				Query string `json:"query"`
			}
			if json.Unmarshal(args, &s) == nil && strings.TrimSpace(s.Query) != "" {
				query = s.Query
				continue
			}
		}
		t.Truncated = rep.FinishReason == "length"
		t.Answer, t.AnswerNodes = finalAnswer(rep.Content, tool, args, ok, nodesOf(r.ix, shownAll))
		break
	}
	if bananaRound > 0 { // one call per round: the round's call read it
		tok, _ := spent(bananaRound)
		t.HopsToBanana, t.TokensToBanana = &bananaRound, &tok
	}
	t.Tokens, t.Calls = spent(-1)
	return t, nil
}

// finalAnswer reads an answer object, or takes a plain reply as the
// answer with its [id] citations.
func finalAnswer(content, tool string, args json.RawMessage, ok bool, have []string) (string, []string) {
	if ok && tool == "answer" {
		var a struct {
			Text  string   `json:"text"`
			Nodes []string `json:"answer_nodes"`
		}
		_ = json.Unmarshal(args, &a)
		var nodes []string
		for _, id := range a.Nodes {
			if slices.Contains(have, id) && !slices.Contains(nodes, id) {
				nodes = append(nodes, id)
			}
		}
		return a.Text, nodes
	}
	text := strings.TrimSpace(content)
	return text, citedIn(text, have)
}

func excerpts(ix *Index, shown []int) string {
	var b strings.Builder
	for _, i := range shown {
		c := ix.chunks[i]
		fmt.Fprintf(&b, "[%s] %s\n%s\n\n", c.ID, c.Title, c.Text)
	}
	if len(shown) == 0 {
		b.WriteString("(no excerpt matched)\n")
	}
	return b.String()
}

func nodesOf(ix *Index, shown []int) []string {
	var ids []string
	for _, i := range shown {
		if !slices.Contains(ids, ix.chunks[i].ID) {
			ids = append(ids, ix.chunks[i].ID)
		}
	}
	return ids
}

func banana(ix *Index, shown []int, q Question) bool {
	for _, id := range nodesOf(ix, shown) {
		if slices.Contains(q.ExpectedNodes, id) {
			return true
		}
	}
	return false
}

var citeRE = regexp.MustCompile(`\[([^\[\]\s]+)\]`)

// citedIn are the [id] citations of text among have, each once.
func citedIn(text string, have []string) []string {
	var out []string
	for _, m := range citeRE.FindAllStringSubmatch(text, -1) {
		if slices.Contains(have, m[1]) && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}
