// SPDX-License-Identifier: Apache-2.0

package gardener_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/gardener"
)

// hostileEnv names the case a re-executed test binary runs, as
// "<case>/<entry>"; hostileDirEnv the folder holding the generated file.
const (
	hostileEnv    = "VINE_HOSTILE_CASE"
	hostileDirEnv = "VINE_HOSTILE_DIR"
)

// hostilePeakMB bounds the peak resident set of every hostile case: far
// below what any of these inputs costs unbounded (gigabytes), with room
// for the test binary, git and SQLite.
const hostilePeakMB = 300

// hostileTimeout fails a child that wedges instead of refusing.
const hostileTimeout = 2 * time.Minute

// Entry points a hostile file is run through.
const (
	viaAdopt   = "adopt"   // a source folder holding the file, adopted
	viaUpload  = "upload"  // the file's bytes uploaded
	viaCall    = "call"    // the file as the arguments of a wire call (plant)
	viaReindex = "reindex" // the file dropped into the forest as hostile.md
	viaLook    = "look"    // look at hostile after that reindex
	viaPick    = "pick"    // pick hostile after that reindex
)

// hostileCase is one hostile input: its file, how to generate it, the
// entry points it is run through, and the refusal each must give.
type hostileCase struct {
	name    string
	file    string
	copies  int // files of this content in the folder (reindex); 0 means 1
	gen     func(io.Writer) error
	through []string
	code    envelope.Code // the refusal's code where the entry point carries one
	mention string        // what the refusal says: the limit it hit
}

// hostileCases are the inputs. Unbounded (before the limits), measured
// the same way under a 4 GB address-space cap: deep-json, the docx and
// xlsx bombs, xlsx-sparse-cells and single-line-csv ran out of memory
// past 1.1 GB; xlsx-shared-string-bomb wrote 20 GB of dataset before it
// was killed; deep-json-args planted a node at 200 MB; the YAML depth
// cases cost 160 MB per read, and the folder of link-heavy nodes 317 MB
// and 54 s to reindex. The huge single lines go through adopt only: an
// upload holds its bytes in memory by contract.
func hostileCases() []hostileCase {
	const mb = 1 << 20
	fileEntries := []string{viaAdopt, viaUpload}
	nodeEntries := []string{viaReindex, viaLook, viaPick}
	return []hostileCase{
		{name: "deep-json", file: "deep.json", gen: deepJSON(100_000), through: fileEntries,
			code: envelope.Schema, mention: "JSONDepth"},
		{name: "deep-json-args", file: "args.json", gen: deepArgs(9_000), through: []string{viaCall},
			code: envelope.Schema, mention: "nesting depth limit of 64"},
		{name: "long-string-json", file: "long.json", gen: longStringJSON(32 * mb), through: fileEntries,
			code: envelope.Schema, mention: "LineBytes"},
		{name: "docx-bomb", file: "bomb.docx", gen: docxBomb(600*mb, 0), through: fileEntries,
			code: envelope.Schema, mention: "MemberBytes"},
		{name: "docx-bomb-lying-header", file: "liar.docx", gen: docxBomb(600*mb, 4096), through: fileEntries,
			code: envelope.Schema, mention: "declared size"},
		{name: "docx-nesting-bomb", file: "nest.docx", gen: docxNesting(5_000_000), through: fileEntries,
			code: envelope.Schema, mention: "XMLDepth"},
		{name: "docx-paragraph-flood", file: "flood.docx", gen: docxParagraphs(450_000, 100), through: fileEntries,
			code: envelope.Schema, mention: "DocumentBytes"},
		{name: "xlsx-bomb", file: "bomb.xlsx", gen: xlsxWith(sheetRows(20_000_000, func(int) string { return `<c><v>1</v></c>` }), "", 0),
			through: fileEntries, code: envelope.Schema, mention: "MemberBytes"},
		{name: "xlsx-sparse-cells", file: "sparse.xlsx", gen: xlsxWith(sheetRows(200_000, func(i int) string {
			return fmt.Sprintf(`<c r="XFD%d"><v>1</v></c>`, i)
		}), "", 0), through: fileEntries, code: envelope.Schema, mention: "SheetCells"},
		{name: "xlsx-shared-string-bomb", file: "sst.xlsx", gen: xlsxWith(sheetRows(20_000, func(int) string {
			return `<c t="s"><v>0</v></c>`
		}), bigSST(mb), 0), through: fileEntries, code: envelope.Schema, mention: "ArchiveBytes"},
		{name: "zip-many-members", file: "many.docx", gen: manyMembers(100_000), through: fileEntries,
			code: envelope.Schema, mention: "ArchiveMembers"},
		{name: "single-line-csv", file: "line.csv", gen: singleLine(200 * mb), through: []string{viaAdopt},
			code: envelope.Schema, mention: "LineBytes"},
		{name: "single-line-txt", file: "line.txt", gen: singleLine(200 * mb), through: []string{viaAdopt},
			code: envelope.Schema, mention: "LineBytes"},
		{name: "frontmatter-10k-links", file: "hostile.md", gen: linksFrontmatter(10_000), through: nodeEntries,
			code: envelope.Frontmatter, mention: "FrontmatterBytes"},
		{name: "frontmatter-1500-links", file: "hostile.md", gen: flowLinks(1_500), through: nodeEntries,
			code: envelope.Frontmatter, mention: "Links read limit"},
		{name: "folder-of-link-heavy-nodes", file: "hostile.md", copies: 100, gen: linksFrontmatter(10_000),
			through: []string{viaReindex}, code: envelope.Frontmatter, mention: "FrontmatterBytes"},
		{name: "yaml-deep-flow", file: "hostile.md", gen: nodeWith("deep: " + strings.Repeat("[", 9_000) + strings.Repeat("]", 9_000) + "\n"),
			through: nodeEntries, code: envelope.Frontmatter, mention: "YAMLDepth"},
		{name: "yaml-deep-block", file: "hostile.md", gen: nodeWith("deep:\n  " + strings.Repeat("- ", 9_000) + "x\n"),
			through: nodeEntries, code: envelope.Frontmatter, mention: "YAMLDepth"},
		{name: "yaml-alias-bomb", file: "hostile.md", gen: nodeWith(yamlAliasBomb()),
			through: nodeEntries, code: envelope.Frontmatter, mention: "YAMLValues"},
	}
}

