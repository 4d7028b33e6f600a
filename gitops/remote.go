// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/monkeyllm/vine/envelope"
)

// DefaultRemote is the remote a clone records and push, pull and follow
// use when none is named.
const DefaultRemote = "origin"

// RemoteOptions are the credentials and settings of one exchange with a
// remote. Credentials live only here, for the call: nothing of them is
// written to the repository's config, so a forest never carries a token.
type RemoteOptions struct {
	// Remote names the remote; "" means DefaultRemote.
	Remote string
	// Token authenticates over HTTP(S) (basic auth, the token as the
	// password, as Git hosts expect of personal access tokens).
	Token string
	// Username goes with Token; "" sends "vine".
	Username string
	// SSHKey is the path of a PEM private key for ssh:// remotes, and
	// SSHKeyPassword its passphrase. SSHKnownHosts names a known_hosts
	// file checking the server's key ("" lets go-git use its default
	// files).
	SSHKey         string
	SSHKeyPassword string
	SSHKnownHosts  string
	// Progress receives the remote's progress text (sideband), if set.
	Progress io.Writer
}

func (o RemoteOptions) remote() string {
	if o.Remote == "" {
		return DefaultRemote
	}
	return o.Remote
}

// auth is the transport credential for url, nil when none is set.
func (o RemoteOptions) auth(url string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, err
	}
	switch ep.Protocol {
	case "http", "https":
		if o.Token == "" {
			return nil, nil
		}
		return &githttp.BasicAuth{Username: cmpOr(o.Username, "vine"), Password: o.Token}, nil
	case "ssh":
		if o.SSHKey == "" {
			return nil, nil
		}
		user := cmpOr(ep.User, "git")
		keys, err := gitssh.NewPublicKeysFromFile(user, o.SSHKey, o.SSHKeyPassword)
		if err != nil {
			return nil, invalid(fmt.Sprintf("ssh key %s does not load: %v", filepath.Base(o.SSHKey), err),
				"pass a PEM private key and its passphrase, if it has one")
		}
		if o.SSHKnownHosts != "" {
			cb, err := gitssh.NewKnownHostsCallback(o.SSHKnownHosts)
			if err != nil {
				return nil, invalid(fmt.Sprintf("known_hosts file %s does not load: %v", filepath.Base(o.SSHKnownHosts), err),
					"name a readable known_hosts file")
			}
			keys.HostKeyCallback = cb
		}
		return keys, nil
	}
	return nil, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Remote is one configured remote: its name and URL.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// installTransports replaces go-git's file:// transport, which runs the
// git binary's upload-pack and receive-pack, with go-git's own server in
// process: the engine needs no git binary, for remotes either.
var installTransports = sync.OnceFunc(func() {
	client.InstallProtocol("file", inProcess{})
})

// inProcess is the file:// transport: go-git's protocol server, called in
// process, on the repository repoLoader finds.
type inProcess struct{}

func (inProcess) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	st, err := repoLoader{}.Load(ep)
	if err != nil {
		return nil, err
	}
	sess, err := server.NewClient(server.MapLoader{ep.String(): st}).NewUploadPackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return knownHaves{UploadPackSession: sess, st: st}, nil
}

func (inProcess) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	return server.NewClient(repoLoader{}).NewReceivePackSession(ep, auth)
}

// knownHaves drops from a fetch's "have" lines the commits the serving
// repository does not hold. git's upload-pack ignores those; go-git's
// server fails the fetch on them, so a pull after both sides wrote
// would never get through.
type knownHaves struct {
	transport.UploadPackSession
	st storer.EncodedObjectStorer
}

func (k knownHaves) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	KnownHaves(k.st, req)
	return k.UploadPackSession.UploadPack(ctx, req)
}

