// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"context"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// notifier sends a call's progress notifications (MCP progress, for a
// client that passed a progress token) without ever making the work
// wait on the transport: a notification is queued, or dropped when the
// queue is full, and one goroutine sends. flush waits until every queued
// one is out, so all precede the result. A nil notifier sends nothing.
type notifier struct {
	queue chan *sdk.ProgressNotificationParams
	sent  chan struct{}
	token any

	mu     sync.Mutex
	closed bool // flushed: a late send is dropped, never a send on a closed queue
}

func newNotifier(ctx context.Context, ss *sdk.ServerSession, token any) *notifier {
	n := &notifier{queue: make(chan *sdk.ProgressNotificationParams, 32), sent: make(chan struct{}), token: token}
	go func() {
		defer close(n.sent)
		for p := range n.queue {
			// A client gone away only loses its progress; the work goes on.
			_ = ss.NotifyProgress(context.WithoutCancel(ctx), p)
		}
	}()
	return n
}

// send queues (progress, total, message).
func (n *notifier) send(progress, total int, message string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	select {
	case n.queue <- &sdk.ProgressNotificationParams{ProgressToken: n.token, Progress: float64(progress), Total: float64(total), Message: message}:
	default:
	}
}

// flush waits for every queued notification; what is sent after it is
// dropped. Flushing again is a no-op.
func (n *notifier) flush() {
	if n == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.queue)
	}
	n.mu.Unlock()
	<-n.sent
}

type notifierKey struct{}

// withProgress is ctx carrying the notifier of the call's progress token.
func withProgress(ctx context.Context, ss *sdk.ServerSession, token any) context.Context {
	return context.WithValue(ctx, notifierKey{}, newNotifier(ctx, ss, token))
}

// progressOf is the call's notifier, nil when the client asked for none.
func progressOf(ctx context.Context) *notifier {
	n, _ := ctx.Value(notifierKey{}).(*notifier)
	return n
}
