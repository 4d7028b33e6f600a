// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
// response headers arrived with a 2xx status. A 503 (llama.cpp loading a
// model, or every slot busy) and a failure to connect are tried again
// after a backoff, up to the client's retries and never past ctx;
// statuses of 400 and above are then an *HTTPError. The caller must
// close a returned exchange.
func (c *Client) post(ctx context.Context, op, path string, payload any, accept string) (*exchange, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("llamacpp %s: encode request: %w", op, err)
	}
	return c.postBody(ctx, op, path, body, "application/json", accept)
}

// postBody is post with a body already encoded as contentType.
func (c *Client) postBody(ctx context.Context, op, path string, body []byte, contentType, accept string) (*exchange, error) {
	for attempt := 0; ; attempt++ {
		x, err := c.send(ctx, op, path, body, contentType, accept)
		if err == nil || attempt >= c.retries || !retryable(ctx, err) {
			return x, err
		}
		if werr := sleepCtx(ctx, c.backoff(attempt, err)); werr != nil {
			return nil, err // the caller gave up while we waited: the last failure says why
		}
	}
}

// retryable reports a failure worth another attempt: 503, or a
// connection that never carried a response, the caller still waiting.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.StatusCode == http.StatusServiceUnavailable
	}
	var ce *connError
	return errors.As(err, &ce)
}

// backoff is the wait before attempt+1: the server's Retry-After when it
// sent one in seconds, else doubling from the client's base, both capped.
func (c *Client) backoff(attempt int, err error) time.Duration {
	var he *HTTPError
	if errors.As(err, &he) && he.retryAfter > 0 {
		return min(he.retryAfter, maxBackoff)
	}
	return min(c.retryBase<<attempt, maxBackoff)
}

// maxBackoff caps one wait between attempts.
const maxBackoff = 10 * time.Second

// sleepCtx waits d or until ctx ends, whichever is first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// connError is a request that got no response at all (refused, reset,
// DNS): what a server still starting answers.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

// send is one attempt of post.
func (c *Client) send(ctx context.Context, op, path string, body []byte, contentType, accept string) (*exchange, error) {
	x := &exchange{op: op, url: c.base + path, idle: c.idle, max: c.maxBytes}
	x.ctx, x.cancel = context.WithCancelCause(ctx)
	x.timer = time.AfterFunc(c.idle, func() { x.cancel(ErrIdle) })
	req, err := http.NewRequestWithContext(x.ctx, http.MethodPost, x.url, bytes.NewReader(body))
	if err != nil {
		x.close()
		return nil, fmt.Errorf("llamacpp %s: %w", op, err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	resp, err := c.http.Do(req)
	if err != nil {
		defer x.close()
		if errors.Is(context.Cause(x.ctx), ErrIdle) {
			return nil, x.fail(ErrIdle, "no response headers", nil)
		}
		return nil, fmt.Errorf("llamacpp %s %s: %w", op, x.url, &connError{err})
	}
	x.resp = resp
	if resp.StatusCode >= 400 {
		defer x.close()
		head, _ := io.ReadAll(io.LimitReader(x, 4<<10))
		return nil, &HTTPError{Op: op, URL: x.url, StatusCode: resp.StatusCode, Body: clipText(strings.TrimSpace(string(head)), 300),
			retryAfter: retryAfter(resp.Header.Get("Retry-After"))}
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

// retryAfter reads a Retry-After in whole seconds; a date or nothing is 0.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// clipText shortens s to n runes for messages, marking the cut.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