// KnownHaves drops from req the haves st does not hold (see knownHaves);
// a server built on go-git's protocol server calls it on each request.
func KnownHaves(st storer.EncodedObjectStorer, req *packp.UploadPackRequest) {
	req.Haves = slices.DeleteFunc(req.Haves, func(h plumbing.Hash) bool { return st.HasEncodedObject(h) != nil })
}

// repoLoader opens the repository a file:// endpoint names: a bare
// repository, or the .git of a worktree (go-git's own loader would read
// the worktree's top level as if it were the git directory).
type repoLoader struct{}

func (repoLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	dir := ep.Path
	if fi, err := os.Stat(filepath.Join(dir, git.GitDirName)); err == nil && fi.IsDir() {
		dir = filepath.Join(dir, git.GitDirName)
	} else if _, err := os.Stat(filepath.Join(dir, "config")); err != nil {
		return nil, transport.ErrRepositoryNotFound
	}
	return filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault()), nil
}

// CheckURL refuses a remote URL go-git cannot reach, or one carrying a
// password: credentials are passed per call, never stored in the forest.
func CheckURL(url string) error {
	if strings.TrimSpace(url) == "" {
		return invalid("url is empty", "name the remote repository: file:///path, https://host/repo.git or ssh://git@host/repo.git")
	}
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return invalid(fmt.Sprintf("url %q is not a git remote: %v", url, err),
			"use file:///path, https://host/repo.git or ssh://git@host/repo.git")
	}
	if ep.Password != "" {
		return invalid("url carries a password; credentials are never stored in the forest",
			"drop the password from the URL and pass it per call (--token or MONKEYLLM_GIT_TOKEN)")
	}
	if !slices.Contains([]string{"file", "http", "https", "ssh"}, ep.Protocol) {
		return invalid(fmt.Sprintf("url scheme %q is not supported", ep.Protocol),
			"use file://, http(s):// or ssh://")
	}
	return nil
}

// open is a go-git view of the repository for remote work, with a
// storage of its own: the fetch writes its pack beside the commit packs,
// never through the commit path's storage.
func (r *Repo) open() (*git.Repository, error) {
	installTransports()
	st := filesystem.NewStorage(r.dot, cache.NewObjectLRUDefault())
	g, err := git.Open(st, nil)
	if err != nil {
		return nil, fmt.Errorf("gitops: open for remote work: %w", err)
	}
	return g, nil
}

