// SPDX-License-Identifier: Apache-2.0

// Package worker runs installed extensions as child processes speaking
// vine-ext/1, and keeps the host safe from them (spec 11 §7, §9).
//
// A [Worker] is one installed tree: one long-lived process serves its
// ordinary handlers, and every call of a handler the manifest marks
// heavy gets a process of its own. Each call runs under its seam's
// deadline (or the worker clock); on expiry the process group is
// killed. A process that dies, floods its pipe past the message cap or
// writes what is not the protocol fails the calls in flight with
// E_EXT_WORKER, naming the tail of its standard error, and is started
// again on a later call after a growing pause. The child gets a
// scrubbed environment, its tree as working directory, and no path to
// any forest: a converter receives a copy of the one file it converts.
//
// Nothing here can fail the host: every failure is an error value the
// caller turns into its fallback (the next converter, the original
// ranking, the unmodified prompt).
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/internal/rpc"
)

// Host answers what a handler may ask while it runs, for the caller the
// call names. A nil Host refuses every callback.
type Host interface {
	CallVine(ctx context.Context, call ext.Call, name string, args json.RawMessage) (json.RawMessage, error)
	Complete(ctx context.Context, call ext.Call, role string, req json.RawMessage) (json.RawMessage, error)
	Transcribe(ctx context.Context, call ext.Call, role, audio string, req json.RawMessage) (json.RawMessage, error)
}

// Options configure a Worker. The zero value is usable.
type Options struct {
	// HostVersion is sent in the handshake.
	HostVersion string
	// Timeout is the worker clock for seams without a deadline of their
	// own (default 300 s, MONKEYLLM_EXT_WORKER_TIMEOUT at the CLI).
	Timeout time.Duration
	// MaxMessage caps one protocol line in bytes (default 16 MiB).
	MaxMessage int
	// Env is added to the child's scrubbed environment (KEY=value).
	Env []string
	// Config returns the extension's settings, read at each start.
	Config func() map[string]any
	// Host answers callbacks.
	Host Host
	// Logger receives the extension's log lines (default slog.Default).
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the pause before a crashed process
	// is started again (defaults 1 s and 1 min).
	MinBackoff, MaxBackoff time.Duration
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 300 * time.Second
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = 16 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = time.Minute
	}
	return o
}

// Worker runs the extension installed in one tree.
type Worker struct {
	tree  string
	entry string
	man   *ext.Manifest
	opt   Options
	heavy map[string]bool // seam/handler pairs the manifest marks heavy

	calls  sync.Map // token -> ext.Call, while a handler runs
	nextID atomic.Int64
	logs   *rate.Limiter

	mu       sync.Mutex
	proc     *process
	handlers map[ext.Seam][]string
	failures int
	retryAt  time.Time
	closed   bool
}

// New returns the Worker of the extension whose manifest is man,
// installed in tree. No process starts until Start or the first Call.
func New(tree string, man *ext.Manifest, opt Options) *Worker {
	entry := man.Entry
	if entry == "" {
		entry = "main"
	}
	w := &Worker{tree: tree, entry: filepath.Join(tree, filepath.FromSlash(entry)), man: man,
		opt: opt.withDefaults(), heavy: map[string]bool{}, logs: rate.NewLimiter(100, 200)}
	for _, c := range man.Contributes.Converters {
		if c.Heavy {
			w.heavy[string(ext.SeamConverters)+"/"+c.Handler] = true
		}
	}
	for _, s := range ext.NamedSeams() {
		for _, h := range man.Contributes.Named(s) {
			if h.Heavy {
				w.heavy[string(s)+"/"+h.HandlerName()] = true
			}
		}
	}
	return w
}

// ID is the extension's id.
func (w *Worker) ID() string { return w.man.ID }

// Manifest is the extension's manifest.
func (w *Worker) Manifest() *ext.Manifest { return w.man }

// Start starts the long-lived process now and checks its handshake
// against the manifest: every claimed handler must be declared. It
// fails with E_EXT_LOAD.
func (w *Worker) Start(ctx context.Context) error {
	_, err := w.process(ctx)
	return err
}

