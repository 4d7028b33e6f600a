// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/journal"
	"github.com/monkeyllm/vine/internal/recovery"
)

// RemoteOptions are the remote and credentials of one exchange (clone,
// push, pull, follow). Credentials are used for the call and never
// written to the forest; the engine reads no environment, so a host passes
// them (adapters/cli/vine reads MONKEYLLM_GIT_TOKEN).
type RemoteOptions struct {
	// Remote names the remote; "" means "origin".
	Remote string
	// Token authenticates over HTTP(S); Username goes with it ("" sends
	// "vine").
	Token    string
	Username string
	// SSHKey is a PEM private key file for ssh:// remotes, SSHKeyPassword
	// its passphrase, SSHKnownHosts a known_hosts file to check the server.
	SSHKey         string
	SSHKeyPassword string
	SSHKnownHosts  string
	// Progress, when set, receives the stages of the exchange (Op "fetch",
	// "push", "pull": files written of the total, "clone"). It is called
	// from the working goroutine and must not block.
	Progress func(Progress)
}

func (o RemoteOptions) git() gitops.RemoteOptions {
	return gitops.RemoteOptions{Remote: o.Remote, Token: o.Token, Username: o.Username,
		SSHKey: o.SSHKey, SSHKeyPassword: o.SSHKeyPassword, SSHKnownHosts: o.SSHKnownHosts}
}

func (o RemoteOptions) report(op string, done, total int) {
	if o.Progress != nil {
		o.Progress(Progress{Op: op, Done: done, Total: total})
	}
}

// Remote is one configured remote.
type Remote = gitops.Remote

// PushResult is what a push did.
type PushResult = gitops.Pushed

// CloneResult is what Clone made.
type CloneResult struct {
	Dir    string `json:"dir"`
	Head   string `json:"head"`
	Remote string `json:"remote"`
	Nodes  int    `json:"nodes"`
	// PayloadsMissing lists the nodes whose local payload file is not in
	// the clone: payloads stay out of git (A.3.1), so a clone has the map
	// and not the bytes until they are copied (a snapshot, prefetch).
	PayloadsMissing []string `json:"payloads_missing"`
}

// Clone copies the forest at url into dir (new or empty), records url as
// the remote "origin" without credentials, builds the catalog, and lists
// the datasets whose payloads did not come with it.
func Clone(ctx context.Context, url, dir string, opts RemoteOptions) (*CloneResult, error) {
	opts.report("clone", 0, 2)
	repo, err := gitops.Clone(ctx, url, dir, opts.git())
	if err != nil {
		return nil, err
	}
	opts.report("clone", 1, 2)
	if !forest.IsForest(repo.Root()) {
		os.RemoveAll(repo.Root())
		return nil, envelope.New(envelope.NotFound, "the cloned repository is not a forest: it has no _index.md",
			"clone the repository of a forest")
	}
	v, err := Open(ctx, repo.Root(), &Options{Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	stats, err := v.cat.Stats(ctx)
	if err != nil {
		return nil, err
	}
	missing, err := v.missingPayloads(ctx)
	if err != nil {
		return nil, err
	}
	opts.report("clone", 2, 2)
	return &CloneResult{Dir: repo.Root(), Head: head, Remote: cmpOr(opts.Remote, gitops.DefaultRemote),
		Nodes: stats.Nodes, PayloadsMissing: missing}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// missingPayloads lists, by id, the nodes whose local payload file is
// absent (remote URIs are fetched on demand and never count).
func (v *Vine) missingPayloads(ctx context.Context) ([]string, error) {
	st, err := v.stmts.Prepare(ctx, "SELECT id, payload FROM nodes WHERE payload IS NOT NULL AND payload != '' ORDER BY id")
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id, p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, err
		}
		if coverageRemotePayload.MatchString(p) || v.place.Stat(payloadScope(ctx), id, p).Present {
			continue
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// remoteState is the git side of remote work. A writable Vine uses its
// own repository, intent log and recoverer; a read-only one (a replica
// that follows its origin) opens them for the follower alone, so its
// callers still cannot write.
type remoteState struct {
	once      sync.Once
	err       error
	repo      *gitops.Repo
	journal   *journal.Log
	recoverer *recovery.Recoverer
}

func (v *Vine) remote() (*remoteState, error) {
	s := &v.remoteGit
	s.once.Do(func() {
		if v.repo != nil {
			s.repo, s.journal, s.recoverer = v.repo, v.journal, v.recoverer
			return
		}
		s.repo, s.err = gitops.Open(v.root.Dir())
		if s.err != nil {
			return
		}
		s.journal = journal.New(s.repo.GitDir())
		s.recoverer = recovery.New(s.journal, s.repo, v.root, v.again, v.log)
	})
	return s, s.err
}

// again brings the catalog and the caches built on it in step with node
// files a pull (or its repair) wrote and removed.
func (v *Vine) again(ctx context.Context, written, removed []string) (int, int, error) {
	put, del, err := v.index.Again(ctx, written, removed)
	if err != nil {
		return put, del, err
	}
	v.loadDialect()
	ids := make([]string, 0, len(written))
	for _, p := range written {
		if id, ok := strings.CutSuffix(p, forest.NodeExt); ok {
			ids = append(ids, id)
		}
	}
	v.canopy.Written(ctx, ids...)
	return put, del, nil
}

// Remotes lists the forest's remotes.
func (v *Vine) Remotes() ([]Remote, error) {
	s, err := v.remote()
	if err != nil {
		return nil, err
	}
	return s.repo.Remotes()
}

// SetRemote records (or replaces) the URL of the named remote ("" means
// origin). A URL carrying a password is refused: credentials are passed
// per call, never stored.
func (v *Vine) SetRemote(ctx context.Context, name, url string) error {
	if err := v.writable("remote"); err != nil {
		return err
	}
	s, err := v.remote()
	if err != nil {
		return err
	}
	return s.repo.SetRemote(cmpOr(name, gitops.DefaultRemote), url)
}

// Push sends the forest's branch to the remote. A remote that is ahead is
// refused E_CONFLICT: pull first.
func (v *Vine) Push(ctx context.Context, opts RemoteOptions) (*PushResult, error) {
	s, err := v.remote()
	if err != nil {
		return nil, err
	}
	opts.report("push", 0, 1)
	res, err := s.repo.Push(ctx, opts.git())
	if err != nil {
		return nil, err
	}
	opts.report("push", 1, 1)
	return res, nil
}

// PullOptions are the settings of a pull.
type PullOptions struct {
	RemoteOptions
	// Prefer settles nodes both sides changed: "" refuses the pull with
	// E_CONFLICT listing them, "ours" keeps this forest's version,
	// "theirs" takes the remote's.
	Prefer string
}

// PullResult is what a pull did.
type PullResult struct {
	// Kind is up-to-date, ahead (nothing to take; push), fast-forward or
	// merge.
	Kind string `json:"kind"`
	// Head is HEAD after the pull; Origin the remote's commit fetched.
	Head   string `json:"head"`
	Origin string `json:"origin"`
	// Written and Removed are the node ids the pull changed here.
	Written []string `json:"written"`
	Removed []string `json:"removed"`
	// Settled lists the nodes both sides changed that Prefer decided.
	Settled []string `json:"settled,omitempty"`
	// Joined lists the branch indexes both sides changed whose entry
	// edits were joined line by line (indexmerge.go).
	Joined []string `json:"joined,omitempty"`
}

// Pull fetches the remote and joins its branch into the forest: a
// fast-forward when only the remote wrote, otherwise a per-node three-way
// merge committed with both parents. Nodes both sides changed differently
// refuse the whole pull with E_CONFLICT listing them (unless Prefer says
// whose wins), leaving the files and the catalog as they were. The
// catalog is brought in step for the changed nodes only.
func (v *Vine) Pull(ctx context.Context, opts PullOptions) (*PullResult, error) {
	if err := v.writable("pull"); err != nil {
		return nil, err
	}
	return v.pull(ctx, "pull", opts)
}

func (v *Vine) pull(ctx context.Context, op string, opts PullOptions) (*PullResult, error) {
	prefer, err := parsePrefer(opts.Prefer)
	if err != nil {
		return nil, err
	}
	s, err := v.remote()
	if err != nil {
		return nil, err
	}
	opts.report("fetch", 0, 1)
	fetched, err := s.repo.Fetch(ctx, opts.git())
	if err != nil {
		return nil, err
	}
	opts.report("fetch", 1, 1)
	v.wmu.Lock()
	defer v.wmu.Unlock()
	lock, err := forest.AcquireLockWait(ctx, v.root.Dir(), v.lockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if _, err := s.recoverer.Recover(ctx, true); err != nil {
		return nil, err
	}
	plan, err := s.repo.PlanMerge(fetched.Commit, prefer, resolveIndexes)
	if err != nil {
		return nil, err
	}
	if len(plan.Conflicts) > 0 {
		return nil, conflictRefusal(opts.remote(), plan.Conflicts)
	}
	res := &PullResult{Kind: string(plan.Kind), Head: plan.Ours, Origin: fetched.Commit,
		Written: []string{}, Removed: []string{}, Settled: nodeIDs(plan.Settled),
		Joined: nodeIDs(plan.Resolved)}
	if plan.Kind != gitops.FastForward && plan.Kind != gitops.Merge {
		return res, nil
	}
	if err := v.refuseDirty(plan.Changes); err != nil {
		return nil, err
	}
	head, err := v.applyPull(ctx, s, op, plan, opts, fetched)
	if err != nil {
		return nil, err
	}
	res.Head = head
	var written, removed []string
	for _, c := range plan.Changes {
		if c.Removed() {
			removed = append(removed, c.Path)
		} else {
			written = append(written, c.Path)
		}
	}
	res.Written, res.Removed = nodeIDs(written), nodeIDs(removed)
	v.pruneEmptyDirs(removed)
	// The pull has landed: the catalog follows even if the caller gives
	// up now, or it would lag the files until a reindex.
	if _, _, err := v.again(context.WithoutCancel(ctx), written, removed); err != nil {
		v.log.Error("catalog update after pull failed; reindex repairs it", "err", err)
	}
	return res, nil
}

func (o PullOptions) remote() string { return cmpOr(o.Remote, gitops.DefaultRemote) }

func parsePrefer(p string) (gitops.Prefer, error) {
	switch gitops.Prefer(p) {
	case gitops.PreferNone, gitops.PreferOurs, gitops.PreferTheirs:
		return gitops.Prefer(p), nil
	}
	return "", envelope.New(envelope.Schema, fmt.Sprintf("prefer must be ours or theirs, not %q", p),
		"leave prefer empty to be told about conflicts, or pass ours|theirs")
}

// nodeIDs turns versioned paths into ids (other files keep their path).
func nodeIDs(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, strings.TrimSuffix(p, forest.NodeExt))
	}
	return out
}

// conflictRefusal is the E_CONFLICT of a pull, listing the nodes.
func conflictRefusal(remote string, paths []string) error {
	ids := nodeIDs(paths)
	shown := ids
	if len(shown) > 20 {
		shown = shown[:20]
	}
	return envelope.New(envelope.Conflict,
		fmt.Sprintf("pull from %s refused: %d node(s) changed differently here and there: %s", remote, len(ids), strings.Join(shown, ", ")),
		"keep one side with `vine pull --prefer ours` or `--prefer theirs`, or edit the nodes by hand so both sides agree, then pull again").
		With("nodes", ids).With("node_count", len(ids))
}

// refuseDirty refuses a pull that would overwrite a file edited by hand
// and not committed: its bytes are not ours' blob.
func (v *Vine) refuseDirty(changes []gitops.Change) error {
	var dirty []string
	for _, c := range changes {
		data, err := os.ReadFile(filepath.Join(v.root.Dir(), filepath.FromSlash(c.Path)))
		switch {
		case errors.Is(err, os.ErrNotExist):
			if c.OurHash != "" {
				dirty = append(dirty, c.Path)
			}
		case err != nil:
			return err
		case gitops.BlobHash(data) != c.OurHash:
			dirty = append(dirty, c.Path)
		}
	}
	if len(dirty) == 0 {
		return nil
	}
	return envelope.New(envelope.Conflict,
		fmt.Sprintf("pull refused: %d file(s) it would change have uncommitted edits here: %s", len(dirty), strings.Join(dirty, ", ")),
		"commit or undo those edits (git status shows them), then pull again").With("files", dirty)
}

// applyPull writes the planned files under the intent log, then lands
// the pull; a failure undoes the files as a crash repair would.
func (v *Vine) applyPull(ctx context.Context, s *remoteState, op string, plan *gitops.MergePlan, opts PullOptions, f *gitops.Fetched) (string, error) {
	if err := s.journal.Begin(op, plan.Ours); err != nil {
		return "", err
	}
	undo := func(err error) (string, error) {
		s.journal.Close()
		if _, rerr := s.recoverer.Recover(context.Background(), false); rerr != nil {
			v.log.Error("a failed pull could not be fully undone; the next open retries", "err", rerr)
		}
		return "", err
	}
	for i, c := range plan.Changes {
		if err := v.applyChange(s, c); err != nil {
			return undo(err)
		}
		opts.report("pull", i+1, len(plan.Changes))
	}
	msg := gitops.Message{Subject: fmt.Sprintf("pull(%s): merge %s/%s", opts.remote(), opts.remote(), f.Branch)}
	head, err := s.repo.FinishMerge(ctx, plan, msg, gitops.Options{When: v.now()})
	if err != nil {
		return undo(err)
	}
	if err := s.journal.End(); err != nil {
		v.log.Error("intent log not ended; the next open settles it", "err", err)
	}
	return head, nil
}

// pruneEmptyDirs removes the folders a landed pull emptied, as a git
// checkout does, so a pulled forest and a fresh clone hold the same tree.
func (v *Vine) pruneEmptyDirs(removed []string) {
	for _, p := range removed {
		dir := filepath.Dir(filepath.Join(v.root.Dir(), filepath.FromSlash(p)))
		for dir != v.root.Dir() && strings.HasPrefix(dir, v.root.Dir()) {
			if os.Remove(dir) != nil { // not empty, or gone: stop
				break
			}
			dir = filepath.Dir(dir)
		}
	}
}

// applyChange writes (or removes) one file of a pull, noting it first.
func (v *Vine) applyChange(s *remoteState, c gitops.Change) error {
	path := filepath.Join(v.root.Dir(), filepath.FromSlash(c.Path))
	if c.Removed() {
		if err := s.journal.Note(journal.Record{Kind: journal.Remove, Path: c.Path}); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := s.repo.Blob(c.Hash)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if top := firstMissing(dir); top != "" {
		rel, _ := filepath.Rel(v.root.Dir(), top)
		if err := s.journal.Note(journal.Record{Kind: journal.Dir, Path: filepath.ToSlash(rel)}); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := s.journal.Note(journal.Record{Kind: journal.Put, Path: c.Path}); err != nil {
		return err
	}
	return writeAtomic(path, data)
}
