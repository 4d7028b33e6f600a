// SPDX-License-Identifier: Apache-2.0

package llamacpp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/gardener"
)

// A whole stream is a reply; reasoning is stripped from it.
func ExampleClient_Complete() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"<think>short</think>High water at 04:12."}}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	c, _ := llamacpp.New(srv.URL, "qwen3-4b")
	r, err := c.Complete(context.Background(), []gardener.Message{{Role: "user", Content: "When is high water?"}}, 64)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q finish=%s reasoning_stripped=%v\n", r.Content, r.FinishReason, r.ReasoningStripped)
	// Output: "High water at 04:12." finish=stop reasoning_stripped=true
}

// A stream that stops before [DONE] is an error, never a shorter reply.
func ExampleClient_Chat_cutStream() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"PATH notes/seed.txt\nse"}}]}`+"\n\n")
	}))
	defer srv.Close()

	c, _ := llamacpp.New(srv.URL, "qwen3-4b")
	text, err := c.Chat(context.Background(), []gardener.Message{{Role: "user", Content: "Patch it."}}, 64)
	fmt.Printf("text=%q incomplete=%v\n", text, errors.Is(err, llamacpp.ErrIncomplete))
	// Output: text="" incomplete=true
}
