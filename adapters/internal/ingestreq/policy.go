// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gardener"
)

// Check is the policy of ingest (spec 08 §7.3, 06 §17): the ingest
// capability; adopt and sync, which name host paths and refresh whatever
// the source holds, need admin over the whole forest; a key limited to
// part of the forest names its dest, which must be visible to it, and
// never refreshes a node it cannot see. roots are the ingest roots host
// paths must lie in.
func Check(ctx context.Context, v *vine.Vine, sc *vine.Scoped, req Request, roots Roots) error {
	if !sc.Can(vine.CapIngest) {
		return needs(Name, sc, vine.CapIngest)
	}
	if req.Mode == ModeAdopt || req.Mode == ModeSync {
		if !sc.Can(vine.CapAdmin) {
			return needs(Name+" "+req.Mode, sc, vine.CapAdmin)
		}
		if !sc.Unrestricted() {
			return envelope.New(envelope.Forbidden,
				fmt.Sprintf("ingest: %s reconciles a whole source tree; this key sees part of the forest", req.Mode),
				"upload files under a branch this key may write, or ask for a key over the whole forest")
		}
		return roots.sourceAllowed(v.Dir(), req)
	}
	if sc.Unrestricted() {
		return nil
	}
	if !req.HasDest {
		return envelope.New(envelope.Schema, "ingest: parameter 'dest' is required for a key limited to part of the forest",
			"name a branch this key may write: "+strings.Join(sc.Roots(), ", "))
	}
	if !sc.InScope(DestIndex(req.Dest)) {
		return envelope.New(envelope.Forbidden, "ingest: dest "+req.Dest+" is outside this key's grant",
			"name a branch under: "+strings.Join(sc.Roots(), ", "))
	}
	return refreshesHidden(ctx, v, sc, req.Files)
}

// needs refuses an operation for want of capability c, naming what the
// key holds.
func needs(op string, sc *vine.Scoped, c vine.Capability) error {
	hint := "this key holds no capability"
	if have := sc.Caps(); len(have) > 0 {
		names := make([]string, len(have))
		for i, h := range have {
			names[i] = string(h)
		}
		hint = "this key holds: " + strings.Join(names, ", ")
	}
	return envelope.New(envelope.Forbidden, fmt.Sprintf("%s needs the %s capability", op, c), hint)
}

// DestIndex normalises dest the way the Gardener does (x, x/ and
// x/_index name one branch; _index and "" the root) to the branch index
// the scope test is about.
func DestIndex(dest string) string {
	d := strings.Trim(strings.TrimSpace(dest), "/")
	d = strings.TrimSuffix(strings.TrimSuffix(d, forest.RootIndexID), "/")
	if d == "" {
		return forest.RootIndexID
	}
	return d + "/" + forest.RootIndexID
}

// refreshesHidden refuses an upload from a limited key when a file it
// sends would refresh a node outside its grant: a re-sent name refreshes
// the passport recorded for it wherever that node lives. The refusal
// names the file the caller sent, never the node.
func refreshesHidden(ctx context.Context, v *vine.Vine, sc *vine.Scoped, files []gardener.UploadFile) error {
	names := map[string]int{}
	for i, f := range files {
		names[path.Clean(strings.ReplaceAll(f.Name, `\`, "/"))] = i
	}
	root, err := forest.NewRoot(v.Dir())
	if err != nil {
		return err
	}
	_, err = root.Walk(func(id, p string) error {
		if err := ctx.Err(); err != nil || sc.InScope(id) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if front, _, err := forest.Split(id, data); err != nil || !strings.Contains(front, "source_path") {
			return nil // the cheap test spares parsing every hand-written node
		}
		n, err := forest.Parse(id, data)
		if err != nil {
			return nil
		}
		if i, ok := names[n.Front.String("source_path")]; ok {
			return FileErr(i, fmt.Sprintf("name %q is taken in this forest by a document this key cannot refresh", files[i].Name),
				"send it under another name")
		}
		return nil
	})
	return err
}
