// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
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
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/testforest"
)

const fixtureShortcut = "operations/departure-checklist discovered-shortcut->concepts/beaufort-scale"

func rangerHead(t *testing.T, dir string) string {
	t.Helper()
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	sha, err := repo.Head()
	require.NoError(t, err)
	return sha
}

// rangerDerived hashes every name and byte under _derived.
func rangerDerived(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	root := filepath.Join(dir, "_derived")
	var paths []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	}))
	slices.Sort(paths)
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		io.WriteString(h, rel+"\x00")
		if data, err := os.ReadFile(p); err == nil {
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rangerReport is the part of the report the tests read.
type rangerReport struct {
	Evaporation map[string]int      `json:"evaporation"`
	Links       map[string][]string `json:"links"`
	Landmarks   struct {
		Landmarks int  `json:"landmarks"`
		Changed   bool `json:"changed"`
	} `json:"landmarks"`
	Health map[string]json.RawMessage `json:"health"`
	GC     string                     `json:"gc"`
}

func TestRangerCommandRunsACycle(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	code, out, _ := runCLI(t, "", "ranger", "--forest", dir, "--json")
	require.Equal(t, exitOK, code, out)
	var rep rangerReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, []string{fixtureShortcut}, rep.Links["pruned"], "the fixture's cold shortcut is pruned")
	assert.True(t, rep.Landmarks.Changed)
	assert.Contains(t, []string{"ran", "unavailable"}, rep.GC)
	for _, key := range []string{"needs_split", "fat_nodes", "lint", "stale_passports", "needs_description",
		"uncertain_links", "heat"} {
		assert.Contains(t, rep.Health, key)
	}

	head := rangerHead(t, dir)
	code, out, _ = runCLI(t, "", "ranger", "--json", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Empty(t, rep.Links["pruned"])
	assert.False(t, rep.Landmarks.Changed)
	assert.Equal(t, head, rangerHead(t, dir), "a second cycle right after commits nothing")
}

func TestRangerCommandText(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	code, out, _ := runCLI(t, "", "ranger", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	for _, want := range []string{
		"evaporation: 0 decayed, 0 removed, 0 stale sessions cleared\n",
		"links: 0 promoted, 1 pruned, 0 refused\n",
		"  pruned " + fixtureShortcut + "\n",
		"landmarks: 20 (refreshed)\n",
		"  lint: 0 errors,",
		"  uncertain_links: none\n",
		"  lock: free\n", // the ranger's own writes take the lock one at a time
	} {
		assert.Contains(t, out, want)
	}
}

func TestRangerHealthWritesNothing(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	w, err := vine.Open(ctx, dir, nil) // a forest that has been used: _derived exists
	require.NoError(t, err)
	require.NoError(t, w.Trails().Deposit(ctx, "", []string{"concepts/tide"}, 0.5, time.Now().Add(-40*24*time.Hour)))
	require.NoError(t, w.Close())
	tree, derived, head := testforest.TreeDigest(t, dir), rangerDerived(t, dir), rangerHead(t, dir)

	code, out, _ := runCLI(t, "", "ranger", "--health", "--json", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	var h map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &h))
	assert.JSONEq(t, `{"0.5":1}`, string(h["uncertain_links"]))
	assert.JSONEq(t, `{"rows":1,"max":0.5,"mean":0.5}`, string(h["heat"]), "heat as stored: health never evaporates")
	assert.JSONEq(t, `{"state":"free"}`, string(h["lock"]))

	code, out, _ = runCLI(t, "", "ranger", "--health", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "  heat: 1 rows, max 0.5, mean 0.5\n")

	assert.Equal(t, tree, testforest.TreeDigest(t, dir), "no file of the forest changed")
	assert.Equal(t, derived, rangerDerived(t, dir), "_derived is untouched: no heat, no catalog, no trace")
	assert.Equal(t, head, rangerHead(t, dir))
}

// TestRangerBesideALiveWriter: the ranger writes beside another process
// that holds the forest open writable (locks are per write), and its
// health probe names a lock that is held right now.
func TestRangerBesideALiveWriter(t *testing.T) {
	ctx := context.Background()
	dir, _ := testforest.Fixture(t)
	w, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer w.Close()

	code, out, _ := runCLI(t, "", "ranger", "--forest", dir)
	assert.Equal(t, exitOK, code, out)

	held, err := forest.AcquireLock(dir)
	require.NoError(t, err)
	defer held.Release()
	code, out, _ = runCLI(t, "", "ranger", "--health", "--json", "--forest", dir)
	require.Equal(t, exitOK, code, out)
	assert.Contains(t, out, `"lock":{"state":"held"`, "health reads beside the writer and reports it")
}

func TestRangerCommandRefusesAMalformedConfig(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_meta", "ranger.yaml"), []byte("prune_below: lots\n"), 0o644))
	for _, args := range [][]string{{"ranger", "--forest", dir}, {"ranger", "--health", "--forest", dir}} {
		code, out, _ := runCLI(t, "", args...)
		assert.Equal(t, exitFailure, code)
		var env struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &env), out)
		assert.Equal(t, "E_SCHEMA", env.Error.Code)
		assert.Contains(t, env.Error.Message, "prune_below")
	}
}

