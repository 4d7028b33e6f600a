package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// errOverLimit is the internal signal of exchange.Read past maxBytes.
var errOverLimit = errors.New("over the byte limit")

// exchange is one request in flight under an idle watchdog: every read
// that delivers bytes re-arms a timer, and a timer that fires cancels the
// request with ErrIdle as the cause. A total deadline is the caller's
// context.
type exchange struct {
	op, url string
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	idle    time.Duration
	resp    *http.Response
	n, max  int64
}

// post sends payload as JSON to path and returns the exchange once the
// response headers arrived with a 2xx status. Statuses of 400 and above
// are an *HTTPError; the caller must close a returned exchange.
func (c *Client) post(ctx context.Context, op, path string, payload any, accept string) (*exchange, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("llamacpp %s: encode request: %w", op, err)
	}
	x := &exchange{op: op, url: c.base + path, idle: c.idle, max: c.maxBytes}
	x.ctx, x.cancel = context.WithCancelCause(ctx)
	x.timer = time.AfterFunc(c.idle, func() { x.cancel(ErrIdle) })
	req, err := http.NewRequestWithContext(x.ctx, http.MethodPost, x.url, bytes.NewReader(body))
	if err != nil {
		x.close()
		return nil, fmt.Errorf("llamacpp %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	resp, err := c.http.Do(req)
	if err != nil {
		defer x.close()
		if errors.Is(context.Cause(x.ctx), ErrIdle) {
			return nil, x.fail(ErrIdle, "no response headers", nil)
		}
		return nil, fmt.Errorf("llamacpp %s %s: %w", op, x.url, err)
	}
	x.resp = resp
	if resp.StatusCode >= 400 {
		defer x.close()
		head, _ := io.ReadAll(io.LimitReader(x, 4<<10))
		return nil, &HTTPError{Op: op, URL: x.url, StatusCode: resp.StatusCode, Body: clipText(strings.TrimSpace(string(head)), 300)}
	}
	if resp.StatusCode/100 != 2 {
		defer x.close()
		return nil, x.fail(ErrMalformed, fmt.Sprintf("unexpected status %d", resp.StatusCode), nil)
	}
	return x, nil
}

// Read reads the response body, re-arming the idle timer on progress and
// refusing to hold more than max bytes.
func (x *exchange) Read(p []byte) (int, error) {
	if rem := x.max + 1 - x.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := x.resp.Body.Read(p)
	if n > 0 {
		x.timer.Reset(x.idle)
		x.n += int64(n)
	}
	if x.n > x.max {
		return n, errOverLimit
	}
	return n, err
}

// readErr turns a body read error into the stream failure it stands for.
// A clean EOF is ErrIncomplete too: the caller reads only while it still
// expects data.
func (x *exchange) readErr(err error) *StreamError {
	switch {
	case errors.Is(err, errOverLimit):
		return x.fail(ErrTooLarge, fmt.Sprintf("limit %d bytes", x.max), nil)
	case errors.Is(context.Cause(x.ctx), ErrIdle):
		return x.fail(ErrIdle, fmt.Sprintf("nothing for %s", x.idle), nil)
	case err == io.EOF:
		return x.fail(ErrIncomplete, "", io.ErrUnexpectedEOF)
	}
	return x.fail(ErrIncomplete, "", err)
}

func (x *exchange) fail(kind error, detail string, err error) *StreamError {
	return &StreamError{Op: x.op, URL: x.url, Kind: kind, Received: x.n, Detail: detail, Err: err}
}

// close stops the watchdog and releases the connection.
func (x *exchange) close() {
	x.timer.Stop()
	if x.resp != nil {
		x.resp.Body.Close()
	}
	x.cancel(nil)
}

// clipText shortens s to n runes for messages, marking the cut.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
