// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

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
