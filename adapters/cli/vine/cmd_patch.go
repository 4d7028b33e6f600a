// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gate"
)

// vine patch applies one framed patch read from stdin through the gate
// (package gate). Its exit code is the gate's: 0 replaced, 2 sentinel
// missing or read timeout, 3 unusable header or more than one frame, 4
// forbidden path or refused write, 5 body too long, 6 a failure changed
// the tree. One invocation applies one frame: a second frame in the
// stream refuses the whole stream. The read is bounded by --timeout (idle)
// and --total-timeout (from the first read). A usage mistake
// exits 2 like every command, before stdin is read; an unusable root
// exits 1. Either way nothing was written.
func init() {
	registerCommand(patchCommand)
}

func patchCommand() *cli.Command {
	return &cli.Command{
		Name:      "patch",
		Usage:     "apply one framed patch read from stdin, through the gate",
		UsageText: "vine patch (--root DIR | --forest DIR) [--max-lines N] [--timeout D] [--total-timeout D] [--json] < frame",
		Description: `Exit codes are the gate's: 0 replaced, 2 sentinel missing or read timeout,
3 unusable header or more than one frame, 4 forbidden path or refused write,
5 body too long, 6 a failure changed the tree.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Usage: "apply under this plain `DIR`", TakesFile: true},
			forestFlag(),
			&cli.IntFlag{Name: "max-lines", Value: gate.DefaultMaxLines, Usage: "body line limit `N`"},
			&cli.DurationFlag{Name: "timeout", Value: gate.DefaultIdleTimeout, Usage: "idle read limit `D`: stdin may stay silent this long"},
			&cli.DurationFlag{Name: "total-timeout", Value: gate.DefaultTotalTimeout, Usage: "total read limit `D`: the whole frame must arrive within this"},
			&cli.BoolFlag{Name: "json", Usage: "print the classification and both tree hashes as JSON"},
		},
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdPatch(ctx, c, envOf(c))) },
	}
}

// patchReport is what --json prints: the gate's classification with both
// hashes, the engine's refusal when there was one, and the commit of a
// node written through the engine.
type patchReport struct {
	*gate.Result
	Commit string      `json:"commit,omitempty"`
	Error  *vine.Error `json:"error,omitempty"`
}

func cmdPatch(ctx context.Context, c *cli.Command, e env) int {
	root, dir := c.String("root"), expandHome(c.String("forest"))
	if root == "" && dir == "" {
		dir = forestDir(c) // the default forest, unless --root names a plain directory
	}
	maxLines, timeout, total, asJSON := int(c.Int("max-lines")), c.Duration("timeout"), c.Duration("total-timeout"), c.Bool("json")
	if problem := patchUsage(c.Args().Slice(), root, dir, maxLines, timeout, total); problem != "" {
		fmt.Fprintf(e.stderr, "vine patch: %s\nusage: %s\n", problem, c.UsageText)
		return exitUsage
	}
	opts := &gate.Options{MaxLines: maxLines, IdleTimeout: timeout, TotalTimeout: total}
	var nodes *nodeWriter
	if dir != "" {
		if err := checkForest(e, "patch", dir); err != nil {
			return fail(e.stdout, e.stderr, "patch", err)
		}
		if !forest.IsForest(dir) {
			return fail(e.stdout, e.stderr, "patch", envelope.New(envelope.NotFound,
				"patch: --forest "+dir+" is not a forest (no _index.md)",
				"pass the forest folder, or --root DIR for a plain directory"))
		}
		root, nodes = dir, &nodeWriter{}
		opts.SkipHash = []string{forest.DerivedDir, forest.LockFile}
		opts.Allow = nodePath
		opts.Writer = nodes
	}
	res, err := gate.ApplyStream(ctx, root, e.stdin, opts)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine patch: %v\n", err)
		return exitFailure
	}
	return reportPatch(e, res, nodes, asJSON)
}

func patchUsage(pos []string, root, dir string, maxLines int, timeout, total time.Duration) string {
	switch {
	case len(pos) > 0:
		return fmt.Sprintf("unexpected argument %q: the frame is read from stdin", pos[0])
	case (root == "") == (dir == ""):
		return "name exactly one of --root DIR and --forest DIR"
	case maxLines <= 0:
		return fmt.Sprintf("--max-lines must be positive, got %d", maxLines)
	case timeout <= 0:
		return fmt.Sprintf("--timeout must be positive, got %s", timeout)
	case total <= 0:
		return fmt.Sprintf("--total-timeout must be positive, got %s", total)
	}
	return ""
}

func reportPatch(e env, res *gate.Result, nodes *nodeWriter, asJSON bool) int {
	rep := patchReport{Result: res}
	if nodes != nil {
		rep.Commit = nodes.commit
	}
	var refusal *vine.Error
	if res.Class == gate.Refused && errors.As(res.Err, &refusal) {
		rep.Error = refusal
	}
	switch {
	case asJSON:
		printJSON(e.stdout, rep)
	case res.OK():
		fmt.Fprintf(e.stdout, "replaced %s\n", res.Path)
	default:
		fmt.Fprintf(e.stderr, "vine patch: %s (exit %d): %s\n", res.Class, res.Code, res.Reason)
		if rep.Error != nil {
			fmt.Fprintln(e.stdout, string(rep.Error.Body()))
		}
	}
	return res.Code
}

// nodePath admits node files only: in a forest the engine is the writer,
// and it writes nodes.
func nodePath(rel string) error {
	if !strings.HasSuffix(rel, forest.NodeExt) {
		return fmt.Errorf("a forest patch replaces a node file (*%s)", forest.NodeExt)
	}
	return nil
}

// nodeWriter writes a whole node through the engine: the frame's node is
// turned into one graft (frontmatter sets and removals, link changes and
// the new body), so it is validated, committed and indexed like any other
// write, and a refusal is the engine's envelope with nothing changed.
type nodeWriter struct {
	commit string
}

// Replace implements gate.Writer.
func (w *nodeWriter) Replace(ctx context.Context, root, rel string, content []byte) error {
	id := strings.TrimSuffix(rel, forest.NodeExt)
	old, err := storedNode(root, id)
	if err != nil {
		return err
	}
	next, err := forest.Parse(id, content)
	if err != nil {
		return err
	}
	patch, err := wholeNodePatch(old, next)
	if err != nil {
		return err
	}
	if patch.SetFrontmatter == nil && patch.AddLinks == nil && patch.RemoveLinks == nil && patch.ReplaceBody == nil {
		return nil // the node already reads as the frame says
	}
	v, err := vine.Open(ctx, root, &vine.Options{Fetcher: payloadFetcher()})
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.Graft(ctx, id, patch)
	if err != nil {
		return err
	}
	if res.Commit != nil {
		w.commit = *res.Commit
	}
	return nil
}

// storedNode reads the node the frame replaces; a patch never creates one
// (that is plant, with a parent and an index entry).
func storedNode(root, id string) (*forest.Node, error) {
	r, err := forest.NewRoot(root)
	if err != nil {
		return nil, err
	}
	p, err := r.Path(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, envelope.New(envelope.NotFound,
			"patch: node "+id+" does not exist; a patch replaces an existing node",
			"create nodes with plant (vine call plant), which files them under a parent index")
	}
	if err != nil {
		return nil, err
	}
	return forest.Parse(id, data)
}

// engineOwned are the keys a whole-node frame cannot set: the engine
// stamps updated on every write, and links are diffed into
// add_links/remove_links. Every other key that changed is sent to graft,
// which refuses the ones that are not graft-mutable (E_READONLY).
var engineOwned = []string{"updated", "links"}

// wholeNodePatch expresses "the node now reads as next" as one graft.
func wholeNodePatch(old, next *forest.Node) (vine.GraftPatch, error) {
	var p vine.GraftPatch
	for _, f := range next.Front.Fields() {
		if slices.Contains(engineOwned, f.Key) {
			continue
		}
		if prev, had := old.Front.Get(f.Key); had && sameYAML(f.Key, prev, f.Value) {
			continue
		}
		p.SetFrontmatter = append(p.SetFrontmatter, f)
	}
	for _, key := range old.Front.Keys() {
		if !slices.Contains(engineOwned, key) && !next.Front.Has(key) {
			p.SetFrontmatter = append(p.SetFrontmatter, forest.Field{Key: key}) // nil removes
		}
	}
	var err error
	if p.AddLinks, p.RemoveLinks, err = linkChanges(old, next); err != nil {
		return p, err
	}
	if graftBody(old.Body) != graftBody(next.Body) {
		body := next.Body
		p.ReplaceBody = &body
	}
	return p, nil
}

// graftBody is a body as graft stores it: no leading blank lines, no
// trailing whitespace.
func graftBody(s string) string {
	return strings.TrimRight(strings.TrimLeft(s, "\r\n"), " \t\r\n")
}

// sameYAML compares two frontmatter values as the file would render them.
func sameYAML(key string, a, b any) bool {
	render := func(v any) string {
		return string(forest.MarshalFrontmatter(forest.NewFrontmatter(forest.Field{Key: key, Value: v})))
	}
	return render(a) == render(b)
}

// linkEntry is one link of a node file, keyed by (rel, target).
type linkEntry struct {
	ref   vine.LinkRef
	entry *forest.Frontmatter
}

// linkChanges diffs the link lists: pairs gone are removed, new pairs are
// added in the frame's order, and a pair whose details changed is removed
// and added again (graft removes before it adds).
func linkChanges(old, next *forest.Node) ([]vine.Link, []vine.LinkRef, error) {
	before, err := linkEntries(old)
	if err != nil {
		return nil, nil, err
	}
	after, err := linkEntries(next)
	if err != nil {
		return nil, nil, err
	}
	var add []vine.Link
	var remove []vine.LinkRef
	for _, o := range before {
		i := slices.IndexFunc(after, func(n linkEntry) bool { return n.ref == o.ref })
		if i < 0 || !sameYAML("link", o.entry, after[i].entry) {
			remove = append(remove, o.ref)
		}
	}
	for _, n := range after {
		i := slices.IndexFunc(before, func(o linkEntry) bool { return o.ref == n.ref })
		if i >= 0 && sameYAML("link", before[i].entry, n.entry) {
			continue
		}
		l, err := toLink(n.entry)
		if err != nil {
			return nil, nil, err
		}
		add = append(add, l)
	}
	return add, remove, nil
}

func linkEntries(n *forest.Node) ([]linkEntry, error) {
	v, ok := n.Front.Get("links")
	if !ok || v == nil {
		return nil, nil
	}
	items, isList := v.([]any)
	if !isList {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("patch: %s: links expects a list of {rel, target}, got %T", n.ID, v), "")
	}
	out := make([]linkEntry, 0, len(items))
	for i, it := range items {
		m, isMap := it.(*forest.Frontmatter)
		if !isMap || m.String("rel") == "" || m.String("target") == "" {
			return nil, envelope.New(envelope.Schema,
				fmt.Sprintf("patch: %s: links.%d expects {rel, target}", n.ID, i),
				"a link is a mapping with non-empty rel and target")
		}
		out = append(out, linkEntry{ref: vine.LinkRef{Rel: m.String("rel"), Target: m.String("target")}, entry: m})
	}
	return out, nil
}

// toLink turns a file's link entry into the graft form.
func toLink(m *forest.Frontmatter) (vine.Link, error) {
	l := vine.Link{Rel: m.String("rel"), Target: m.String("target")}
	for _, f := range m.Fields() {
		switch f.Key {
		case "rel", "target":
		case "confidence":
			var c float64
			switch v := f.Value.(type) {
			case float64:
				c = v
			case int64:
				c = float64(v)
			default:
				return l, envelope.New(envelope.Schema,
					fmt.Sprintf("patch: link to %s: confidence expects a number in [0.0, 1.0], got %v", l.Target, f.Value), "")
			}
			l.Confidence = &c
		default:
			l.Extra = append(l.Extra, f)
		}
	}
	return l, nil
}
