// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// RestoreOptions configure Restore. The zero value restores a .forest or
// a bare bundle under the default ceiling.
type RestoreOptions struct {
	// MaxBytes is the uncompressed ceiling over every member of the
	// archive (bundle included) and, separately, over the working tree
	// the bundle checks out. 0 means DefaultMaxBytes.
	MaxBytes int64
	// Sidecar is a legacy <bundle>.payloads.zip to restore beside a bare
	// bundle (I.1). Naming one for a .forest file is E_SCHEMA: the
	// .forest carries its payloads itself.
	Sidecar string
	// Progress, when set, receives "payloads" (files written of all) and
	// then the reindex's own progress, from the working goroutine.
	Progress func(vine.Progress)
}

// Restored is the result of Restore (I.4).
type Restored struct {
	// Forest is the restored forest's directory.
	Forest string `json:"forest"`
	// Nodes counts the nodes the rebuilt catalog holds.
	Nodes int `json:"nodes"`
	// RestoredPayloads counts payload files written.
	RestoredPayloads int `json:"restored_payloads"`
	// PayloadsMissing counts local payloads named by a passport whose file
	// is absent after the restore (coverage's payloads_missing, the same
	// count): a metadata-only artifact shows its damage here.
	PayloadsMissing int `json:"payloads_missing"`
}

// Restore makes a new forest at newDir from a snapshot file: a .forest
// file or a bare git bundle, told apart by content. newDir must not exist
// or be an empty directory, and must not lie inside an existing forest
// (that forest would index the restored one as broken nodes); restore
// never writes into a forest. The bundle's tree must hold plain files
// only: a forest's git holds markdown and .gitignore, so a symlink (or a
// submodule) in it is refused before checkout.
//
// Everything that can be checked before writing is checked first: a
// missing file is E_NOT_FOUND; a non-empty target, an unknown shape, a
// member outside the positive rules (see the package doc), a ceiling the
// headers exceed, or a bundle that does not stand alone is E_SCHEMA, and
// nothing has been created. The bundle is then cloned and the payloads
// written into a scratch directory beside newDir; bytes that outrun their
// headers or the ceiling are caught while inflating. Only a complete
// forest is renamed to newDir and reindexed; on any failure the scratch
// directory, and any parent directory restore created, is removed.
func Restore(ctx context.Context, file, newDir string, opts RestoreOptions) (*Restored, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	src, err := openSource(file, opts)
	if err != nil {
		return nil, err
	}
	defer src.close()
	dest, existed, err := restoreTarget(newDir)
	if err != nil {
		return nil, err
	}
	r := &restorer{src: src, opts: opts, dest: dest, existed: existed, budget: &budget{left: opts.MaxBytes}}
	return r.run(ctx)
}

// source is a validated snapshot: the bundle and the payload members to
// extract, every name and declared size already checked.
type source struct {
	closers  []io.Closer
	bundle   func() (io.ReadCloser, error)
	declared uint64 // the bundle's declared (or actual) size
	head     *bundleHeader
	payloads []member
}

func (s *source) close() {
	for _, c := range s.closers {
		c.Close()
	}
}

