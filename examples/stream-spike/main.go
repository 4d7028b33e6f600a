// SPDX-License-Identifier: Apache-2.0

// Command stream-spike runs the "buffer the stream or kill the spike"
// check: the five local fixtures through the patch gate, then two remote
// drafts from a llama.cpp-like server that fail in the two ways a socket
// fails (it drops mid-stream, it hangs). It prints the decision table with
// exit codes and before/after tree hashes, and ends with one word: ship
// when every row matched, kill otherwise.
//
// Everything is local: the fixtures are written into a temporary
// directory, and the servers are in-process httptest servers with short
// limits, so the run takes a second or two.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/gate"
)

// row is one line of the decision table.
type row struct {
	name     string
	want     int
	res      *gate.Result
	hashRule string // what the hashes had to do
	ok       bool
}

func main() {
	os.Exit(run(os.Stdout))
}

func run(w io.Writer) int {
	base, err := os.MkdirTemp("", "stream-spike")
	if err != nil {
		fmt.Fprintln(w, "setup:", err)
		return 1
	}
	defer os.RemoveAll(base)
	root := filepath.Join(base, "spike_wt")
	fixtures := filepath.Join(base, "fixtures")
	if err := setup(root, fixtures); err != nil {
		fmt.Fprintln(w, "setup:", err)
		return 1
	}

	fmt.Fprintln(w, "hypothesis: the client buffers the whole stream first; a bad stream leaves every tracked byte unchanged")
	rows := localRows(root, fixtures)
	if green(rows) {
		rows = append(rows, remoteRows(root)...)
	} else {
		fmt.Fprintln(w, "a local row is red: the remote drafts are not run")
	}
	printTable(w, rows)

	var exits []string
	for _, r := range rows[:min(5, len(rows))] {
		exits = append(exits, fmt.Sprint(r.res.Code))
	}
	fmt.Fprintln(w, "exits:", strings.Join(exits, " "))
	if green(rows) && len(rows) == 7 {
		fmt.Fprintln(w, "ship")
		return 0
	}
	fmt.Fprintln(w, "kill")
	return 1
}

// setup writes the tiny tree and the seed's five fixtures.
func setup(root, fixtures string) error {
	long := "PATH notes/seed.txt\n" + strings.Repeat("one more line\n", 41) + "END_PATCH\n"
	files := map[string]string{
		filepath.Join(root, "notes", "seed.txt"):  "seed\n",
		filepath.Join(fixtures, "trunc.txt"):      "PATH notes/seed.txt\nseed\n",
		filepath.Join(fixtures, "bad_header.txt"): "notes/seed.txt\nseed\nEND_PATCH\n",
		filepath.Join(fixtures, "forbid.txt"):     "PATH package-lock.json\n{}\nEND_PATCH\n",
		filepath.Join(fixtures, "long.txt"):       long,
		filepath.Join(fixtures, "ok.txt"):         "PATH notes/seed.txt\nseed\nplus one line\nEND_PATCH\n",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// localRows pipes each fixture through the gate in the seed's order.
func localRows(root, fixtures string) []row {
	order := []struct {
		file string
		want int
	}{{"trunc.txt", 2}, {"bad_header.txt", 3}, {"forbid.txt", 4}, {"long.txt", 5}, {"ok.txt", 0}}
	var rows []row
	for _, f := range order {
		before := snapshot(root)
		res := applyFile(root, filepath.Join(fixtures, f.file))
		r := row{name: f.file, want: f.want, res: res}
		if f.want == 0 {
			r.hashRule = "one file changes"
			r.ok = res.Code == 0 && onlyChanged(before, snapshot(root), "notes/seed.txt")
		} else {
			r.hashRule = "unchanged"
			r.ok = res.Code == f.want && res.Before == res.After
		}
		rows = append(rows, r)
	}
	return rows
}

func applyFile(root, path string) *gate.Result {
	f, err := os.Open(path)
	if err != nil {
		return &gate.Result{Class: gate.Dirty, Code: 6, Reason: err.Error()}
	}
	defer f.Close()
	res, err := gate.ApplyStream(context.Background(), root, f, &gate.Options{IdleTimeout: time.Second})
	if err != nil {
		return &gate.Result{Class: gate.Dirty, Code: 6, Reason: err.Error()}
	}
	return res
}

// remoteRows asks two misbehaving llama.cpp-like servers for a draft.
// The client reads each stream whole or fails; the gate turns either
// failure into exit 2 and proves the tree unchanged.
func remoteRows(root string) []row {
	partial := "PATH notes/seed.txt\nseed\nplus one line\nhalf a li"
	servers := []struct {
		name    string
		handler func(release <-chan struct{}) http.HandlerFunc
	}{
		{"remote: socket dropped", func(<-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				stream(w, partial)
				panic(http.ErrAbortHandler) // the connection drops mid-body
			}
		}},
		{"remote: server hangs", func(release <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				stream(w, partial)
				select {
				case <-r.Context().Done():
				case <-release:
				}
			}
		}},
	}
	var rows []row
	for _, s := range servers {
		release := make(chan struct{})
		srv := httptest.NewServer(s.handler(release))
		res := applyRemote(root, srv.URL)
		close(release)
		srv.Close()
		rows = append(rows, row{name: s.name, want: 2, res: res, hashRule: "unchanged",
			ok: res.Code == 2 && res.Before == res.After})
	}
	return rows
}

