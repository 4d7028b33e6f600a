// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"os"
	"strings"

	"github.com/monkeyllm/vine/forest"
)

// stubbed reports whether n is a media passport still holding the stub
// body while a converter ahead of the stub (a describer bound since, a
// hook) now claims its source. Such a passport is re-converted by sync
// even though its source is unchanged: that is how binding a describer
// later replaces stubs (G.5.1).
func (r *run) stubbed(n *forest.Node, f *sourceFile) bool {
	if n.Type() != "media" || !strings.Contains(r.bodyOf(n), MediaStubSentinel) {
		return false
	}
	cl := r.claimants(f.ext)
	if len(cl) == 0 {
		return false
	}
	_, stub := cl[0].conv.(mediaStub)
	return !stub
}

// bodyOf is the full body of n: inline, or the cached copy of a
// content: cached passport ("" when the cache is missing).
func (r *run) bodyOf(n *forest.Node) string {
	if n.Content() != ContentCached {
		return n.Body
	}
	b, err := os.ReadFile(r.bodyCachePath(n.ID))
	if err != nil {
		return ""
	}
	return string(b)
}

// describeStub re-converts the unchanged source of a stubbed passport.
// A description replaces the stub as a refresh would (the scent stays);
// when every richer claimant failed again the conversion is the stub,
// their reasons are errors lines, and the passport only settles.
func (r *run) describeStub(ctx context.Context, f *sourceFile, p passport, n *forest.Node) error {
	if err := f.hashFile(); err != nil {
		r.fail(f.rel, err)
		return nil
	}
	conv, err := r.convert(ctx, f, p.id)
	if conv == nil {
		return err
	}
	if conv.Kind == KindMarkdown && strings.Contains(conv.Markdown, MediaStubSentinel) {
		return r.settleNode(ctx, f, p, n)
	}
	return r.refreshWith(ctx, f, p, n, conv)
}
