// SPDX-License-Identifier: Apache-2.0

// Package llamacpptest is a fake OpenAI-compatible model server for
// tests, in the manner of net/http/httptest: it speaks the routes this
// module's model clients call (chat completions, streamed or not,
// embeddings and the model list) and records every chat request.
//
//	srv := llamacpptest.NewServer(llamacpptest.Reply("Tides rise twice a day."))
//	defer srv.Close()
//	c, _ := llamacpp.New(srv.URL+"/v1", "fake")
//
// The replies are decided by the test: a fixed text, a script indexed by
// the assistant turns a request already holds, or any function of the
// request. Embeddings are deterministic: the same text always gets the
// same vector.
package llamacpptest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Message is one chat message of a request. A multimodal message's
// text parts are joined in Content and its images counted in Images.
type Message struct {
	Role    string
	Content string
	Images  int
}

// UnmarshalJSON reads content as a string or as an array of parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	if json.Unmarshal(raw.Content, &m.Content) == nil {
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return fmt.Errorf("content is neither text nor parts: %w", err)
	}
	for _, p := range parts {
		if p.Type == "text" {
			m.Content += p.Text
		} else {
			m.Images++
		}
	}
	return nil
}

// Request is a chat completion request as the server received it.
type Request struct {
	Model     string    `json:"model"`
	Messages  []Message `json:"messages"`
	Stream    bool      `json:"stream"`
	MaxTokens int       `json:"max_tokens"`
}

// Turn is how many assistant messages the request already holds: the
// step of a multi-turn walk.
func (r Request) Turn() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// Replier decides the text that answers a request.
type Replier func(Request) string

// Reply answers every request with text.
func Reply(text string) Replier { return func(Request) string { return text } }

// Script answers the request at turn n with replies[n], and the last
// reply once the script runs out.
func Script(replies ...string) Replier {
	return func(r Request) string { return replies[min(r.Turn(), len(replies)-1)] }
}

// Server is the fake model server. Its URL plus "/v1" is the base a
// client is given.
type Server struct {
	*httptest.Server

	// Model is the model name the server answers with and lists.
	Model string
	// Dims is the length of the embedding vectors (default 8).
	Dims int
	// Usage, when set before the first request, decides the token
	// counts reported for a reply; by default they are estimated at
	// four bytes a token.
	Usage func(req Request, reply string) (prompt, completion int)
	// Hear, when set before the first request, decides what a
	// transcription request answers; by default the server "hears" the
	// file's name, size and first line, so a test can tell which audio it
	// was sent.
	Hear func(name, model string, audio []byte) string
	// Pricing, when set before the first request, is the per-token
	// price GET /models states for Model, in OpenRouter's form
	// ({"prompt": "0.000002", "completion": "0.000004"}); nil states none.
	Pricing map[string]string

	reply Replier
	mu    sync.Mutex
	reqs  []Request
}

// NewServer starts a server answering chat requests with reply. The
// caller closes it.
func NewServer(reply Replier) *Server {
	s := &Server{Model: "fake-model", Dims: 8, reply: reply}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcribe)
	mux.HandleFunc("GET /v1/models", s.models)
	s.Server = httptest.NewServer(mux)
	return s
}

// Requests returns the chat requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	text := s.reply(req)
	if req.Stream {
		s.stream(w, req, text)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"model": s.Model, "choices": []any{map[string]any{"index": 0,
		"message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage": s.usage(req, text)})
}

// stream sends text as llama.cpp does: two content deltas, a finish
// reason with usage, then [DONE].
func (s *Server) stream(w http.ResponseWriter, req Request, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	frame := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f != nil {
			f.Flush()
		}
	}
	half := len(text) / 2
	for _, piece := range []string{text[:half], text[half:]} {
		frame(map[string]any{"model": s.Model, "choices": []any{map[string]any{"index": 0,
			"delta": map[string]any{"content": piece}, "finish_reason": nil}}})
	}
	frame(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}},
		"usage": s.usage(req, text)})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// usage is the reply's token counts, by Usage or by a rough estimate
// that grows with the conversation as a real server's does.
func (s *Server) usage(req Request, reply string) map[string]int {
	if s.Usage != nil {
		p, c := s.Usage(req, reply)
		return map[string]int{"prompt_tokens": p, "completion_tokens": c}
	}
	p := 0
	for _, m := range req.Messages {
		p += len(m.Content)/4 + 1
	}
	return map[string]int{"prompt_tokens": p, "completion_tokens": len(reply)/4 + 1}
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Model string `json:"model"`
		Data  []item `json:"data"`
	}{Model: s.Model}
	for i, text := range req.Input {
		out.Data = append(out.Data, item{Index: i, Embedding: Vector(text, s.Dims)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// transcribe answers an OpenAI-compatible transcription: multipart with
// the audio in "file" and the model in "model".
func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	f, fh, err := r.FormFile("file")
	if err != nil {
		http.Error(w, "bad request: no file: "+err.Error(), http.StatusBadRequest)
		return
	}
	defer f.Close()
	audio, err := io.ReadAll(f)
	if err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	hear := s.Hear
	if hear == nil {
		hear = func(name, model string, audio []byte) string {
			first, _, _ := strings.Cut(string(audio), "\n")
			return fmt.Sprintf("%s heard %s (%d bytes): %s", model, name, len(audio), first)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"text": hear(fh.Filename, r.FormValue("model"), audio)})
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list",
		"data": []any{map[string]any{"id": s.Model, "object": "model", "pricing": s.Pricing}}})
}

// Vector is the server's embedding of text: dims positive components
// drawn from the text's FNV-1a hash, so equal texts get equal vectors.
func Vector(text string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	sum := h.Sum64()
	v := make([]float32, dims)
	for d := range v {
		v[d] = float32((sum>>(8*(d%8)))&0xff) + 1
	}
	return v
}
