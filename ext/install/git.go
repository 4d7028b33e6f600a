// SPDX-License-Identifier: Apache-2.0

package install

import (
	"context"
	"fmt"
	"os"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// cloneAt clones src and checks out its ref, recording the commit: a
// tag can be moved, so what runs is named by its sha. A branch (or no
// ref) is a moving ref: allowed, recorded as tracking, and unverified by
// construction.
func cloneAt(ctx context.Context, src Source, dir string, trust Trust) (*resolved, error) {
	work := dir + ".git-clone"
	repo, err := git.PlainCloneContext(ctx, work, false, &git.CloneOptions{URL: src.Location, Tags: git.AllTags, NoCheckout: true})
	if err != nil {
		return nil, refuse("git", fmt.Sprintf("cannot clone %s: %v", src.Location, err), "check the URL or path and that the repository is reachable")
	}
	defer os.RemoveAll(work)
	res := &resolved{dir: dir, tier: TierUnverified}
	hash, tag, err := resolveRef(repo, src.Ref, res)
	if err != nil {
		return nil, err
	}
	if tag != nil {
		res.tier, res.identity, res.reason = verifyTag(ctx, trust, src.Location, src.Ref, tag)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, refuse("git", err.Error(), "")
	}
	if err := wt.Checkout(&git.CheckoutOptions{Hash: hash, Force: true}); err != nil {
		return nil, refuse("git", fmt.Sprintf("cannot check out %s: %v", hash, err), "")
	}
	res.revision = hash.String()
	if err := copyTree(work, dir); err != nil {
		return nil, err
	}
	return res, nil
}

// resolveRef finds the commit of ref: a tag (and its object when
// annotated, for its signature), a full commit sha, or a branch (then
// tracking); no ref is the default branch.
func resolveRef(repo *git.Repository, ref string, res *resolved) (plumbing.Hash, *object.Tag, error) {
	if ref == "" {
		head, err := repo.Head()
		if err != nil {
			return plumbing.ZeroHash, nil, refuse("git", "the repository has no default branch: "+err.Error(), "name a ref with @ref")
		}
		res.tracking = head.Name().Short()
		res.reason = "a moving ref (" + res.tracking + ") is unverified by construction"
		return head.Hash(), nil, nil
	}
	if t, err := repo.Tag(ref); err == nil {
		h := t.Hash()
		if to, err := repo.TagObject(h); err == nil {
			c, err := to.Commit()
			if err != nil {
				return plumbing.ZeroHash, nil, refuse("git", "tag "+ref+" does not point at a commit", "")
			}
			return c.Hash, to, nil
		}
		res.reason = "tag " + ref + " is a lightweight tag: it carries no signature"
		return h, nil, nil
	}
	if len(ref) == 40 && strings.Trim(strings.ToLower(ref), "0123456789abcdef") == "" {
		if _, err := repo.CommitObject(plumbing.NewHash(ref)); err == nil {
			res.reason = "a commit sha carries no signature"
			return plumbing.NewHash(ref), nil, nil
		}
	}
	if r, err := repo.Reference(plumbing.NewRemoteReferenceName("origin", ref), true); err == nil {
		res.tracking = ref
		res.reason = "a moving ref (" + ref + ") is unverified by construction"
		return r.Hash(), nil, nil
	}
	return plumbing.ZeroHash, nil, refuse("git", fmt.Sprintf("ref %q is neither a tag, a branch nor a commit of the repository", ref), "")
}