// Handlers are the handlers the process declared in its handshake, by
// seam (nil before the first start).
func (w *Worker) Handlers() map[ext.Seam][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.handlers
}

// Reconfigure sends the current settings (Options.Config) to the running
// process, so a Save reaches the next call without a restart.
func (w *Worker) Reconfigure() {
	w.mu.Lock()
	p := w.proc
	w.mu.Unlock()
	if p == nil || p.exited() || w.opt.Config == nil {
		return
	}
	_ = p.conn.Notify(rpc.MethodConfigChanged, w.opt.Config())
}

// Started reports whether the long-lived process is running.
func (w *Worker) Started() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.proc != nil && !w.proc.exited()
}

// Close stops the process, asking it to shut down first.
func (w *Worker) Close() error {
	w.mu.Lock()
	p := w.proc
	w.proc, w.closed = nil, true
	w.mu.Unlock()
	if p != nil {
		p.stop()
	}
	return nil
}

// process is the running long-lived process, started when there is
// none and the pause after the last crash has passed.
func (w *Worker) process(ctx context.Context) (*process, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, w.failure(envelope.ExtWorker, "the worker is closed", "")
	}
	if w.proc != nil && !w.proc.exited() {
		return w.proc, nil
	}
	if w.proc != nil {
		w.proc = nil
	}
	if wait := time.Until(w.retryAt); wait > 0 {
		return nil, w.failure(envelope.ExtWorker, fmt.Sprintf("the process failed %d times; it starts again in %s", w.failures, wait.Round(time.Second)), "")
	}
	p, decl, err := w.spawn(ctx)
	if err != nil {
		w.noteFailure()
		return nil, err
	}
	w.proc, w.handlers = p, decl
	return p, nil
}

func (w *Worker) noteFailure() {
	w.failures++
	pause := w.opt.MinBackoff << min(w.failures-1, 16)
	w.retryAt = time.Now().Add(min(pause, w.opt.MaxBackoff))
}

// failure is the error of a handler failure (E_EXT_WORKER, E_TIMEOUT)
// or a failed start (E_EXT_LOAD), naming the extension.
func (w *Worker) failure(code envelope.Code, msg, stderr string) *envelope.Error {
	e := envelope.New(code, "extension "+w.man.ID+": "+msg, "")
	if stderr != "" {
		e.Hint = "its standard error ends: " + stderr
	}
	return e.With("ext", w.man.ID)
}

