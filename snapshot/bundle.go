// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/monkeyllm/vine/envelope"
)

// Bundle signatures (git's bundle-format documentation). Create writes v2;
// Restore reads both.
const (
	bundleV2 = "# v2 git bundle\n"
	bundleV3 = "# v3 git bundle\n"
)

// packWindow is how many neighbours the pack encoder tries as delta bases,
// git's default: forest history is many small revisions of the same
// files, which deltas shrink well.
const packWindow = 10

// Header limits: a bundle's header is one short line per ref; these only
// stop a hostile file from making the reader buffer without end.
const (
	maxBundleLine = 4096
	maxBundleRefs = 1 << 16
)

// bundleRef is one "<sha> <refname>" line.
type bundleRef struct {
	name plumbing.ReferenceName
	hash plumbing.Hash
}

// writeBundle writes a v2 bundle of every ref of the repository at dir,
// HEAD included and resolved, with no prerequisites: what `git bundle
// create --all` makes, written through go-git's object storage.
func writeBundle(ctx context.Context, w io.Writer, dir string) error {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return fmt.Errorf("snapshot: open repository: %w", err)
	}
	refs, err := bundleRefs(repo)
	if err != nil {
		return err
	}
	var hdr strings.Builder
	hdr.WriteString(bundleV2)
	tips := make([]plumbing.Hash, 0, len(refs))
	for _, r := range refs {
		fmt.Fprintf(&hdr, "%s %s\n", r.hash, r.name)
		if !slices.Contains(tips, r.hash) {
			tips = append(tips, r.hash)
		}
	}
	hdr.WriteString("\n")
	if _, err := io.WriteString(w, hdr.String()); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	objects, err := revlist.Objects(repo.Storer, tips, nil)
	if err != nil {
		return fmt.Errorf("snapshot: list objects: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := packfile.NewEncoder(w, repo.Storer, false).Encode(objects, packWindow); err != nil {
		return fmt.Errorf("snapshot: write pack: %w", err)
	}
	return nil
}

// bundleRefs is HEAD (resolved) followed by every other direct ref,
// sorted. Symbolic refs other than HEAD are left out, as git bundle does.
func bundleRefs(repo *git.Repository) ([]bundleRef, error) {
	var refs []bundleRef
	if head, err := repo.Head(); err == nil {
		refs = append(refs, bundleRef{plumbing.HEAD, head.Hash()})
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, fmt.Errorf("snapshot: read HEAD: %w", err)
	}
	iter, err := repo.References()
	if err != nil {
		return nil, fmt.Errorf("snapshot: list refs: %w", err)
	}
	var others []bundleRef
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Name() == plumbing.HEAD || r.Type() != plumbing.HashReference || r.Hash().IsZero() {
			return nil
		}
		others = append(others, bundleRef{r.Name(), r.Hash()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: list refs: %w", err)
	}
	slices.SortFunc(others, func(a, b bundleRef) int { return strings.Compare(string(a.name), string(b.name)) })
	refs = append(refs, others...)
	if len(refs) == 0 {
		return nil, envelope.New(envelope.Schema, "snapshot: the forest's repository has no commit yet",
			"a forest made by vine init has its first commit; check the forest's .git")
	}
	return refs, nil
}

// bundleHeader is what precedes the pack.
type bundleHeader struct {
	refs []bundleRef // in file order; HEAD among them when present
}

// head is the commit HEAD names, if the bundle names one.
func (h *bundleHeader) head() (plumbing.Hash, bool) {
	for _, r := range h.refs {
		if r.name == plumbing.HEAD {
			return r.hash, true
		}
	}
	return plumbing.ZeroHash, false
}

// bundleRefusal is E_SCHEMA about the bundle member.
func bundleRefusal(format string, args ...any) error {
	return envelope.New(envelope.Schema, "snapshot: forest.bundle: "+fmt.Sprintf(format, args...),
		"a snapshot bundle is `git bundle create FILE --all` of a forest: v2 or v3, SHA-1, complete (no prerequisites)")
}

// readBundleHeader reads and checks a bundle's header, leaving br at the
// first byte of the pack. Only a bundle that stands alone restores: a
// prerequisite line (an incremental bundle), a filter or another object
// format is refused, as is any ref name git would refuse or that could
// leave refs/.
func readBundleHeader(br *bufio.Reader) (*bundleHeader, error) {
	sig, err := readBundleLine(br)
	if err != nil {
		return nil, err
	}
	v3 := sig == strings.TrimSuffix(bundleV3, "\n")
	if !v3 && sig != strings.TrimSuffix(bundleV2, "\n") {
		return nil, bundleRefusal("not a git bundle (no v2 or v3 signature)")
	}
	h := &bundleHeader{}
	seen := map[plumbing.ReferenceName]bool{}
	for {
		line, err := readBundleLine(br)
		if err != nil {
			return nil, err
		}
		switch {
		case line == "":
			if len(h.refs) == 0 {
				return nil, bundleRefusal("it names no ref")
			}
			return h, nil
		case v3 && strings.HasPrefix(line, "@"):
			if line != "@object-format=sha1" {
				return nil, bundleRefusal("capability %q is not supported", line)
			}
		case strings.HasPrefix(line, "-"):
			return nil, bundleRefusal("it has prerequisites (an incremental bundle); restore needs a complete one")
		default:
			r, err := parseBundleRef(line)
			if err != nil {
				return nil, err
			}
			if seen[r.name] {
				return nil, bundleRefusal("ref %s is listed twice", r.name)
			}
			if len(h.refs) == maxBundleRefs {
				return nil, bundleRefusal("more than %d refs", maxBundleRefs)
			}
			seen[r.name] = true
			h.refs = append(h.refs, r)
		}
	}
}

// readBundleLine reads one header line without its newline.
func readBundleLine(br *bufio.Reader) (string, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxBundleLine {
			return "", bundleRefusal("a header line is longer than %d bytes", maxBundleLine)
		}
		switch {
		case err == nil:
			return string(bytes.TrimSuffix(line, []byte("\n"))), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return "", bundleRefusal("the header ends before the blank line that closes it")
		default:
			return "", err
		}
	}
}

// parseBundleRef reads "<40 hex> <refname>".
func parseBundleRef(line string) (bundleRef, error) {
	hex, name, ok := strings.Cut(line, " ")
	if !ok || len(hex) != 40 || strings.Trim(hex, "0123456789abcdef") != "" {
		return bundleRef{}, bundleRefusal("header line %q is not \"<sha1> <ref>\"", clip(line))
	}
	ref := plumbing.ReferenceName(name)
	if ref != plumbing.HEAD && (!strings.HasPrefix(name, "refs/") || ref.Validate() != nil || !ref.IsSafe()) {
		return bundleRef{}, bundleRefusal("ref name %q is not a safe git ref", clip(name))
	}
	return bundleRef{name: ref, hash: plumbing.NewHash(hex)}, nil
}

// clip shortens text quoted in a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// importPack stores the pack that follows the header. br must start with
// the pack signature.
func importPack(st storer.Storer, br *bufio.Reader) error {
	sig, err := br.Peek(4)
	if err != nil || string(sig) != "PACK" {
		return bundleRefusal("no packfile follows the header")
	}
	if err := packfile.UpdateObjectStorage(st, br); err != nil {
		return bundleRefusal("the packfile is unreadable: %v", err)
	}
	return nil
}