// openSource opens file (and the sidecar), reads its shape, and runs
// every check that needs no write.
func openSource(file string, opts RestoreOptions) (*source, error) {
	f, size, err := openSnapshotFile(file, "snapshot")
	if err != nil {
		return nil, err
	}
	s := &source{closers: []io.Closer{f}}
	shp, zr, err := sniffShape(f, size)
	if err == nil {
		err = s.load(shp, zr, f, size, opts)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *source) load(shp shape, zr *zip.Reader, f *os.File, size int64, opts RestoreOptions) error {
	switch shp {
	case shapeBundle:
		if size > opts.MaxBytes {
			return ceilingRefusal(opts.MaxBytes)
		}
		s.bundle = func() (io.ReadCloser, error) { return io.NopCloser(io.NewSectionReader(f, 0, size)), nil }
		s.declared = uint64(size)
		if opts.Sidecar != "" {
			p, err := s.loadSidecar(opts.Sidecar, size, opts.MaxBytes)
			if err != nil {
				return err
			}
			s.payloads = p.payloads
		}
	case shapeZip:
		if opts.Sidecar != "" {
			return envelope.New(envelope.Schema, "snapshot: a payload sidecar goes with a bare bundle, and this is a .forest file",
				"a .forest file carries its payloads; restore it alone")
		}
		p, err := inspect(zr, forestMember, opts.MaxBytes, opts.MaxBytes)
		if err != nil {
			return err
		}
		if p.bundle == nil {
			return envelope.New(envelope.Schema, "snapshot: the archive has no forest.bundle",
				"a .forest file holds forest.bundle at its top level; a legacy payload sidecar restores only beside its bundle")
		}
		s.bundle = p.bundle.Open
		s.declared, s.payloads = p.bundle.UncompressedSize64, p.payloads
	}
	return s.checkBundle(opts.MaxBytes)
}

// checkBundle reads the bundle's header: refs, prerequisites and the
// branch to check out are known before anything is written.
func (s *source) checkBundle(maxBytes int64) error {
	rc, err := s.bundle()
	if err != nil {
		return memberRefusal(bundleMember, "unreadable: "+err.Error())
	}
	defer rc.Close()
	probe := &budget{left: maxBytes}
	h, _, err := openBundleHeader(probe.reader(rc, bundleMember, s.declared, maxBytes))
	if err != nil {
		return err
	}
	s.head = h
	_, _, err = chooseHead(h)
	return err
}

// loadSidecar validates a legacy payload sidecar under what the bundle
// leaves of the ceiling.
func (s *source) loadSidecar(file string, bundleSize, maxBytes int64) (*plan, error) {
	f, size, err := openSnapshotFile(file, "payload sidecar")
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, f)
	zr, err := zip.NewReader(f, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, envelope.New(envelope.Schema, "snapshot: the payload sidecar is not a zip archive",
			"a sidecar is the <bundle>.payloads.zip written beside a legacy bundle")
	}
	return inspect(zr, sidecarMember, maxBytes-bundleSize, maxBytes)
}

// openSnapshotFile opens a regular file; absence is E_NOT_FOUND.
func openSnapshotFile(file, what string) (*os.File, int64, error) {
	f, err := os.Open(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, envelope.New(envelope.NotFound, fmt.Sprintf("snapshot: %s not found: %s", what, filepath.Base(file)),
				"name an existing .forest file (or a bare git bundle)")
		}
		return nil, 0, fmt.Errorf("snapshot: open %s: %w", what, err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, envelope.New(envelope.Schema, fmt.Sprintf("snapshot: %s %s is not a regular file", what, filepath.Base(file)), "")
	}
	return f, fi.Size(), nil
}

// restoreTarget resolves newDir and refuses one that exists with content
// (I.4 rule 1) or lies inside a forest. existed reports an empty
// directory already there.
func restoreTarget(dir string) (abs string, existed bool, err error) {
	abs, err = filepath.Abs(dir)
	if err != nil {
		return "", false, fmt.Errorf("snapshot: restore target: %w", err)
	}
	if reason := forest.HostPathTooLong(abs); reason != "" {
		return "", false, envelope.New(envelope.Schema, "snapshot: restore target "+reason,
			"a file system refuses such a name; choose a shorter folder")
	}
	if root := enclosingForest(abs); root != "" {
		return "", false, nestedRefusal(abs, root)
	}
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("snapshot: restore target: %w", err)
	}
	notEmpty := envelope.New(envelope.Schema, "snapshot: restore target is not empty: "+filepath.Base(abs),
		"restore never overwrites: name a new directory (or an empty one)")
	if !fi.IsDir() {
		return "", false, notEmpty
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", false, fmt.Errorf("snapshot: restore target: %w", err)
	}
	if len(entries) > 0 {
		return "", false, notEmpty
	}
	return abs, true, nil
}

