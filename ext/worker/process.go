// SPDX-License-Identifier: Apache-2.0

package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/internal/rpc"
)

// process is one running child.
type process struct {
	cmd    *exec.Cmd
	conn   *rpc.Conn
	stdin  io.WriteCloser
	stderr *tailBuffer
	done   chan struct{} // closed once the child has been reaped
	once   sync.Once
}

func startProcess(cmd *exec.Cmd, max int, handle rpc.HandlerFunc) (*process, error) {
	p := &process{cmd: cmd, stderr: &tailBuffer{max: 4 << 10}, done: make(chan struct{})}
	groupKill(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.stdin = stdin
	p.conn = rpc.New(stdout, stdin, max, handle)
	go func() {
		<-p.conn.Done()
		// The pipe ended (the child exited, or broke the protocol): make
		// sure the whole group is gone, then reap it.
		p.kill()
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill ends the child's whole process group at once.
func (p *process) kill() {
	p.once.Do(func() {
		_ = killGroup(p.cmd)
		_ = p.stdin.Close()
	})
}

// stop asks the child to shut down, then kills it if it has not left
// within a second.
func (p *process) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = p.conn.Call(ctx, rpc.MethodShutdown, struct{}{})
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-ctx.Done():
	}
	p.kill()
}

// reason says why a call on p failed: the protocol's own error when the
// pipe broke (a flood, garbage), else err.
func (p *process) reason(err error) error {
	if errors.Is(err, rpc.ErrClosed) {
		if cerr := p.conn.Err(); cerr != nil && !errors.Is(cerr, io.EOF) {
			return cerr
		}
		return errors.New("it exited")
	}
	return err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// tail is the last n characters written, trimmed.
func (t *tailBuffer) tail(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := []rune(strings.TrimSpace(string(t.buf)))
	if len(r) > n {
		r = r[len(r)-n:]
	}
	return string(r)
}

// handle answers the child's callbacks. Each must carry the token of a
// call in flight: outside a handler an extension may ask nothing.
func (w *Worker) handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var head struct {
		Ctx rpc.CallCtx `json:"ctx"`
	}
	if err := json.Unmarshal(params, &head); err != nil {
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
	}
	v, ok := w.calls.Load(head.Ctx.Token)
	if !ok {
		if method == rpc.MethodLog {
			return nil, nil
		}
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: method + " outside a handler call: callbacks carry the ctx of the call they serve"}
	}
	call := v.(ext.Call)
	call.Ext = w.man.ID
	switch method {
	case rpc.MethodLog:
		var p rpc.LogParams
		if json.Unmarshal(params, &p) == nil && w.logs.Allow() {
			var level slog.Level
			_ = level.UnmarshalText([]byte(p.Level))
			w.opt.Logger.Log(ctx, level, clip(p.Msg, 2000), "ext", w.man.ID, "forest", call.Forest)
		}
		return nil, nil
	case rpc.MethodVineCall:
		var p rpc.VineCallParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
		}
		if w.opt.Host == nil {
			return nil, errNoHost("vine.call")
		}
		return refusal(w.opt.Host.CallVine(ctx, call, p.Name, p.Args))
	case rpc.MethodComplete:
		var p rpc.CompleteParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
		}
		if w.opt.Host == nil {
			return nil, errNoHost("models.complete")
		}
		return refusal(w.opt.Host.Complete(ctx, call, p.Role, p.Request))
	case rpc.MethodTranscribe:
		var p rpc.TranscribeParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: err.Error()}
		}
		if w.opt.Host == nil {
			return nil, errNoHost("models.transcribe")
		}
		if !slices.Contains(call.Files, p.Audio) {
			// Answered as absent, whatever is at that path: an extension
			// learns nothing of files it was not given.
			return refusal(nil, envelope.New(envelope.NotFound, "models.transcribe: audio: no file "+strconv.Quote(p.Audio)+" was given to this call",
				"pass the path the handler received"))
		}
		return refusal(w.opt.Host.Transcribe(ctx, call, p.Role, p.Audio, p.Request))
	}
	return nil, &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "unknown method " + method}
}

// refusal passes a host's envelope to the extension whole, so a refusal
// reads there exactly as it would to any other caller (an id outside
// the caller's scope: the very bytes of E_NOT_FOUND).
func refusal(out json.RawMessage, err error) (any, error) {
	if err == nil {
		return out, nil
	}
	e := envelope.From("extension callback", err)
	data, merr := json.Marshal(e)
	if merr != nil {
		return nil, err
	}
	return nil, &rpc.Error{Code: rpc.CodeRefused, Message: e.Error(), Data: data}
}

func errNoHost(what string) error {
	return envelope.New(envelope.ExtWorker, fmt.Sprintf("this host answers no %s", what), "")
}
