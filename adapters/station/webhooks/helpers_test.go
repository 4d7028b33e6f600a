// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/recordtest"
	"github.com/monkeyllm/vine/adapters/station/registry"
	"github.com/monkeyllm/vine/internal/testforest"
)

const forestID = "mare-alta"

// env is a registry with an owner ("olga"), the fixture forest, and the
// webhooks over them. The forest tells its events to the webhooks.
type env struct {
	t       *testing.T
	reg     *registry.Registry
	forests *vine.Registry
	h       *Hooks
	audit   *recordtest.Trail
	waits   *waits
}

// waits records the backoffs the worker asked for and lets them pass at
// once: retries are tested by order, never by the clock.
type waits struct {
	mu    sync.Mutex
	asked []time.Duration
}

func (w *waits) after(d time.Duration) <-chan time.Time {
	w.mu.Lock()
	w.asked = append(w.asked, d)
	w.mu.Unlock()
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration{}, w.asked...)
}

func newEnv(t *testing.T, allowPrivate bool) *env {
	t.Helper()
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	e := &env{t: t, audit: &recordtest.Trail{}, waits: &waits{}}
	var err error
	e.reg, err = registry.Open(ctx, filepath.Join(t.TempDir(), "station.db"), &registry.Options{Forests: []string{forestID}})
	require.NoError(t, err)
	t.Cleanup(func() { e.reg.Close() })
	_, err = e.reg.Setup(ctx, "olga", "a long owner passphrase", "")
	require.NoError(t, err)
	var hooks *Hooks
	e.forests, err = vine.NewRegistry(filepath.Dir(dir), &vine.Options{OnEvent: func(ev vine.HookEvent) { hooks.Emit(ev) }})
	require.NoError(t, err)
	t.Cleanup(func() { e.forests.Close() })
	hooks, err = New(ctx, e.reg.DB(), &Options{Registry: e.reg, Forests: e.forests, Recorder: e.audit, AllowPrivate: allowPrivate})
	require.NoError(t, err)
	hooks.after = e.waits.after
	e.h = hooks
	t.Cleanup(func() { hooks.Close() })
	return e
}

// grant gives principal caps on the forest under allow.
func (e *env) grant(principal string, allow []string, caps ...vine.Capability) {
	e.t.Helper()
	_, err := e.reg.SetGrant(context.Background(), principal, registry.Grant{Forest: forestID, Allow: allow, Caps: caps})
	require.NoError(e.t, err)
}

func caller(principal string) Caller { return Caller{Principal: principal, Forest: forestID} }

// save creates a webhook and answers it with its secret.
func (e *env) save(c Caller, body map[string]any) Saved {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	s, created, err := e.h.Save(context.Background(), c, raw)
	require.NoError(e.t, err)
	require.True(e.t, created)
	return s
}

// plant plants a note through the forest, as principal.
func (e *env) plant(principal, id, body string) {
	e.t.Helper()
	v, err := e.forests.Forest(context.Background(), forestID)
	require.NoError(e.t, err)
	args, _ := json.Marshal(map[string]any{"node": map[string]any{"id": id, "type": "note", "title": "T " + id,
		"summary": "A short valid summary.", "parent": id[:strings.LastIndex(id, "/")] + "/_index", "body": body}})
	_, err = v.Call(vine.WithPrincipal(context.Background(), principal), "plant", args)
	require.NoError(e.t, err)
}

// call runs a primitive on the forest as principal.
func (e *env) call(principal, name, args string) {
	e.t.Helper()
	v, err := e.forests.Forest(context.Background(), forestID)
	require.NoError(e.t, err)
	_, err = v.Call(vine.WithPrincipal(context.Background(), principal), name, []byte(args))
	require.NoError(e.t, err)
}

// hit is one request a receiver saw.
type hit struct {
	path   string
	header http.Header
	body   []byte
}

// receiver answers with status(n), n counting from 1, and hands every
// request to the test.
type receiver struct {
	srv  *httptest.Server
	hits chan hit
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	r := &receiver{hits: make(chan hit, 1000)}
	var mu sync.Mutex
	n := 0
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		mu.Lock()
		n++
		code := status(n)
		mu.Unlock()
		r.hits <- hit{path: req.URL.Path, header: req.Header.Clone(), body: b}
		w.WriteHeader(code)
		io.WriteString(w, "seen")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// next waits for the next request; a worker that never sends fails the
// test rather than hanging it.
func (r *receiver) next(t *testing.T) hit {
	t.Helper()
	select {
	case h := <-r.hits:
		return h
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery arrived")
		return hit{}
	}
}