// hostileOutcome is what a child process reports: the refusal it saw and
// its peak resident set.
type hostileOutcome struct {
	Code    envelope.Code `json:"code"`
	Message string        `json:"message"`
	PeakKB  int64         `json:"peak_kb"`
	Elapsed string        `json:"elapsed"`
}

// TestHostileInputs runs every hostile input through every entry point it
// reaches, each in a fresh child process (this binary re-executed), and
// checks that the answer is a clean refusal naming the limit and that the
// child's peak resident set stays under hostilePeakMB. The inputs are
// generated once, streamed to disk.
func TestHostileInputs(t *testing.T) {
	if sel := os.Getenv(hostileEnv); sel != "" {
		runHostileChild(t, sel, os.Getenv(hostileDirEnv))
		return
	}
	if testing.Short() || os.Getenv("VINE_TEST_LONG") != "1" {
		t.Skip("hostile inputs take half a minute and write ~500 MB of temporary files; VINE_TEST_LONG=1 runs them (.ci/run does)")
	}
	root := t.TempDir()
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			genHostile(t, dir, c)
			for _, via := range c.through {
				t.Run(via, func(t *testing.T) {
					out := runHostile(t, c.name+"/"+via, dir)
					t.Logf("%s via %s: peak %d MB in %s: %s %s", c.name, via, out.PeakKB>>10, out.Elapsed, out.Code, out.Message)
					assert.Less(t, out.PeakKB>>10, int64(hostilePeakMB), "peak resident set")
					assert.Contains(t, out.Message, c.mention, "the refusal names the limit")
					if via != viaAdopt && via != viaUpload { // report lines carry no code
						assert.Equal(t, c.code, out.Code)
					}
				})
			}
		})
	}
}

// genHostile writes the case's file (and its copies) into dir/src.
func genHostile(t *testing.T, dir string, c hostileCase) {
	t.Helper()
	src := filepath.Join(dir, "src")
	require.NoError(t, os.MkdirAll(src, 0o755))
	first := filepath.Join(src, c.file)
	f, err := os.Create(first)
	require.NoError(t, err)
	require.NoError(t, c.gen(f))
	require.NoError(t, f.Close())
	for i := 1; i < c.copies; i++ {
		require.NoError(t, os.Link(first, filepath.Join(src, fmt.Sprintf("copy-%03d-%s", i, c.file))))
	}
}