// enclosingForest is the root of the forest that holds dir, found by
// walking up from its parent both as written and with symlinks resolved,
// or "" when none does.
func enclosingForest(dir string) string {
	parent := filepath.Dir(dir)
	for _, start := range []string{parent, resolvedAncestor(parent)} {
		for d := start; ; d = filepath.Dir(d) {
			if isForestRoot(d) {
				return d
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return ""
}

// isForestRoot reports a forest's root: a master index beside a dialect
// or a repository, so a stray _index.md alone does not count.
func isForestRoot(dir string) bool {
	if !forest.IsForest(dir) {
		return false
	}
	for _, marker := range []string{filepath.Join(forest.MetaDir, "schema.md"), forest.GitDir} {
		if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
			return true
		}
	}
	return false
}

// resolvedAncestor is the nearest existing ancestor of dir (dir included)
// with its symlinks resolved.
func resolvedAncestor(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return r
		}
		if filepath.Dir(d) == d {
			return d
		}
	}
}

// nestedRefusal names the target relative to the forest that holds it,
// never a machine path.
func nestedRefusal(target, root string) error {
	rel, err := filepath.Rel(root, target)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = filepath.Base(target)
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("snapshot: restore target %s is inside the forest %s", filepath.ToSlash(rel), filepath.Base(root)),
		"restore into a folder outside every forest: the outer forest would index the restored one as broken nodes").
		With("forest", filepath.Base(root))
}

// chooseHead picks the branch the restored forest has checked out: the
// one HEAD names (main, then master, then the first listed, when several
// match), HEAD's commit detached when no branch matches, or without HEAD
// main, master or the first branch.
func chooseHead(h *bundleHeader) (plumbing.ReferenceName, plumbing.Hash, error) {
	head, hasHead := h.head()
	var branches []bundleRef
	for _, r := range h.refs {
		if r.name.IsBranch() && (!hasHead || r.hash == head) {
			branches = append(branches, r)
		}
	}
	for _, pref := range []plumbing.ReferenceName{"refs/heads/main", plumbing.Master} {
		for _, b := range branches {
			if b.name == pref {
				return b.name, b.hash, nil
			}
		}
	}
	switch {
	case len(branches) > 0:
		return branches[0].name, branches[0].hash, nil
	case hasHead:
		return "", head, nil
	}
	return "", plumbing.ZeroHash, bundleRefusal("it names neither HEAD nor a branch, so there is nothing to check out")
}

// restorer carries one restore through its writing half.
type restorer struct {
	src     *source
	opts    RestoreOptions
	dest    string
	existed bool // dest was an empty directory before
	budget  *budget

	made    string // topmost parent directory restore created, if any
	staging string
}

func (r *restorer) run(ctx context.Context) (res *Restored, err error) {
	defer func() {
		if err != nil {
			r.cleanup()
		}
	}()
	if err := r.prepare(); err != nil {
		return nil, err
	}
	if err := r.importBundle(ctx); err != nil {
		return nil, err
	}
	if err := r.writePayloads(ctx); err != nil {
		return nil, err
	}
	if err := r.place(); err != nil {
		return nil, err
	}
	return r.reindex(ctx)
}

// prepare creates the scratch directory beside dest (and dest's missing
// parents).
func (r *restorer) prepare() error {
	parent := filepath.Dir(r.dest)
	r.made = firstMissing(parent)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("snapshot: create parent of restore target: %w", err)
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(r.dest)+".restore-*")
	if err != nil {
		return fmt.Errorf("snapshot: create scratch directory: %w", err)
	}
	r.staging = dir
	return nil
}

// firstMissing is the topmost ancestor of dir (dir included) that does not
// exist, or "".
func firstMissing(dir string) string {
	missing := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			return missing
		}
		missing = d
		if filepath.Dir(d) == d {
			return missing
		}
	}
}

// cleanup removes everything restore created.
func (r *restorer) cleanup() {
	if r.staging != "" {
		os.RemoveAll(r.staging)
	}
	if r.made != "" {
		os.RemoveAll(r.made)
	}
}

