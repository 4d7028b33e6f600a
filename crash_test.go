// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/testforest"
)

// The crash test re-runs this test binary as a writer and kills it with
// SIGKILL at a random moment. These variables reach the child.
const (
	crashChildEnv = "VINE_CRASH_CHILD" // the forest the child writes to
	crashRunEnv   = "VINE_CRASH_RUN"   // the run number, for unique ids
	crashKillsEnv = "VINE_CRASH_KILLS" // how many kills (default 25, 200 with VINE_TEST_LONG=1)
	longTestsEnv  = "VINE_TEST_LONG"   // "1": the long suites at full size (.ci/run sets it)
)

// TestCrashChild is the writer the crash test kills. It is a no-op unless
// started by TestCrashRepair.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("started by TestCrashRepair only")
	}
	run, _ := strconv.Atoi(os.Getenv(crashRunEnv))
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, nil)
	if err != nil {
		fmt.Printf("open-failed %v\n", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	w := crashWriter{v: v, run: run, src: filepath.Join(filepath.Dir(dir), fmt.Sprintf("src-%d", run))}
	for i := 0; ; i++ {
		if err := w.step(ctx, i); err != nil {
			fmt.Printf("write-failed %v\n", err)
			os.Exit(4)
		}
	}
}

// crashWriter cycles through every kind of write, printing one line of
// facts after each acknowledged write: "ack present PATH MARKER" for a
// file that must be in HEAD holding MARKER, "ack absent PATH" for one
// that must not be, and "pending PATH" before a write that may change an
// acknowledged fact without living to say so.
type crashWriter struct {
	v   *vine.Vine
	run int
	src string
}

func (w crashWriter) call(ctx context.Context, name string, args any) error {
	raw, _ := json.Marshal(args)
	_, err := w.v.Call(ctx, name, raw)
	return err
}

func (w crashWriter) step(ctx context.Context, i int) error {
	id := func(branch, what string) string { return fmt.Sprintf("%s/crash-%d-%d-%s", branch, w.run, i, what) }
	node := func(nid, typ string) map[string]any {
		return map[string]any{"id": nid, "type": typ, "title": "Crash " + nid,
			"summary": "A node the crash test wrote: " + nid + ".", "parent": parentOf(nid), "body": "Marker " + nid + "."}
	}
	switch i % 6 {
	case 0: // plant, and a dataset birth
		a, d := id("concepts", "plant"), id("finance", "data")
		if err := w.call(ctx, "plant", map[string]any{"node": node(a, "concept")}); err != nil {
			return err
		}
		ack("present", a, a)
		ds := node(d, "dataset")
		ds["schema"] = map[string]any{"t": map[string]any{"columns": map[string]any{"x": "TEXT"}}}
		ds["rows"] = map[string]any{"t": [][]any{{"one"}}}
		if err := w.call(ctx, "plant", map[string]any{"node": ds}); err != nil {
			return err
		}
		ack("present", d, d)
	case 1: // a batch of three
		var batch []any
		for k := range 3 {
			batch = append(batch, node(id("operations", "batch"+strconv.Itoa(k)), "note"))
		}
		if err := w.call(ctx, "plant", map[string]any{"node": batch}); err != nil {
			return err
		}
		for k := range 3 {
			n := id("operations", "batch"+strconv.Itoa(k))
			ack("present", n, n)
		}
	case 2: // graft
		target, marker := "concepts/tide", fmt.Sprintf("graft-%d-%d", w.run, i)
		patch := map[string]any{"append_section": map[string]any{"header": "Crash " + marker, "body": marker}}
		if err := w.call(ctx, "graft", map[string]any{"id": target, "patch": patch}); err != nil {
			return err
		}
		ack("present", target, marker)
	case 3: // transplant, payload and all
		from, to := id("finance", "move"), id("operations", "moved")
		ds := node(from, "dataset")
		ds["schema"] = map[string]any{"t": map[string]any{"columns": map[string]any{"x": "TEXT"}}}
		if err := w.call(ctx, "plant", map[string]any{"node": ds}); err != nil {
			return err
		}
		ack("present", from, from)
		fmt.Println("pending", from) // from here its presence is the transplant's to decide
		if err := w.call(ctx, "transplant", map[string]any{"id": from, "new_id": to}); err != nil {
			return err
		}
		ack("absent", from, "")
		ack("present", to, "moved_from")
	case 4: // prune, payload to the graveyard
		p := id("finance", "prune")
		ds := node(p, "dataset")
		ds["schema"] = map[string]any{"t": map[string]any{"columns": map[string]any{"x": "TEXT"}}}
		if err := w.call(ctx, "plant", map[string]any{"node": ds}); err != nil {
			return err
		}
		ack("present", p, p)
		fmt.Println("pending", p)
		if err := w.call(ctx, "prune", map[string]any{"id": p, "force": true}); err != nil {
			return err
		}
		ack("absent", p, "")
	case 5: // adopt a small tree, one commit per document
		return w.adopt(ctx, i)
	}
	return nil
}

func (w crashWriter) adopt(ctx context.Context, i int) error {
	src := fmt.Sprintf("%s-%d", w.src, i)
	for k := range 4 {
		p := filepath.Join(src, fmt.Sprintf("doc-%d.md", k))
		text := fmt.Sprintf("# Document %d of run %d step %d\n\nA paragraph about tides and harbours, number %d.\n", k, w.run, i, k)
		if err := os.MkdirAll(src, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	branch := fmt.Sprintf("adopted-%d-%d", w.run, i)
	if err := w.call(ctx, "plant", map[string]any{"node": map[string]any{"id": branch + "/_index", "type": "branch",
		"title": "Adopted " + branch, "summary": "Documents the crash test adopted.", "parent": "_index"}}); err != nil {
		return err
	}
	ack("present", branch+"/_index", branch)
	rep, err := gardener.New(w.v, nil).Adopt(ctx, src, branch)
	if err != nil {
		return err
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("adopt: %v", rep.Errors)
	}
	for _, id := range rep.Planted {
		ack("present", id, "source_hash")
	}
	return nil
}

func parentOf(id string) string {
	dir := filepath.ToSlash(filepath.Dir(id))
	if dir == "." {
		return "_index"
	}
	return dir + "/_index"
}

func ack(kind, id, marker string) { fmt.Printf("ack %s %s %s\n", kind, id, marker) }

// TestCrashRepair kills a writer process at random moments of plant,
// batch plant, graft, transplant, prune and adopt, and after each kill
// checks that the next open repairs the forest: validate is clean, git
// status is clean, no lock, journal or temporary file is left, and every
// acknowledged write is in HEAD.
func TestCrashRepair(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("this is the child")
	}
	kills := 25
	if os.Getenv(longTestsEnv) == "1" && !testing.Short() && !raceDetector {
		kills = 200
	}
	if s := os.Getenv(crashKillsEnv); s != "" {
		kills, _ = strconv.Atoi(s)
	}
	dir, _ := testforest.Fixture(t)
	facts := map[string][2]string{} // id -> {present|absent, marker}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	repaired := 0
	for run := range kills {
		for _, line := range crashOnce(t, dir, run, rng) {
			f := strings.SplitN(line, " ", 4)
			if len(f) == 2 && f[0] == "pending" {
				delete(facts, f[1])
			}
			if len(f) >= 3 && f[0] == "ack" {
				marker := ""
				if len(f) == 4 {
					marker = f[3]
				}
				facts[f[2]] = [2]string{f[1], marker}
			}
		}
		if checkRepaired(t, dir, run, facts) {
			repaired++
		}
		if t.Failed() {
			t.Fatalf("run %d: the forest was not repaired (dir kept: %s)", run, dir)
		}
	}
	t.Logf("%d kills, %d needed a repair, %d facts checked", kills, repaired, len(facts))
}

// crashOnce starts the writer, kills it after a random delay, and returns
// what it printed.
func crashOnce(t *testing.T, dir string, run int, rng *rand.Rand) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, crashRunEnv+"="+strconv.Itoa(run))
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got []string
	// Wait for the open (which may itself be repairing), then let it write
	// for a random while.
	deadline := time.After(60 * time.Second)
	for ready := false; !ready; {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "the writer ended before it was ready: %v", got)
			got = append(got, l)
			ready = l == "ready"
			require.False(t, strings.HasPrefix(l, "open-failed"), l)
		case <-deadline:
			t.Fatal("the writer never became ready")
		}
	}
	time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	for l := range lines {
		got = append(got, l)
	}
	for _, l := range got {
		require.False(t, strings.HasPrefix(l, "write-failed"), "run %d: %s", run, l)
	}
	return got
}

