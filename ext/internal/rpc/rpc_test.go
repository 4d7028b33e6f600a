// SPDX-License-Identifier: Apache-2.0

package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pair connects two Conns with pipes.
func pair(t *testing.T, max int, a, b HandlerFunc) (*Conn, *Conn) {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	ca, cb := New(ar, aw, max, a), New(br, bw, max, b)
	t.Cleanup(func() { aw.Close(); bw.Close() })
	return ca, cb
}

func echo(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method == "fail" {
		return nil, errors.New("refused on purpose")
	}
	return map[string]any{"method": method, "params": params}, nil
}

func TestCallBothWays(t *testing.T) {
	a, b := pair(t, 1<<20, echo, echo)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from, to := a, b
			if i%2 == 1 {
				from, to = b, a
			}
			_ = to
			out, err := from.Call(ctx, fmt.Sprint("m", i), map[string]int{"i": i})
			assert.NoError(t, err)
			assert.JSONEq(t, fmt.Sprintf(`{"method":"m%d","params":{"i":%d}}`, i, i), string(out))
		}()
	}
	wg.Wait()
	_, err := a.Call(ctx, "fail", nil)
	var re *Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, CodeHandler, re.Code)
	assert.Equal(t, "refused on purpose", re.Message)
}

func TestOversizedAnswerIsAnError(t *testing.T) {
	big := func(context.Context, string, json.RawMessage) (any, error) { return strings.Repeat("z", 4096), nil }
	a, _ := pair(t, 1024, echo, big)
	_, err := a.Call(context.Background(), "big", nil)
	assert.ErrorContains(t, err, "message limit", "the peer answers with an error instead of leaving the caller waiting")
}

func TestOversizedLineEndsTheConnection(t *testing.T) {
	r := strings.NewReader(strings.Repeat("a", 5000) + "\n")
	c := New(r, io.Discard, 1024, echo)
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection did not end")
	}
	assert.ErrorIs(t, c.Err(), ErrTooLarge)
	_, err := c.Call(context.Background(), "x", nil)
	assert.ErrorIs(t, err, ErrClosed)
}

func TestGarbageEndsTheConnection(t *testing.T) {
	c := New(strings.NewReader("hello, I am not JSON-RPC\n"), io.Discard, 1024, echo)
	<-c.Done()
	assert.ErrorContains(t, c.Err(), "not a JSON-RPC 2.0 message")
}

func TestCallHonoursContext(t *testing.T) {
	silent := func(ctx context.Context, _ string, _ json.RawMessage) (any, error) { <-ctx.Done(); return nil, nil }
	a, _ := pair(t, 1024, echo, silent)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := a.Call(ctx, "wait", nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":1}\n"), 8)
	f.Add([]byte(strings.Repeat("x", 100)), 10)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max <= 0 || max > 1<<16 {
			return
		}
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		total := 0
		for {
			line, err := readLine(r, max)
			if err != nil {
				return
			}
			if len(line) > max+1 {
				t.Fatalf("line of %d bytes passed a %d-byte limit", len(line), max)
			}
			total += len(line)
			if total > len(data) {
				t.Fatal("read more than was written")
			}
		}
	})
}