// importBundle clones the bundle into the scratch directory: objects,
// refs, HEAD, then the checkout of HEAD's tree.
func (r *restorer) importBundle(ctx context.Context) error {
	rc, err := r.src.bundle()
	if err != nil {
		return memberRefusal(bundleMember, "unreadable: "+err.Error())
	}
	defer rc.Close()
	h, br, err := openBundleHeader(r.budget.reader(rc, bundleMember, r.src.declared, r.opts.MaxBytes))
	if err != nil {
		return err
	}
	branch, commit, err := chooseHead(h)
	if err != nil {
		return err
	}
	initBranch := branch
	if initBranch == "" {
		initBranch = "refs/heads/main"
	}
	repo, err := git.PlainInitWithOptions(r.staging, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: initBranch}})
	if err != nil {
		return fmt.Errorf("snapshot: init repository: %w", err)
	}
	if err := importPack(repo.Storer, br); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := setRefs(repo, h, branch, commit); err != nil {
		return err
	}
	if err := r.checkTree(repo, commit); err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return fmt.Errorf("snapshot: worktree: %w", err)
	}
	co := &git.CheckoutOptions{Branch: branch, Force: true}
	if branch == "" {
		co = &git.CheckoutOptions{Hash: commit, Force: true}
	}
	if err := wt.Checkout(co); err != nil {
		return bundleRefusal("checking out %s failed: %v", commit, err)
	}
	return nil
}

// setRefs writes every ref of the bundle as it was (branches stay
// branches: the forest is its own repository, not a clone with an
// origin) and points HEAD at the chosen branch, or detaches it.
func setRefs(repo *git.Repository, h *bundleHeader, branch plumbing.ReferenceName, commit plumbing.Hash) error {
	for _, ref := range h.refs {
		if _, err := repo.Storer.EncodedObject(plumbing.AnyObject, ref.hash); err != nil {
			return bundleRefusal("ref %s points at %s, which the pack does not hold", ref.name, ref.hash)
		}
		if ref.name == plumbing.HEAD {
			continue
		}
		if err := repo.Storer.SetReference(plumbing.NewHashReference(ref.name, ref.hash)); err != nil {
			return fmt.Errorf("snapshot: set ref %s: %w", ref.name, err)
		}
	}
	head := plumbing.NewSymbolicReference(plumbing.HEAD, branch)
	if branch == "" {
		head = plumbing.NewHashReference(plumbing.HEAD, commit)
	}
	if err := repo.Storer.SetReference(head); err != nil {
		return fmt.Errorf("snapshot: set HEAD: %w", err)
	}
	return nil
}

// checkTree refuses, before checkout, a commit that holds no forest or
// whose files would inflate past the ceiling.
func (r *restorer) checkTree(repo *git.Repository, commit plumbing.Hash) error {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return bundleRefusal("HEAD (%s) is not a commit", commit)
	}
	tree, err := c.Tree()
	if err != nil {
		return bundleRefusal("the tree of %s is unreadable: %v", commit, err)
	}
	if _, err := tree.FindEntry(forest.IndexFile); err != nil {
		return bundleRefusal("it holds no forest: there is no %s at the root of %s", forest.IndexFile, commit)
	}
	if err := plainEntries(tree); err != nil {
		return err
	}
	var total int64
	return tree.Files().ForEach(func(f *object.File) error {
		if total += f.Size; total > r.opts.MaxBytes {
			return ceilingRefusal(r.opts.MaxBytes)
		}
		return nil
	})
}

// plainEntries refuses a tree holding anything but files and folders. A
// forest's git holds markdown and .gitignore only; a symlink checked out
// could point anywhere (the restored forest then fails validate, and a
// payload could be written through it), and a submodule names another
// repository. All are refused, not only those leaving the forest: none
// has a place in one.
func plainEntries(tree *object.Tree) error {
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, entry, err := walker.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return bundleRefusal("its tree is unreadable: %v", err)
		}
		if kind := oddEntry(entry.Mode); kind != "" {
			return envelope.New(envelope.Schema,
				fmt.Sprintf("snapshot: forest.bundle: its tree holds a %s at %s", kind, clip(name)),
				"a forest's git holds plain files only (markdown and .gitignore); nothing was restored").
				With("path", clip(name))
		}
	}
}

// oddEntry names a tree entry mode that is neither a file nor a folder.
func oddEntry(m filemode.FileMode) string {
	switch m {
	case filemode.Symlink:
		return "symlink"
	case filemode.Submodule:
		return "submodule"
	case filemode.Dir, filemode.Regular, filemode.Executable, filemode.Deprecated:
		return ""
	}
	return "entry of mode " + m.String()
}

