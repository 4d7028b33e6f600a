// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/exttest"
	"github.com/monkeyllm/vine/internal/testforest"
)

// asCLIEnv makes the test binary behave as the vine command, so a test can
// start real OS processes of it.
const asCLIEnv = "VINE_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLIEnv) != "" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// The developer's default forest and config file stay out of the tests
	// (and of the processes they start).
	os.Unsetenv(forestEnv)
	os.Setenv(configEnv, "off")
	// So is the developer's extension install home.
	home, err := os.MkdirTemp("", "vine-cli-ext-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv(extHomeEnv, home)
	code := m.Run()
	os.RemoveAll(home)
	exttest.Cleanup()
	os.Exit(code)
}

// vineCommand is the vine command as a child process of the test.
func vineCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCLIEnv+"=1")
	return cmd
}

// relay is what the actors of TestManyProcessesOneForest share: every
// acknowledged plant, by actor, in order.
type relay struct {
	mu    sync.Mutex
	acked map[string][]string // actor -> ids, oldest first
}

func (r *relay) ack(actor, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acked[actor] = append(r.acked[actor], id)
}

// latestOf returns the newest id each other actor acknowledged.
func (r *relay) latestOf(not string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for actor, ids := range r.acked {
		if actor != not && len(ids) > 0 {
			out = append(out, ids[len(ids)-1])
		}
	}
	return out
}

// caller is one actor's way to call a primitive: an MCP server over
// stdio, or a fresh `vine call` process each time.
type caller func(ctx context.Context, name string, args map[string]any) (string, error)

func mcpCaller(t *testing.T, name, dir string) caller {
	cmd := vineCommand("serve", "--forest", dir)
	// The server's log holds the detail behind an E_INTERNAL: a failing
	// run shows it.
	var log lockedBuffer
	cmd.Stderr = &log
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s log:\n%s", name, log.String())
		}
	})
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "multiproc", Version: "1"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return func(ctx context.Context, name string, args map[string]any) (string, error) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "", err
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if res.IsError {
			return "", fmt.Errorf("%s: %s", name, text)
		}
		return text, nil
	}
}

func cliCaller(dir string) caller {
	return func(ctx context.Context, name string, args map[string]any) (string, error) {
		raw, _ := json.Marshal(args)
		cmd := vineCommand("call", name, "--forest", dir, string(raw))
		var log bytes.Buffer
		cmd.Stderr = &log
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s: %v: %s (log: %s)", name, err, out, log.String())
		}
		return string(out), nil
	}
}

// TestManyProcessesOneForest runs two MCP servers over stdio and a loop of
// CLI calls, each its own OS process, on one forest at once: they plant,
// graft a shared node and locate each other's nodes. Every write lands
// exactly once, history stays linear, each actor finds the others' nodes
// as soon as they were acknowledged, and validate is clean at the end.
func TestManyProcessesOneForest(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	span := 4 * time.Second
	if os.Getenv("VINE_TEST_LONG") == "1" && !testing.Short() {
		span = 30 * time.Second // .ci/run
	}
	before := commitCount(t, dir)
	r := &relay{acked: map[string][]string{}}
	actors := map[string]caller{"mcp-a": mcpCaller(t, "mcp-a", dir), "mcp-b": mcpCaller(t, "mcp-b", dir), "cli": cliCaller(dir)}
	markers := make(chan string, 10000)
	ctx, cancel := context.WithTimeout(context.Background(), span)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, len(actors))
	for name, call := range actors {
		wg.Go(func() {
			if err := act(ctx, name, call, r, markers); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
				cancel()
			}
		})
	}
	wg.Wait()
	close(errs)
	close(markers)
	for err := range errs {
		t.Error(err)
	}
	checkAfterManyProcesses(t, dir, before, r, markers)
}

// commitCount counts the commits HEAD reaches, asserting each has at
// most one parent.
func commitCount(t *testing.T, dir string) int {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	log, err := repo.Log(&git.LogOptions{})
	require.NoError(t, err)
	n := 0
	require.NoError(t, log.ForEach(func(c *object.Commit) error {
		assert.LessOrEqual(t, c.NumParents(), 1, "history is linear")
		n++
		return nil
	}))
	return n
}

// act plants, grafts and locates until ctx ends.
func act(ctx context.Context, name string, call caller, r *relay, markers chan<- string) error {
	for i := 0; ctx.Err() == nil; i++ {
		token := fmt.Sprintf("zq%s%d", strings.ReplaceAll(name, "-", ""), i)
		id := fmt.Sprintf("operations/%s-%d", name, i)
		_, err := call(context.Background(), "plant", map[string]any{"node": map[string]any{"id": id, "type": "note",
			"title": "Relay " + token, "summary": "A relay node " + token + " from " + name + ".", "parent": "operations/_index"}})
		if err != nil {
			return err
		}
		r.ack(name, id)
		if i%3 == 0 {
			marker := "mark-" + token
			if _, err := call(context.Background(), "graft", map[string]any{"id": "concepts/tide",
				"patch": map[string]any{"append_section": map[string]any{"header": "Relay " + marker, "body": marker}}}); err != nil {
				return err
			}
			markers <- marker
		}
		for _, other := range r.latestOf(name) {
			token := "zq" + strings.ReplaceAll(strings.TrimPrefix(other, "operations/"), "-", "")
			out, err := call(context.Background(), "locate", map[string]any{"query": token, "k": 3})
			if err != nil {
				return err
			}
			if !strings.Contains(out, `"`+other+`"`) {
				return fmt.Errorf("locate %s does not find %s, acknowledged before the call: %s", token, other, out)
			}
		}
	}
	return nil
}

func checkAfterManyProcesses(t *testing.T, dir string, before int, r *relay, markers <-chan string) {
	t.Helper()
	v, err := vine.Open(context.Background(), dir, nil)
	require.NoError(t, err)
	defer v.Close()
	rep, err := v.Validate(context.Background())
	require.NoError(t, err)
	assert.Zero(t, rep.Errors, "%+v", rep.Findings)

	tide, err := os.ReadFile(filepath.Join(dir, "concepts", "tide.md"))
	require.NoError(t, err)
	grafts := 0
	for m := range markers {
		assert.Equal(t, 1, strings.Count(string(tide), "Relay "+m+"\n"), "graft %s landed exactly once", m)
		grafts++
	}
	plants := 0
	for _, ids := range r.acked {
		for _, id := range ids {
			_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(id)+".md"))
			assert.NoError(t, err, "acknowledged %s is in the forest", id)
			plants++
		}
	}
	commits := commitCount(t, dir)
	assert.Equal(t, before+plants+grafts, commits, "one commit per acknowledged write, none lost, none doubled")
	t.Logf("%d plants and %d grafts from 3 processes, %d commits", plants, grafts, commits)
}
