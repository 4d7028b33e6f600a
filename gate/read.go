// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Errors of ReadAll, inspectable with errors.Is.
var (
	// ErrIdleTimeout: the stream sent nothing for the idle limit.
	ErrIdleTimeout = errors.New("gate: stream idle past the read limit")
	// ErrTotalTimeout: the stream was still arriving at the total limit
	// (ApplyStream sets it as the cause of the read's deadline).
	ErrTotalTimeout = errors.New("gate: stream still arriving at the total read limit")
	// ErrTooLarge: the stream exceeded the byte limit.
	ErrTooLarge = errors.New("gate: stream exceeds the byte limit")
)

// readChunk is one Read result handed from the reading goroutine.
type readChunk struct {
	n   int
	err error
}

// ReadAll buffers r to EOF in memory. Every read must deliver within idle
// (0 means DefaultIdleTimeout), the whole stream must stay within
// maxBytes (0 means DefaultMaxBytes), and ctx bounds the total (its
// cause, such as ErrTotalTimeout, is in the error). On any
// failure the partial buffer is dropped and only the error returns:
// a short stream is not a shorter answer.
//
// An io.Reader cannot be interrupted, so on a timeout the goroutine
// blocked in Read is abandoned; it exits when that Read returns, and its
// data is discarded.
func ReadAll(ctx context.Context, r io.Reader, idle time.Duration, maxBytes int64) ([]byte, error) {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	buf := make([]byte, 32<<10)
	chunks := make(chan readChunk)
	next := make(chan struct{}) // the reader may fill buf again
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			n, err := r.Read(buf)
			select {
			case chunks <- readChunk{n, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
			select {
			case <-next:
			case <-stop:
				return
			}
		}
	}()
	timer := time.NewTimer(idle)
	defer timer.Stop()
	var out []byte
	for {
		select {
		case <-ctx.Done():
			return nil, abandoned(ctx, len(out))
		case <-timer.C:
			return nil, fmt.Errorf("%w (%s without data, %d bytes received)", ErrIdleTimeout, idle, len(out))
		case c := <-chunks:
			if int64(len(out))+int64(c.n) > maxBytes {
				return nil, fmt.Errorf("%w of %d", ErrTooLarge, maxBytes)
			}
			out = append(out, buf[:c.n]...)
			if c.err == io.EOF {
				return out, nil
			}
			if c.err != nil {
				return nil, fmt.Errorf("gate: read failed after %d bytes: %w", len(out), c.err)
			}
			if c.n > 0 {
				timer.Reset(idle)
			}
			next <- struct{}{}
		}
	}
}

// abandoned is the error of a read its context ended: the cause when one
// was given (the total limit), and the context's own error either way.
func abandoned(ctx context.Context, received int) error {
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return fmt.Errorf("%w, %d bytes received: %w", cause, received, ctx.Err())
	}
	return fmt.Errorf("gate: read abandoned after %d bytes: %w", received, ctx.Err())
}
