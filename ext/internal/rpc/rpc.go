// SPDX-License-Identifier: Apache-2.0

// Package rpc is the framing of vine-ext/1: JSON-RPC 2.0 messages, one
// per line, in both directions over a pair of pipes. Either side may
// call the other; a call's answer is matched by id. Lines are capped so
// a peer that floods the pipe fails the connection instead of the host.
package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// Message is one JSON-RPC 2.0 request, notification or response.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Error codes this protocol uses.
const (
	CodeParse          = -32700
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeHandler        = -32000 // the handler itself failed
	CodeRefused        = -32001 // the host refused a callback; Data is its envelope
)

// ErrTooLarge reports a line over the connection's limit.
var ErrTooLarge = errors.New("rpc: message over the size limit")

// ErrClosed reports a call on a connection that has ended.
var ErrClosed = errors.New("rpc: connection closed")

// HandlerFunc answers a request from the peer. For a notification the
// result is discarded.
type HandlerFunc func(ctx context.Context, method string, params json.RawMessage) (any, error)

// Conn is one end of a vine-ext/1 pipe.
type Conn struct {
	r      *bufio.Reader
	w      io.Writer
	max    int
	handle HandlerFunc

	wmu sync.Mutex

	mu      sync.Mutex
	next    int64
	pending map[string]chan *Message
	err     error
	done    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
}

// New starts a connection reading r and writing w; handle answers the
// peer's requests, each in its own goroutine. max caps a line in bytes.
func New(r io.Reader, w io.Writer, max int, handle HandlerFunc) *Conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{r: bufio.NewReaderSize(r, 64<<10), w: w, max: max, handle: handle,
		pending: map[string]chan *Message{}, done: make(chan struct{}), ctx: ctx, cancel: cancel}
	go c.readLoop()
	return c
}

// Done is closed when the connection has ended; Err says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (io.EOF for a clean end), nil while
// it runs.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Conn) readLoop() {
	var err error
	for {
		var line []byte
		if line, err = readLine(c.r, c.max); err != nil {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m Message
		if jerr := json.Unmarshal(line, &m); jerr != nil || m.JSONRPC != "2.0" {
			err = fmt.Errorf("rpc: not a JSON-RPC 2.0 message: %.80q", line)
			break
		}
		if m.Method != "" {
			go c.serve(&m)
			continue
		}
		c.mu.Lock()
		ch := c.pending[string(m.ID)]
		delete(c.pending, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- &m
		}
	}
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	c.cancel()
	close(c.done)
}

// readLine reads one line of at most max bytes, without its newline.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > max+1 {
			return nil, ErrTooLarge
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

func (c *Conn) serve(m *Message) {
	res, err := c.handle(c.ctx, m.Method, m.Params)
	if len(m.ID) == 0 {
		return // a notification
	}
	out := &Message{JSONRPC: "2.0", ID: m.ID}
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			re = &Error{Code: CodeHandler, Message: err.Error()}
		}
		out.Error = re
	} else if out.Result, err = json.Marshal(res); err != nil {
		out.Result, out.Error = nil, &Error{Code: CodeHandler, Message: "result: " + err.Error()}
	}
	if err := c.write(out); errors.Is(err, ErrTooLarge) {
		// Answer anyway, or the caller waits for its deadline.
		out.Result, out.Error = nil, &Error{Code: CodeHandler, Message: fmt.Sprintf("the answer is over the %d-byte message limit", c.max)}
		_ = c.write(out)
	}
}

func (c *Conn) write(m *Message) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if len(data) > c.max {
		return ErrTooLarge
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(append(data, '\n'))
	return err
}

// Call sends a request and waits for its answer, ctx's end or the
// connection's. A peer's error object comes back as *Error.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan *Message, 1)
	c.mu.Lock()
	if c.err != nil || isClosed(c.done) {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.next++
	id := json.RawMessage(strconv.FormatInt(c.next, 10))
	c.pending[string(id)] = ch
	c.mu.Unlock()
	if err := c.write(&Message{JSONRPC: "2.0", ID: id, Method: method, Params: raw}); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, ErrClosed
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

func (c *Conn) forget(id json.RawMessage) {
	c.mu.Lock()
	delete(c.pending, string(id))
	c.mu.Unlock()
}

// Notify sends a notification, which has no answer.
func (c *Conn) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(&Message{JSONRPC: "2.0", Method: method, Params: raw})
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