// runHostile re-executes the test binary on one case and reads its outcome.
func runHostile(t *testing.T, sel, dir string) hostileOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileInputs$", "-test.count=1")
	cmd.Env = append(os.Environ(), hostileEnv+"="+sel, hostileDirEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "child %s: %s\n%s", sel, stderr.String(), stdout)
	for line := range strings.Lines(string(stdout)) {
		if rest, ok := strings.CutPrefix(line, "HOSTILE "); ok {
			var out hostileOutcome
			require.NoError(t, json.Unmarshal([]byte(rest), &out))
			return out
		}
	}
	t.Fatalf("child %s reported nothing:\n%s", sel, stdout)
	return hostileOutcome{}
}

// runHostileChild is the child side: one entry point, then the outcome
// and the process's peak resident set on stdout.
func runHostileChild(t *testing.T, sel, dir string) {
	name, via, _ := strings.Cut(sel, "/")
	var c hostileCase
	for _, hc := range hostileCases() {
		if hc.name == name {
			c = hc
		}
	}
	require.NotEmpty(t, c.name, "unknown hostile case %s", name)
	ctx := context.Background()
	v := hostileForest(t)
	start := time.Now()
	var out hostileOutcome
	switch via {
	case viaAdopt:
		rep, err := gardener.New(v, nil).Adopt(ctx, filepath.Join(dir, "src"), "")
		out = reportOutcome(rep, err)
	case viaUpload:
		data, err := os.ReadFile(filepath.Join(dir, "src", c.file))
		require.NoError(t, err)
		rep, err := gardener.New(v, nil).Upload(ctx, []gardener.UploadFile{{Name: c.file, Data: data}}, "")
		out = reportOutcome(rep, err)
	case viaCall:
		data, err := os.ReadFile(filepath.Join(dir, "src", c.file))
		require.NoError(t, err)
		_, err = v.Call(ctx, "plant", data)
		out = errOutcome(err)
	default:
		out = nodeOutcome(t, ctx, v, dir, via)
	}
	out.Elapsed = time.Since(start).Round(time.Millisecond).String()
	out.PeakKB = peakKB(t)
	line, _ := json.Marshal(out)
	fmt.Printf("HOSTILE %s\n", line)
}

// nodeOutcome drops the source folder's files into the forest, reindexes,
// and reports the reindex's skip reason, or look's or pick's answer.
func nodeOutcome(t *testing.T, ctx context.Context, v *vine.Vine, dir, via string) hostileOutcome {
	entries, err := os.ReadDir(filepath.Join(dir, "src"))
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Link(filepath.Join(dir, "src", e.Name()), filepath.Join(v.Dir(), e.Name())))
	}
	res, err := v.Reindex(ctx)
	require.NoError(t, err)
	switch via {
	case viaLook:
		_, err = v.Look(ctx, "hostile", vine.LookOptions{})
		return errOutcome(err)
	case viaPick:
		_, err = v.Pick(ctx, "hostile", vine.PickOptions{})
		return errOutcome(err)
	}
	if len(res.Skipped) == 0 {
		return hostileOutcome{Message: fmt.Sprintf("indexed %d nodes, skipped none", res.Nodes)}
	}
	code, msg, _ := strings.Cut(res.Skipped[0].Reason, ": ")
	return hostileOutcome{Code: envelope.Code(code), Message: fmt.Sprintf("%s (%d skipped)", msg, len(res.Skipped))}
}

// reportOutcome is the report's error line, or the run's error.
func reportOutcome(rep *gardener.IngestReport, err error) hostileOutcome {
	if err != nil {
		return errOutcome(err)
	}
	if len(rep.Errors) == 0 {
		return hostileOutcome{Message: fmt.Sprintf("no error line; planted %v", rep.Planted)}
	}
	return hostileOutcome{Message: strings.Join(rep.Errors, " | ")}
}

func errOutcome(err error) hostileOutcome {
	if err == nil {
		return hostileOutcome{Message: "no refusal"}
	}
	var e *envelope.Error
	if errors.As(err, &e) {
		return hostileOutcome{Code: e.Code, Message: e.Message}
	}
	return hostileOutcome{Message: err.Error()}
}

// hostileForest is an empty writable forest in the child's temp dir.
func hostileForest(t *testing.T) *vine.Vine {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "forest")
	_, err := vine.Init(ctx, dir, "Hostile", nil)
	require.NoError(t, err)
	v, err := vine.Open(ctx, dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

// peakKB is the process's peak resident set (VmHWM) in kB.
func peakKB(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: peak memory is read on Linux only")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