func applyRemote(root, url string) *gate.Result {
	client, err := llamacpp.New(url, "spike-draft", llamacpp.WithIdleTimeout(300*time.Millisecond))
	if err != nil {
		return &gate.Result{Class: gate.Dirty, Code: 6, Reason: err.Error()}
	}
	draft := func(ctx context.Context) ([]byte, error) {
		text, err := client.Chat(ctx, []gardener.Message{{Role: "user", Content: "Write the patch frame."}}, 256)
		return []byte(text), err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := gate.Run(ctx, root, draft, nil)
	if err != nil {
		return &gate.Result{Class: gate.Dirty, Code: 6, Reason: err.Error()}
	}
	return res
}

// stream writes text as chat.completion.chunk events, a few bytes each,
// as a model would; it never sends the finish reason or [DONE].
func stream(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	for len(text) > 0 {
		n := min(6, len(text))
		chunk, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{
			"index": 0, "delta": map[string]any{"content": text[:n]}, "finish_reason": nil}}})
		fmt.Fprintf(w, "data: %s\n\n", chunk)
		flusher.Flush()
		text = text[n:]
	}
}

func green(rows []row) bool {
	for _, r := range rows {
		if !r.ok {
			return false
		}
	}
	return true
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "%-24s %4s %4s  %-16s  %-12s  %-12s  %-16s %s\n",
		"fixture", "exit", "want", "classification", "before", "after", "hash rule", "row")
	for _, r := range rows {
		verdict := "match"
		if !r.ok {
			verdict = "RED: " + r.res.Reason
		}
		fmt.Fprintf(w, "%-24s %4d %4d  %-16s  %-12s  %-12s  %-16s %s\n", r.name, r.res.Code, r.want,
			r.res.Class, short(r.res.Before), short(r.res.After), r.hashRule, verdict)
	}
}

func short(h string) string { return h[:min(12, len(h))] }

// snapshot maps every file under root to its content.
func snapshot(root string) map[string]string {
	files := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			data, _ := os.ReadFile(p)
			files[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return files
}

// onlyChanged reports whether before and after differ in path alone.
func onlyChanged(before, after map[string]string, path string) bool {
	if before[path] == after[path] {
		return false
	}
	b, a := maps.Clone(before), maps.Clone(after)
	delete(b, path)
	delete(a, path)
	return maps.Equal(a, b)
}
