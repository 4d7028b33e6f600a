package llamacpp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestStripThinking(t *testing.T) {
	tests := []struct {
		in, out            string
		stripped, unclosed bool
	}{
		{"plain answer", "plain answer", false, false},
		{"  spaced  ", "  spaced  ", false, false},
		{"<think>plan</think>answer", "answer", true, false},
		{"<think>\nplan\n</think>\n\nanswer\n", "answer", true, false},
		{"a<think>x</think>b<think>y</think>c", "abc", true, false},
		{"plan</think>answer", "answer", true, false},
		{"answer<think>never closed", "answer", true, true},
		{"<think>never closed", "", true, true},
		{"<think>a</think>b</think>c", "b</think>c", true, false},
		{"</think>", "", true, false},
	}
	for _, tt := range tests {
		out, stripped, unclosed := StripThinking(tt.in)
		assert.Equal(t, tt.out, out, tt.in)
		assert.Equal(t, tt.stripped, stripped, tt.in)
		assert.Equal(t, tt.unclosed, unclosed, tt.in)
	}
}

func FuzzStripThinking(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "x</think>y", "<think>", "a<think>b<think>c</think>d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, stripped, _ := StripThinking(s)
		if strings.Contains(out, thinkOpen) {
			t.Fatalf("%q kept an opening tag: %q", s, out)
		}
		if !strings.Contains(s, thinkOpen) && !strings.Contains(s, thinkClose) && (stripped || out != s) {
			t.Fatalf("%q has no tags but changed to %q", s, out)
		}
		if len(out) > len(s) {
			t.Fatalf("output longer than input")
		}
	})
}

// FuzzReadChat feeds arbitrary bodies to the stream reader: it never
// panics, and it answers only when the stream ended with data: [DONE]
// after a finish reason.
func FuzzReadChat(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n",
		"error: {\"message\":\"x\"}\n\n",
		"data: [DONE]\n\n",
		": ping\n\ndata: {}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		x := &exchange{op: "chat", url: "fuzz", ctx: ctx, cancel: cancel, idle: time.Minute, max: 1 << 20,
			timer: time.AfterFunc(time.Minute, func() {}),
			resp:  &http.Response{Body: io.NopCloser(bytes.NewReader(body))}}
		defer x.close()
		r, err := x.readChat()
		if err != nil {
			if r != nil {
				t.Fatal("a reply beside an error")
			}
			return
		}
		if !bytes.Contains(body, []byte("data: [DONE]")) && !bytes.Contains(body, []byte("data:[DONE]")) {
			t.Fatalf("answered %+v without [DONE] in %q", r, body)
		}
		if r.FinishReason == "" {
			t.Fatalf("answered without a finish reason: %q", body)
		}
	})
}
