// SPDX-License-Identifier: Apache-2.0

// Package gittest serves git repositories to tests the way a Git host
// does, in process: bare repositories made on the fly, and a smart-HTTP
// server (upload-pack for fetch and clone, receive-pack for push) built on
// go-git's protocol server, so remote tests need neither a git binary nor
// the network. A server may demand a bearer token, to test credentials.
package gittest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/monkeyllm/vine/gitops"
)

// Bare makes an empty bare repository in a temporary directory, its HEAD
// on main as a Git host's default branch, and answers its path.
func Bare(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "origin.git")
	opts := &git.PlainInitOptions{Bare: true, InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}}
	if _, err := git.PlainInitWithOptions(dir, opts); err != nil {
		t.Fatalf("init bare repository: %v", err)
	}
	return dir
}

// FileURL is the file:// URL of a local repository.
func FileURL(dir string) string { return "file://" + filepath.ToSlash(dir) }

// Server serves the bare repositories under one directory over smart
// HTTP: http://host/<name> is <dir>/<name>.
type Server struct {
	*httptest.Server
	dir string
	// mu lets fetches run together and a push alone, as a Git host's
	// ref transactions make a push atomic to its readers.
	mu sync.RWMutex
	// Token, when set, is the password every request must carry (basic
	// auth, any user name), as a Git host checks a personal access token.
	Token string
}

// NewServer starts a server of the repositories under dir; the test
// closes it.
func NewServer(t testing.TB, dir string) *Server {
	s := &Server{dir: dir}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// URL is the address of the repository at <dir>/<name>.
func (s *Server) RepoURL(name string) string { return s.Server.URL + "/" + name }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Token != "" {
		if _, pass, ok := r.BasicAuth(); !ok || pass != s.Token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
	}
	path := r.URL.Path
	var name, service string
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/info/refs"):
		name, service = strings.TrimSuffix(path, "/info/refs"), r.URL.Query().Get("service")
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/git-upload-pack"):
		name, service = strings.TrimSuffix(path, "/git-upload-pack"), transport.UploadPackServiceName
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/git-receive-pack"):
		name, service = strings.TrimSuffix(path, "/git-receive-pack"), transport.ReceivePackServiceName
	default:
		http.NotFound(w, r)
		return
	}
	if service == transport.ReceivePackServiceName && r.Method == http.MethodPost {
		s.mu.Lock()
		defer s.mu.Unlock()
	} else {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	repo := filepath.Join(s.dir, filepath.FromSlash(strings.TrimPrefix(name, "/")))
	if _, err := os.Stat(filepath.Join(repo, "config")); err != nil {
		http.NotFound(w, r)
		return
	}
	st := filesystem.NewStorage(osfs.New(repo), cache.NewObjectLRUDefault())
	ep, _ := transport.NewEndpoint("repo")
	srv := server.NewServer(server.MapLoader{ep.String(): st})
	var err error
	if r.Method == http.MethodGet {
		err = advertise(r.Context(), w, srv, ep, service)
	} else {
		err = exchange(r, w, srv, st, ep, service)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// advertise answers GET info/refs: the service line, then the refs.
func advertise(ctx context.Context, w http.ResponseWriter, srv transport.Transport, ep *transport.Endpoint, service string) error {
	var ar *packp.AdvRefs
	var err error
	switch service {
	case transport.UploadPackServiceName:
		var sess transport.UploadPackSession
		if sess, err = srv.NewUploadPackSession(ep, nil); err == nil {
			ar, err = sess.AdvertisedReferencesContext(ctx)
		}
	case transport.ReceivePackServiceName:
		var sess transport.ReceivePackSession
		if sess, err = srv.NewReceivePackSession(ep, nil); err == nil {
			ar, err = sess.AdvertisedReferencesContext(ctx)
		}
	default:
		return fmt.Errorf("unknown service %q", service)
	}
	if err != nil {
		return err
	}
	ar.Prefix = [][]byte{[]byte("# service=" + service), pktline.Flush}
	w.Header().Set("Content-Type", "application/x-"+service+"-advertisement")
	w.Header().Set("Cache-Control", "no-cache")
	return ar.Encode(w)
}

// exchange answers POST git-upload-pack and git-receive-pack.
func exchange(r *http.Request, w http.ResponseWriter, srv transport.Transport, st storer.EncodedObjectStorer, ep *transport.Endpoint, service string) error {
	ctx := r.Context()
	w.Header().Set("Content-Type", "application/x-"+service+"-result")
	if service == transport.UploadPackServiceName {
		sess, err := srv.NewUploadPackSession(ep, nil)
		if err != nil {
			return err
		}
		req := packp.NewUploadPackRequest()
		if err := req.Decode(r.Body); err != nil {
			return err
		}
		gitops.KnownHaves(st, req)
		resp, err := sess.UploadPack(ctx, req)
		if err != nil {
			return err
		}
		defer resp.Close()
		return resp.Encode(w)
	}
	sess, err := srv.NewReceivePackSession(ep, nil)
	if err != nil {
		return err
	}
	req := packp.NewReferenceUpdateRequest()
	if err := req.Decode(r.Body); err != nil {
		return err
	}
	status, err := sess.ReceivePack(ctx, req)
	if status != nil {
		if eerr := status.Encode(w); eerr != nil {
			return eerr
		}
		return nil
	}
	return err
}