func TestRangerCommandUsage(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	tests := []struct {
		args []string
		says string
	}{
		{[]string{"ranger"}, "--forest DIR is required"},
		{[]string{"ranger", "--forest", dir, "now"}, "takes no arguments"},
		{[]string{"ranger", "--forest", dir, "--every", "-5"}, "--every got -5"},
		{[]string{"ranger", "--forest", dir, "--health", "--every", "60"}, "--health is one read-only report"},
		{[]string{"ranger", "--forest", dir, "--bogus"}, "flag provided but not defined"},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(t, "", tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, errOut, tc.says)
	}
	_, out, _ := runCLI(t, "", "help")
	assert.Contains(t, out, "vine ranger   --forest DIR")
}

// cycleBuffer is a stdout the test reads while service mode writes it.
type cycleBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *cycleBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *cycleBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRangerServiceMode(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out cycleBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"ranger", "--forest", dir, "--json", "--every", "1"}, strings.NewReader(""), &out, io.Discard)
	}()
	require.Eventually(t, func() bool { return strings.Count(out.String(), "\n") >= 2 }, 60*time.Second, 50*time.Millisecond,
		"two cycles, a second apart")
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, "an interrupt ends service mode cleanly")
	case <-time.After(30 * time.Second):
		t.Fatal("service mode did not stop on interrupt")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var first, second rangerReport
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &second))
	assert.Equal(t, []string{fixtureShortcut}, first.Links["pruned"])
	assert.Empty(t, second.Links["pruned"], "the second cycle finds nothing left to do")
}

func TestRangerVote(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	src, rel, dst := "operations/departure-checklist", "discovered-shortcut", "concepts/beaufort-scale"

	before := testforest.TreeDigest(t, dir)
	code, stdout, _ := runCLI(t, "", "ranger", "links", "--forest", dir)
	require.Equal(t, exitOK, code, stdout)
	assert.Equal(t, src+" "+rel+" "+dst+" (0.5)\nproposed links: 1\n", stdout)

	code, stdout, _ = runCLI(t, "", "ranger", "reject", "--forest", dir, src, "author", dst)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, `"code":"E_NOT_FOUND"`)
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "a refused vote writes nothing")

	code, _, stderr := runCLI(t, "", "ranger", "accept", "--forest", dir, src, rel)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "ID REL TARGET")

	code, stdout, _ = runCLI(t, "", "ranger", "accept", "--forest", dir, src, rel, dst)
	require.Equal(t, exitOK, code, stdout)
	assert.Equal(t, "accepted: "+fixtureShortcut+"\n", stdout)
	repo, err := gitops.Open(dir)
	require.NoError(t, err)
	log, err := repo.Log(context.Background(), src+".md", 1, false)
	require.NoError(t, err)
	assert.Equal(t, gitops.LinkVoteSubject("accept", src, rel, dst), log[0].Subject)

	code, stdout, _ = runCLI(t, "", "ranger", "accept", "--forest", dir, "--json", src, rel, dst)
	require.Equal(t, exitOK, code, stdout)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	assert.Equal(t, "unchanged", res["result"])

	before = testforest.TreeDigest(t, dir)
	code, stdout, _ = runCLI(t, "", "ranger", "reject", "--forest", dir, src, rel, dst)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, `"code":"E_SCHEMA"`, "reject on 1.0 is refused")
	assert.Equal(t, before, testforest.TreeDigest(t, dir))

	code, stdout, _ = runCLI(t, "", "ranger", "links", "--forest", dir, "--json")
	require.Equal(t, exitOK, code, stdout)
	assert.JSONEq(t, `{"links":[]}`, stdout, "an accepted link is no proposal")
}
