// SPDX-License-Identifier: Apache-2.0

package gittest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/monkeyllm/vine/gitops"
)

// SSHServer serves the repositories under one directory over ssh://, as
// a Git host does: the client runs git-upload-pack or git-receive-pack
// with the repository's path, authenticated by one public key.
type SSHServer struct {
	// Addr is host:port; KeyFile the client's PEM private key that the
	// server admits; KnownHosts a known_hosts file naming the server's key.
	Addr       string
	KeyFile    string
	KnownHosts string
	dir        string
	ln         net.Listener
	config     *ssh.ServerConfig
}

// NewSSHServer starts an SSH server of the repositories under dir; the
// test closes it.
func NewSSHServer(t testing.TB, dir string) *SSHServer {
	t.Helper()
	tmp := t.TempDir()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	clientPub, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	s := &SSHServer{dir: dir, KeyFile: filepath.Join(tmp, "id_ed25519"), KnownHosts: filepath.Join(tmp, "known_hosts")}
	if err := os.WriteFile(s.KeyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	admitted, err := ssh.NewPublicKey(clientPub)
	if err != nil {
		t.Fatal(err)
	}
	s.config = &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(admitted.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("key not admitted")
	}}
	s.config.AddHostKey(hostSigner)
	if s.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	s.Addr = s.ln.Addr().String()
	line := knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, hostSigner.PublicKey())
	if err := os.WriteFile(s.KnownHosts, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	go s.accept()
	t.Cleanup(func() { s.ln.Close() })
	return s
}

// RepoURL is the ssh:// address of the repository at <dir>/<name>.
func (s *SSHServer) RepoURL(name string) string {
	return "ssh://git@" + s.Addr + filepath.ToSlash(filepath.Join(s.dir, name))
}

func (s *SSHServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.serveConn(c)
	}
}

func (s *SSHServer) serveConn(c net.Conn) {
	_, chans, reqs, err := ssh.NewServerConn(c, s.config)
	if err != nil {
		c.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go s.serveSession(ch, creqs)
	}
}

// serveSession runs the one exec request a git client sends.
func (s *SSHServer) serveSession(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" || len(req.Payload) < 4 {
			req.Reply(req.Type == "env", nil)
			continue
		}
		n := binary.BigEndian.Uint32(req.Payload)
		cmd := string(req.Payload[4 : 4+n])
		req.Reply(true, nil)
		status := uint32(0)
		if err := s.run(ch, cmd); err != nil {
			fmt.Fprintln(ch.Stderr(), err)
			status = 1
		}
		ch.CloseWrite()
		ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, status))
		return
	}
}

// run serves "git-upload-pack '<path>'" or "git-receive-pack '<path>'".
func (s *SSHServer) run(ch ssh.Channel, cmd string) error {
	service, arg, _ := strings.Cut(cmd, " ")
	path := strings.Trim(arg, "'")
	if _, err := os.Stat(filepath.Join(path, "config")); err != nil || !strings.HasPrefix(filepath.Clean(path), s.dir) {
		return fmt.Errorf("no repository at %s", path)
	}
	st := filesystem.NewStorage(osfs.New(path), cache.NewObjectLRUDefault())
	ep, _ := transport.NewEndpoint("repo")
	srv := server.NewServer(server.MapLoader{ep.String(): st})
	ctx := context.Background()
	switch service {
	case transport.UploadPackServiceName:
		sess, err := srv.NewUploadPackSession(ep, nil)
		if err != nil {
			return err
		}
		ar, err := sess.AdvertisedReferencesContext(ctx)
		if err != nil {
			return err
		}
		if err := ar.Encode(ch); err != nil {
			return err
		}
		req := packp.NewUploadPackRequest()
		if err := req.Decode(plainReader{ch}); err != nil {
			if errors.Is(err, io.EOF) {
				return nil // the client had nothing to fetch
			}
			return err
		}
		gitops.KnownHaves(st, req)
		resp, err := sess.UploadPack(ctx, req)
		if err != nil {
			return err
		}
		defer resp.Close()
		return resp.Encode(ch)
	case transport.ReceivePackServiceName:
		sess, err := srv.NewReceivePackSession(ep, nil)
		if err != nil {
			return err
		}
		ar, err := sess.AdvertisedReferencesContext(ctx)
		if err != nil {
			return err
		}
		if err := ar.Encode(ch); err != nil {
			return err
		}
		req := packp.NewReferenceUpdateRequest()
		if err := req.Decode(plainReader{ch}); err != nil {
			return err
		}
		status, err := sess.ReceivePack(ctx, req)
		if status != nil {
			return status.Encode(ch)
		}
		return err
	}
	return fmt.Errorf("unknown command %q", cmd)
}

// plainReader shows the decoders the channel as a bare io.Reader, as a
// process's stdin would be: decoding a push straight from the ssh.Channel
// (which is also a writer and a closer) ended in EOF before the first
// command, and through a bare reader the same bytes decode.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }
