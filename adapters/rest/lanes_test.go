// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// pooled serves a fresh fixture openly with a reader pool of k.
func pooled(t testing.TB, k int) (*Server, string) {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, &vine.Options{Observer: TimingObserver{}})
	require.NoError(t, err)
	opts := &Options{Readers: k}
	if k > 0 {
		opts.OpenReader = func() (*vine.Registry, error) {
			return vine.NewRegistry(dir, &vine.Options{ReadOnly: true, Observer: TimingObserver{}})
		}
	}
	s := New(reg, opts)
	t.Cleanup(func() {
		assert.NoError(t, s.Close())
		reg.Close()
	})
	return s, dir
}

// localPost is a JSON POST from a local client, past the guard.
func localPost(target, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	r.Host = "localhost"
	r.Header.Set("Content-Type", "application/json")
	return r
}

func call(s *Server, name, body string) (int, string) {
	r := localPost("/v1/forests/mare-alta/"+name, body)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// TestReadsRunDuringALongWrite holds the writer lane, as a long write
// does, and reads on every surface of the pool meanwhile; then runs real
// writes and reads together, for the race detector.
func TestReadsRunDuringALongWrite(t *testing.T) {
	for _, k := range []int{0, 3} {
		t.Run(fmt.Sprintf("readers=%d", k), func(t *testing.T) {
			s, _ := pooled(t, k)
			held, release := make(chan struct{}), make(chan struct{})
			writeDone := make(chan error, 1)
			go func() {
				writeDone <- s.lanes.withWriter(context.Background(), "mare-alta", func(*vine.Vine) error {
					close(held)
					<-release
					return nil
				})
			}()
			<-held
			var wg sync.WaitGroup
			errs := make(chan string, 16)
			for i := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					body := []string{`{"query":"tide"}`, `{"id":"concepts/tide"}`}[i%2]
					name := []string{"locate", "look"}[i%2]
					if code, out := call(s, name, body); code != http.StatusOK {
						errs <- out
					}
				}()
			}
			finished := make(chan struct{})
			go func() { wg.Wait(); close(finished) }()
			select {
			case <-finished:
			case <-time.After(60 * time.Second):
				t.Fatal("reads waited for the writer")
			}
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			close(release)
			require.NoError(t, <-writeDone)

			// Real writes and reads at once.
			var mix sync.WaitGroup
			for i := range 6 {
				mix.Add(2)
				go func() {
					defer mix.Done()
					code, out := call(s, "plant", fmt.Sprintf(`{"node":{"id":"concepts/gust-%d","type":"concept","title":"Gust %d",`+
						`"summary":"A sudden burst of wind.","parent":"concepts/_index"}}`, i, i))
					assert.Equal(t, http.StatusOK, code, out)
				}()
				go func() {
					defer mix.Done()
					code, out := call(s, "scan", `{"parent_id":"concepts/_index"}`)
					assert.Equal(t, http.StatusOK, code, out)
				}()
			}
			mix.Wait()
			code, out := call(s, "look", `{"id":"concepts/gust-5"}`)
			assert.Equal(t, http.StatusOK, code, "a read sees every committed write: %s", out)
		})
	}
}

// TestReadersResetAfterReindex: reindex closes the forest's read-only
// instances, which reopen on the next read and see the rebuilt catalog.
func TestReadersResetAfterReindex(t *testing.T) {
	s, dir := pooled(t, 2)
	for range 4 {
		code, out := call(s, "look", `{"id":"concepts/tide"}`)
		require.Equal(t, http.StatusOK, code, out)
	}
	assert.Equal(t, 2, s.lanes.opened("mare-alta"), "reads opened the pool")

	// A node written behind the engine's back, the case reindex repairs.
	node := "---\ntype: concept\ntitle: Undertow\nsummary: The seaward return flow under breaking waves.\n---\n\nBody.\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "concepts", "undertow.md"), []byte(node), 0o644))

	r := localPost("/v1/admin/reindex", `{"forest":"mare-alta"}`)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Regexp(t, `^\{"forest":"mare-alta","nodes":\d+,"ms":[\d.]+\}$`, w.Body.String())
	assert.Equal(t, 0, s.lanes.opened("mare-alta"), "reindex closed the readers")

	code, out := call(s, "scan", `{"parent_id":"concepts/_index","limit":100}`)
	require.Equal(t, http.StatusOK, code, out)
	assert.Contains(t, out, `"concepts/undertow"`, "a reopened reader sees the rebuilt catalog")
	assert.Equal(t, 1, s.lanes.opened("mare-alta"), "readers reopen lazily, one per read in flight")
}

// TestForeignWriterStopsWritesNotReads: another writer holds the forest's
// lock past the wait, so writes answer E_LOCKED while reads keep serving
// from the pool. (A writer holds the lock for one write only; a long hold
// is a snapshot, or a stuck process.)
func TestForeignWriterStopsWritesNotReads(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, &vine.Options{LockWait: 50 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	_, err = reg.Forest(context.Background(), "mare-alta")
	require.NoError(t, err)
	holder, err := forest.AcquireLock(dir)
	require.NoError(t, err)
	t.Cleanup(func() { holder.Release() })
	s := New(reg, &Options{Readers: 2, OpenReader: func() (*vine.Registry, error) {
		return vine.NewRegistry(dir, &vine.Options{ReadOnly: true})
	}})
	t.Cleanup(func() { s.Close() })

	code, out := call(s, "look", `{"id":"concepts/tide"}`)
	assert.Equal(t, http.StatusOK, code, out)
	code, out = call(s, "graft", `{"id":"concepts/tide","patch":{"set_frontmatter":{"title":"Tides"}}}`)
	assert.Equal(t, http.StatusConflict, code, out)
	assert.Contains(t, out, `"code":"E_LOCKED"`, "a lock held elsewhere is itself, never an unknown forest")
}

func TestUnknownForestKeepsNoPool(t *testing.T) {
	s, _ := pooled(t, 2)
	r := localPost("/v1/forests/made-up/look", `{"id":"x"}`)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	assert.Equal(t, http.StatusNotFound, w.Code)
	s.lanes.mu.Lock()
	_, kept := s.lanes.readers["made-up"]
	s.lanes.mu.Unlock()
	assert.False(t, kept, "a name a caller made up leaves nothing behind")
}

func TestCleanPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/v1/forests/a/look":            true,
		"/v1/forests/a/payload/x/y.png": true,
		"/v1/forests/a/payload/../x":    false,
		"/v1/./forests":                 false,
		"/v1//forests":                  false,
		"/v1/forests/a/export/..":       false,
		"/v1/forests/a/export/..x":      true,
	} {
		assert.Equal(t, want, cleanPath(p), p)
	}
}

func TestAttachment(t *testing.T) {
	assert.Equal(t, `attachment; filename="tide.md"`, attachment("tide.md"))
	assert.Equal(t, `attachment; filename*=utf-8''mar%C3%A9.md`, attachment("maré.md"), "non-ASCII per RFC 2231")
	assert.NotContains(t, attachment(`a"b.md`), `"a"b`)
}

// TestJobsCursor pages the job listing by its next cursor, newest first,
// without a gap or a repeat, and refuses a cursor it does not know.
func TestJobsCursor(t *testing.T) {
	js := newJobs(nil)
	var ids []string
	for range jobsListed*2 + 5 {
		j, err := js.reserve("f", "upload", "p")
		require.NoError(t, err)
		js.begin("f", j)
		js.finish("f", j)
		ids = append(ids, j.view.ID)
	}
	all := js.list("f", func(*job) bool { return true })
	var seen []string
	after := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5)
		page, err := jobsAfter(all, after)
		require.NoError(t, err)
		n := min(len(page), jobsListed)
		for _, j := range page[:n] {
			seen = append(seen, j.view.ID)
		}
		if len(page) <= jobsListed {
			break
		}
		after = page[n-1].view.ID
	}
	slices.Reverse(ids)
	assert.Equal(t, ids, seen)
	_, err := jobsAfter(all, "ing-00000000")
	assert.Equal(t, vine.ESchema, vine.CodeOf(err))
}
