// SPDX-License-Identifier: Apache-2.0

package install_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/monkeyllm/vine/ext/install"
)

// newSSHKey makes an SSH signing key and, when account is set,
// publishes it for account.
func (f *forge) newSSHKey(t *testing.T, account string) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	signer, err := ssh.NewSignerFromKey(priv)
	require.NoError(t, err)
	if account != "" {
		f.ssh[account] = append(f.ssh[account], string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	}
	return signer
}

// sshTag tags the repository's head as git does with gpg.format=ssh:
// an SSHSIG in the "git" namespace over the tag without its signature.
func sshTag(t *testing.T, repo *git.Repository, name string, signer ssh.Signer) {
	t.Helper()
	head, err := repo.Head()
	require.NoError(t, err)
	tag := &object.Tag{Name: name, Message: name + "\n", TargetType: plumbing.CommitObject, Target: head.Hash(),
		Tagger: object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}}
	mem := &plumbing.MemoryObject{}
	require.NoError(t, tag.EncodeWithoutSignature(mem))
	r, err := mem.Reader()
	require.NoError(t, err)
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	sum := sha512.Sum512(data)
	signed := append([]byte("SSHSIG"), ssh.Marshal(struct {
		Namespace, Reserved, HashAlg string
		Hash                         []byte
	}{"git", "", "sha512", sum[:]})...)
	sig, err := signer.Sign(rand.Reader, signed)
	require.NoError(t, err)
	blob := append([]byte("SSHSIG"), ssh.Marshal(struct {
		Version                      uint32
		PublicKey                    []byte
		Namespace, Reserved, HashAlg string
		Signature                    []byte
	}{1, signer.PublicKey().Marshal(), "git", "", "sha512", ssh.Marshal(sig)})...)
	b64 := base64.StdEncoding.EncodeToString(blob)
	var lines []string
	for len(b64) > 70 {
		lines, b64 = append(lines, b64[:70]), b64[70:]
	}
	tag.PGPSignature = "-----BEGIN SSH SIGNATURE-----\n" + strings.Join(append(lines, b64), "\n") + "\n-----END SSH SIGNATURE-----\n"
	obj := repo.Storer.NewEncodedObject()
	require.NoError(t, tag.Encode(obj))
	h, err := repo.Storer.SetEncodedObject(obj)
	require.NoError(t, err)
	require.NoError(t, repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewTagReferenceName(name), h)))
}

// TestSSHSignedTag: a tag signed with an SSH key the forge publishes as
// the owner's signing key installs signed, its key named by its SHA256
// fingerprint; any other SSH key leaves it unverified, saying why.
func TestSSHSignedTag(t *testing.T) {
	tree := orgTree(t)
	tests := []struct {
		name, tier, reason string
		signer             func(f *forge) ssh.Signer
	}{
		{"a published key", install.TierSigned, "signed by a key github.com publishes for ada",
			func(f *forge) ssh.Signer { return f.newSSHKey(t, "ada") }},
		{"an unpublished key", install.TierUnverified, "by none of the 1 SSH signing keys",
			func(f *forge) ssh.Signer { f.newSSHKey(t, "ada"); return f.newSSHKey(t, "") }},
		{"another account's key", install.TierUnverified, "by none of the 0 SSH signing keys",
			func(f *forge) ssh.Signer { return f.newSSHKey(t, "mallory") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newForge(t)
			dir, repo := gitRepo(t, tree)
			f.owners[dir] = "ada"
			signer := tc.signer(f)
			sshTag(t, repo, "v1", signer)
			home, err := install.Open(t.TempDir())
			require.NoError(t, err)
			p, err := home.Plan(context.Background(), dir+"@v1", trusted(f))
			require.NoError(t, err)
			assert.Equal(t, tc.tier, p.Tier, p.Reason)
			assert.Contains(t, p.Reason, tc.reason)
			if tc.tier == install.TierSigned {
				require.NotNil(t, p.Identity)
				assert.Equal(t, []string{ssh.FingerprintSHA256(signer.PublicKey())}, p.Identity.Keys)
			}
		})
	}
}

// TestSSHSignedTagByGit checks the verifier against git's own SSH
// signing (ssh-keygen -Y sign), when both tools are on this machine.
func TestSSHSignedTagByGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git binary")
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("no ssh-keygen")
	}
	work := t.TempDir()
	run := func(dir, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + work, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + filepath.Dir(gitBin) + ":/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %v: %s", name, args, out)
	}
	key := filepath.Join(work, "id_ed25519")
	run(work, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
	dir, _ := gitRepo(t, orgTree(t))
	run(dir, "git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "-c", "gpg.format=ssh",
		"-c", "user.signingkey="+key+".pub", "tag", "-s", "v1", "-m", "v1")
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)

	f := newForge(t)
	f.owners[dir] = "ada"
	f.ssh["ada"] = []string{string(pub)}
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	p, err := home.Plan(context.Background(), dir+"@v1", trusted(f))
	require.NoError(t, err)
	assert.Equal(t, install.TierSigned, p.Tier, p.Reason)
}