// writePayloads writes every payload member into the scratch forest.
func (r *restorer) writePayloads(ctx context.Context) error {
	n := len(r.src.payloads)
	for i, m := range r.src.payloads {
		r.report(i, n)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.writePayload(m); err != nil {
			return err
		}
	}
	r.report(n, n)
	return nil
}

func (r *restorer) report(done, total int) {
	if r.opts.Progress != nil {
		r.opts.Progress(vine.Progress{Op: "payloads", Done: done, Total: total})
	}
}

// writePayload extracts one member. Its folders are created one by one
// and must be real directories: the checked-out tree may hold symlinks,
// and a payload is never written through one. The file itself is created
// exclusively, so it never replaces a file of the tree.
func (r *restorer) writePayload(m member) (err error) {
	if err := mkdirPlain(r.staging, path.Dir(m.rel)); err != nil {
		return memberRefusal(m.f.Name, err.Error())
	}
	dst := filepath.Join(r.staging, filepath.FromSlash(m.rel))
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return memberRefusal(m.f.Name, "the forest's git tree already has a file at "+m.rel)
	}
	if err != nil {
		return fmt.Errorf("snapshot: write payload %s: %w", m.rel, err)
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("snapshot: write payload %s: %w", m.rel, cerr)
		}
	}()
	in, err := m.f.Open()
	if err != nil {
		return memberRefusal(m.f.Name, "unreadable: "+err.Error())
	}
	defer in.Close()
	n, err := io.Copy(out, r.budget.reader(in, m.f.Name, m.f.UncompressedSize64, r.opts.MaxBytes))
	if err != nil {
		return err
	}
	if uint64(n) != m.f.UncompressedSize64 {
		return memberRefusal(m.f.Name, "it inflates to fewer bytes than its header declares")
	}
	return nil
}

// mkdirPlain creates rel (slash path) under root one component at a
// time, refusing any component that exists as something other than a
// directory (a symlink above all).
func mkdirPlain(root, rel string) error {
	if rel == "." {
		return nil
	}
	cur := root
	for _, c := range strings.Split(rel, "/") {
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return fmt.Errorf("cannot create its folder: %v", err)
			}
		case err != nil:
			return fmt.Errorf("cannot inspect its folder: %v", err)
		case !fi.IsDir():
			return errors.New("its folder " + c + " is a symlink or a file in the forest's git tree")
		}
	}
	return nil
}

// place turns the scratch directory into the forest: one rename.
func (r *restorer) place() error {
	err := os.Rename(r.staging, r.dest)
	if err != nil && r.existed {
		// Where rename does not replace an empty directory, make room.
		if rmErr := os.Remove(r.dest); rmErr == nil {
			err = os.Rename(r.staging, r.dest)
		}
	}
	if err != nil {
		if r.existed {
			os.Mkdir(r.dest, 0o755)
		}
		return fmt.Errorf("snapshot: move restored forest into place: %w", err)
	}
	r.staging = ""
	return nil
}

// reindex builds the derived catalog (it is never shipped) and counts
// missing payloads with coverage's own counter. A failure removes the
// forest again: half a restore is no restore.
func (r *restorer) reindex(ctx context.Context) (res *Restored, err error) {
	defer func() {
		if err != nil {
			os.RemoveAll(r.dest)
			if r.existed {
				os.Mkdir(r.dest, 0o755)
			}
		}
	}()
	v, err := vine.Open(ctx, r.dest, &vine.Options{ReadOnly: true, SkipAutoIndex: true, Progress: r.opts.Progress})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	idx, err := v.Reindex(ctx)
	if err != nil {
		return nil, err
	}
	cov, err := v.Coverage(ctx, vine.CoverageOptions{})
	if err != nil {
		return nil, err
	}
	return &Restored{Forest: r.dest, Nodes: idx.Nodes, RestoredPayloads: len(r.src.payloads), PayloadsMissing: cov.PayloadsMissing}, nil
}