// Remotes lists the configured remotes by name.
func (r *Repo) Remotes() ([]Remote, error) {
	g, err := r.open()
	if err != nil {
		return nil, err
	}
	cfg, err := g.Config()
	if err != nil {
		return nil, fmt.Errorf("gitops: read config: %w", err)
	}
	out := []Remote{}
	for name, rc := range cfg.Remotes {
		url := ""
		if len(rc.URLs) > 0 {
			url = rc.URLs[0]
		}
		out = append(out, Remote{Name: name, URL: url})
	}
	slices.SortFunc(out, func(a, b Remote) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// SetRemote records (or replaces) the URL of the named remote, fetching
// every branch into refs/remotes/<name>/. The URL is checked (CheckURL).
func (r *Repo) SetRemote(name, url string) error {
	if err := CheckURL(url); err != nil {
		return err
	}
	if name == "" || strings.ContainsAny(name, "/ \t\n[]\"\\") {
		return invalid(fmt.Sprintf("remote name %q is not a plain name", name), "use a short name such as origin")
	}
	g, err := r.open()
	if err != nil {
		return err
	}
	r.remoteMu.Lock()
	defer r.remoteMu.Unlock()
	cfg, err := g.Config()
	if err != nil {
		return fmt.Errorf("gitops: read config: %w", err)
	}
	cfg.Remotes[name] = &config.RemoteConfig{Name: name, URLs: []string{url},
		Fetch: []config.RefSpec{config.RefSpec(fmt.Sprintf("+refs/heads/*:refs/remotes/%s/*", name))}}
	if err := g.SetConfig(cfg); err != nil {
		return fmt.Errorf("gitops: write config: %w", err)
	}
	return nil
}

// remoteURL is the URL of the named remote, or E_NOT_FOUND.
func remoteURL(g *git.Repository, name string) (string, error) {
	rem, err := g.Remote(name)
	if errors.Is(err, git.ErrRemoteNotFound) {
		return "", envelope.New(envelope.NotFound, fmt.Sprintf("the forest has no remote %q", name),
			"add it with `vine remote set "+name+" URL`, or clone the forest from its origin")
	}
	if err != nil {
		return "", fmt.Errorf("gitops: remote %s: %w", name, err)
	}
	return rem.Config().URLs[0], nil
}

// Branch is the branch HEAD names, "" when HEAD is detached.
func (r *Repo) Branch() (string, error) {
	ref, _, err := headTarget(r.refFiles(r.reader()))
	if err != nil {
		return "", fmt.Errorf("gitops: resolve HEAD: %w", err)
	}
	if !ref.IsBranch() {
		return "", nil
	}
	return ref.Short(), nil
}

// Fetched is what a fetch brought: the remote's URL and the commit its
// copy of the current branch is at.
type Fetched struct {
	URL    string
	Branch string
	Commit string
}

// Fetch brings the named remote's branches into refs/remotes/<remote>/
// and answers the commit of the branch HEAD names there. The worktree,
// the index and the local branch are untouched.
func (r *Repo) Fetch(ctx context.Context, opt RemoteOptions) (*Fetched, error) {
	g, err := r.open()
	if err != nil {
		return nil, err
	}
	name := opt.remote()
	url, err := remoteURL(g, name)
	if err != nil {
		return nil, err
	}
	branch, err := r.Branch()
	if err != nil {
		return nil, err
	}
	if branch == "" {
		return nil, invalid("HEAD is detached, so there is no branch to pull into", "check out the forest's branch with git first")
	}
	auth, err := opt.auth(url)
	if err != nil {
		return nil, err
	}
	r.remoteMu.Lock()
	defer r.remoteMu.Unlock()
	err = g.FetchContext(ctx, &git.FetchOptions{RemoteName: name, Auth: auth, Progress: opt.Progress,
		RefSpecs: []config.RefSpec{config.RefSpec(fmt.Sprintf("+refs/heads/*:refs/remotes/%s/*", name))}, Tags: git.NoTags})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, remoteRefusal("fetch from", url, err)
	}
	ref, err := g.Reference(plumbing.NewRemoteReferenceName(name, branch), true)
	if err != nil {
		return nil, envelope.New(envelope.NotFound,
			fmt.Sprintf("remote %q has no branch %q", name, branch),
			"push this forest's branch there first, or clone the remote instead")
	}
	return &Fetched{URL: url, Branch: branch, Commit: ref.Hash().String()}, nil
}

// Pushed is what a push did.
type Pushed struct {
	URL      string `json:"url"`
	Branch   string `json:"branch"`
	Commit   string `json:"commit"`
	UpToDate bool   `json:"up_to_date"`
}

// Push sends the branch HEAD names to the same branch of the named
// remote. A remote that has commits this repository lacks is refused
// E_CONFLICT: pull (and merge) first.
func (r *Repo) Push(ctx context.Context, opt RemoteOptions) (*Pushed, error) {
	g, err := r.open()
	if err != nil {
		return nil, err
	}
	name := opt.remote()
	url, err := remoteURL(g, name)
	if err != nil {
		return nil, err
	}
	branch, err := r.Branch()
	if err != nil {
		return nil, err
	}
	if branch == "" {
		return nil, invalid("HEAD is detached, so there is no branch to push", "check out the forest's branch with git first")
	}
	head, err := r.Head()
	if err != nil {
		return nil, err
	}
	auth, err := opt.auth(url)
	if err != nil {
		return nil, err
	}
	r.remoteMu.Lock()
	defer r.remoteMu.Unlock()
	spec := config.RefSpec(fmt.Sprintf("refs/heads/%s:refs/heads/%s", branch, branch))
	err = g.PushContext(ctx, &git.PushOptions{RemoteName: name, Auth: auth, Progress: opt.Progress,
		RefSpecs: []config.RefSpec{spec}})
	out := &Pushed{URL: url, Branch: branch, Commit: head}
	switch {
	case errors.Is(err, git.NoErrAlreadyUpToDate):
		out.UpToDate = true
	case errors.Is(err, git.ErrNonFastForwardUpdate) || err != nil && strings.Contains(err.Error(), "non-fast-forward"):
		return nil, envelope.New(envelope.Conflict,
			fmt.Sprintf("remote %q has commits on %s that this forest does not have, so a push would lose them", name, branch),
			"pull first (vine pull), which fast-forwards or merges, then push again")
	case err != nil:
		return nil, remoteRefusal("push to", url, err)
	}
	// Keep the remote-tracking branch in step, as git does after a push.
	_ = g.Storer.SetReference(plumbing.NewHashReference(plumbing.NewRemoteReferenceName(name, branch), plumbing.NewHash(head)))
	return out, nil
}

// Clone copies the repository at url into dir (which must not exist, or
// be empty) and checks out its default branch; the remote is recorded as
// DefaultRemote, without credentials. On failure dir is removed again.
func Clone(ctx context.Context, url, dir string, opt RemoteOptions) (*Repo, error) {
	installTransports()
	if err := CheckURL(url); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("gitops: clone into %s: %w", dir, err)
	}
	if ents, err := os.ReadDir(abs); err == nil && len(ents) > 0 {
		return nil, invalid(fmt.Sprintf("clone target %s exists and is not empty", filepath.Base(abs)),
			"clone into a new or empty directory")
	}
	made := firstAbsent(abs)
	auth, err := opt.auth(url)
	if err != nil {
		return nil, err
	}
	_, err = git.PlainCloneContext(ctx, abs, false, &git.CloneOptions{URL: url, Auth: auth,
		RemoteName: opt.remote(), Progress: opt.Progress, Tags: git.NoTags})
	if err != nil {
		if made != "" {
			os.RemoveAll(made)
		} else {
			clearDir(abs)
		}
		return nil, remoteRefusal("clone", url, err)
	}
	return Open(abs)
}