// checkRepaired opens the forest as the next writer would and checks the
// repair; it reports whether a repair was needed.
func checkRepaired(t *testing.T, dir string, run int, facts map[string][2]string) bool {
	t.Helper()
	ctx := context.Background()
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err, "run %d: open after the kill", run)
	defer v.Close()
	rec := v.Recovered()
	rep, err := v.Validate(ctx)
	require.NoError(t, err)
	for _, f := range rep.Findings {
		if f.Level == "error" {
			t.Errorf("run %d: validate: %s: %s (repair: %+v)", run, f.NodeID, f.Message, rec)
		}
	}
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	wt, err := repo.Worktree()
	require.NoError(t, err)
	st, err := wt.Status()
	require.NoError(t, err)
	for path, fs := range st {
		// The gardener's config (_meta/gardener.yaml) is untracked by
		// design: commits carry markdown only.
		if fs.Worktree == git.Untracked && !strings.HasSuffix(path, ".md") {
			continue
		}
		if fs.Worktree != git.Unmodified || fs.Staging != git.Unmodified {
			t.Errorf("run %d: git status is not clean after the repair %+v: %c%c %s", run, rec, fs.Staging, fs.Worktree, path)
		}
	}
	_, err = os.Lstat(filepath.Join(dir, ".git/index.lock"))
	require.True(t, os.IsNotExist(err), "run %d: .git/index.lock left behind", run)
	// The journal is kept between writes, empty: an empty one announces
	// nothing.
	if data, err := os.ReadFile(filepath.Join(dir, ".git/vine-journal")); err == nil {
		require.Empty(t, data, "run %d: a repaired forest still has a journal to replay", run)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "*", ".vine-*.tmp"))
	require.Empty(t, tmps, "run %d: temporary files left", run)
	for id, f := range facts {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(id)+".md"))
		switch f[0] {
		case "present":
			require.NoError(t, err, "run %d: acknowledged %s is gone", run, id)
			require.Contains(t, string(data), f[1], "run %d: acknowledged write to %s is lost", run, id)
		case "absent":
			require.True(t, os.IsNotExist(err), "run %d: acknowledged removal of %s undone", run, id)
		}
	}
	return rec != nil
}