// Call runs handler of seam for call with params (the seam's contract,
// by name). The deadline is the seam's own, else the worker clock; the
// caller's ctx ending returns at once without waiting for the handler.
func (w *Worker) Call(ctx context.Context, call ext.Call, seam ext.Seam, handler string, params map[string]any) (json.RawMessage, error) {
	c, ok := ext.ContractOf(seam)
	if !ok || c.Declarative {
		return nil, w.failure(envelope.ExtWorker, fmt.Sprintf("seam %q has no handlers", seam), "")
	}
	deadline := c.Deadline
	if deadline == 0 {
		deadline = w.opt.Timeout
	}
	var p *process
	var err error
	heavy := w.heavy[string(seam)+"/"+handler]
	if heavy {
		p, _, err = w.spawn(ctx)
	} else {
		p, err = w.process(ctx)
	}
	if err != nil {
		return nil, err
	}
	token := strconv.FormatInt(w.nextID.Add(1), 10)
	w.calls.Store(token, call)
	req := map[string]any{}
	for k, v := range params {
		req[k] = v
	}
	req["handler"] = handler
	req["ctx"] = rpc.CallCtx{Token: token, Forest: call.Forest, Principal: call.Principal}

	type answer struct {
		out json.RawMessage
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer w.calls.Delete(token)
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deadline)
		defer cancel()
		out, err := p.conn.Call(dctx, rpc.MethodSeamPrefix+string(seam), req)
		if heavy {
			defer p.stop()
		}
		done <- answer{out, w.callError(p, seam, handler, deadline, err)}
	}()
	select {
	case a := <-done:
		return a.out, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// callError turns what a call ended with into the caller's error, and
// deals with the process: killed on expiry, replaced after a death.
func (w *Worker) callError(p *process, seam ext.Seam, handler string, deadline time.Duration, err error) error {
	if err == nil {
		return nil
	}
	var re *rpc.Error
	switch {
	case errors.As(err, &re):
		return w.failure(envelope.ExtWorker, fmt.Sprintf("%s handler %q failed: %s", seam, handler, clip(re.Message, 400)), "")
	case errors.Is(err, context.DeadlineExceeded):
		p.kill()
		w.forget(p)
		return w.failure(envelope.Timeout, fmt.Sprintf("%s handler %q did not answer within %s; its process was killed", seam, handler, deadline), "").
			WithHint("a slow handler counts as failed; the worker clock is MONKEYLLM_EXT_WORKER_TIMEOUT")
	default:
		p.kill()
		w.forget(p)
		// Its last words are read once the child is reaped: stderr is
		// copied until then.
		select {
		case <-p.done:
		case <-time.After(2 * time.Second):
		}
		return w.failure(envelope.ExtWorker, fmt.Sprintf("%s handler %q: the process ended: %v", seam, handler, p.reason(err)), p.stderr.tail(400))
	}
}

// forget drops p as the long-lived process after it failed, so the
// next call starts another after the pause.
func (w *Worker) forget(p *process) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.proc == p {
		w.proc = nil
		w.noteFailure()
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// env is the child's environment: nothing of the host's but PATH and
// the locale, so no secret the host holds reaches third-party code.
func (w *Worker) env() []string {
	out := []string{"VINE_EXT_ID=" + w.man.ID, "HOME=" + w.tree}
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT"} {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	return append(out, w.opt.Env...)
}

// spawn starts a process, runs the handshake and checks it.
func (w *Worker) spawn(ctx context.Context) (*process, map[ext.Seam][]string, error) {
	p, raw, err := w.handshake(ctx)
	if err != nil {
		return nil, nil, err
	}
	decl, err := w.checkHandshake(raw)
	if err != nil {
		p.kill()
		return nil, nil, w.failure(envelope.ExtLoad, err.Error(), "")
	}
	return p, decl, nil
}

// command is the child's command: its entry, run in its tree with a
// scrubbed environment.
func command(w *Worker) *exec.Cmd {
	cmd := exec.Command(w.entry)
	cmd.Dir, cmd.Env = w.tree, w.env()
	return cmd
}

// checkHandshake compares what the process declared with the manifest:
// the same handlers, each reading only parameters its seam passes.
func (w *Worker) checkHandshake(raw json.RawMessage) (map[ext.Seam][]string, error) {
	var res rpc.InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("handshake: %v", err)
	}
	if res.Protocol != rpc.Protocol {
		return nil, fmt.Errorf("handshake: protocol %q, the host speaks %q", res.Protocol, rpc.Protocol)
	}
	got := map[ext.Seam][]string{}
	for seam, list := range res.Handlers {
		c, ok := ext.ContractOf(ext.Seam(seam))
		if !ok || c.Declarative {
			return nil, fmt.Errorf("handshake: unknown seam %q", seam)
		}
		for _, h := range list {
			if err := fits(c, h); err != nil {
				return nil, err
			}
			got[ext.Seam(seam)] = append(got[ext.Seam(seam)], h.Name)
		}
	}
	for seam, names := range w.man.Handlers() {
		for _, n := range names {
			if !contains(got[seam], n) {
				return nil, fmt.Errorf("handshake: the manifest claims %s handler %q, the process does not declare it", seam, n)
			}
		}
	}
	return got, nil
}

// fits checks a declared handler against its seam's contract: every
// parameter it reads must be one the seam passes, unless it has a
// default (spec 11 §3).
func fits(c ext.Contract, h rpc.HandlerDecl) error {
	for _, p := range h.Params {
		if !contains(c.Params, p.Name) && !p.Optional {
			return fmt.Errorf("handshake: %s handler %q reads parameter %q, which %s does not pass (it passes %v)", c.Seam, h.Name, p.Name, c.Seam, c.Params)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