// firstAbsent is the outermost missing directory on the way to dir, ""
// when dir exists.
func firstAbsent(dir string) string {
	top := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			return top
		}
		top = d
		if filepath.Dir(d) == d {
			return top
		}
	}
}

// clearDir empties a directory that existed empty before a failed clone.
func clearDir(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// remoteRefusal is the envelope of a failed exchange with a remote.
func remoteRefusal(what, url string, err error) error {
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return envelope.New(envelope.NotFound, fmt.Sprintf("%s %s: no repository there", what, redactURL(url)),
			"check the URL; a file:// remote must be a git repository (bare, or a forest's root)")
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, transport.ErrInvalidAuthMethod):
		return envelope.New(envelope.Forbidden, fmt.Sprintf("%s %s: the remote refused the credentials", what, redactURL(url)),
			"pass a token with --token (or MONKEYLLM_GIT_TOKEN), or an SSH key with --ssh-key")
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return envelope.New(envelope.NotFound, fmt.Sprintf("%s %s: the remote repository is empty", what, redactURL(url)),
			"push a forest there first")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return envelope.New(envelope.Schema, fmt.Sprintf("%s %s failed: %v", what, redactURL(url), err),
		"check the URL, the network and the credentials, then retry")
}

// redactURL drops user information from a URL before it is shown.
func redactURL(url string) string {
	ep, err := transport.NewEndpoint(url)
	if err != nil || ep.User == "" && ep.Password == "" {
		return url
	}
	ep.User, ep.Password = "", ""
	return ep.String()
}
