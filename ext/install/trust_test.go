// SPDX-License-Identifier: Apache-2.0

package install_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext/install"
)

// forge is a test forge: it publishes OpenPGP keys per account in
// GitHub's shape, and owns local repositories as if they were hosted.
type forge struct {
	keys   map[string][]string // account -> armored public keys
	ssh    map[string][]string // account -> SSH signing keys, authorized_keys lines
	owners map[string]string   // repository dir -> account
	down   bool
	srv    *httptest.Server
}

func newForge(t *testing.T) *forge {
	f := &forge{keys: map[string][]string{}, ssh: map[string][]string{}, owners: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		account, list, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/users/"), "/")
		if f.down {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		out := []map[string]any{}
		switch list {
		case "gpg_keys":
			for i, k := range f.keys[account] {
				out = append(out, map[string]any{"id": i, "raw_key": k})
			}
			out = append(out, map[string]any{"id": 99, "raw_key": nil}) // older keys carry none
		case "ssh_signing_keys":
			for i, k := range f.ssh[account] {
				out = append(out, map[string]any{"id": i, "key": k})
			}
		default:
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *forge) trust() install.Trust {
	return install.Trust{
		Keys:    install.GitHubKeys(f.srv.URL, f.srv.Client()),
		SSHKeys: install.GitHubSSHKeys(f.srv.URL, f.srv.Client()),
		Owner: func(loc string) (string, string, bool) {
			a, ok := f.owners[loc]
			return "github.com", a, ok
		},
	}
}

// newKey makes an OpenPGP key and publishes it for account.
func (f *forge) newKey(t *testing.T, account string) *openpgp.Entity {
	t.Helper()
	e, err := openpgp.NewEntity(account, "", account+"@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	require.NoError(t, err)
	var buf bytes.Buffer
	w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
	require.NoError(t, err)
	require.NoError(t, e.Serialize(w))
	require.NoError(t, w.Close())
	f.keys[account] = append(f.keys[account], buf.String())
	return e
}

// tag tags the repository's head, signed with key when it is set.
func tag(t *testing.T, repo *git.Repository, name string, key *openpgp.Entity) {
	t.Helper()
	head, err := repo.Head()
	require.NoError(t, err)
	_ = repo.DeleteTag(name)
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}
	_, err = repo.CreateTag(name, head.Hash(), &git.CreateTagOptions{Tagger: sig, Message: name, SignKey: key})
	require.NoError(t, err)
}

func trusted(f *forge) install.Options {
	opt := kitOptions()
	opt.Trust = f.trust()
	return opt
}

// TestSignedTag is F.194 (and F.185's second half): a tag signed by a
// key the forge publishes for the repository's owner installs signed
// with no acknowledgement, the identity recorded; another verifying
// identity for the same id, or an unverified source, is refused until
// acknowledged.
func TestSignedTag(t *testing.T) {
	f := newForge(t)
	ada := f.newKey(t, "ada")
	tree := orgTree(t)
	dir, repo := gitRepo(t, tree)
	f.owners[dir] = "ada"
	tag(t, repo, "v0.1.0", ada)
	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	ctx := context.Background()

	res, err := home.Install(ctx, dir+"@v0.1.0", trusted(f))
	require.NoError(t, err, "a signed tag needs no acknowledgement")
	assert.Equal(t, install.TierSigned, res.Tier)
	require.NotNil(t, res.Identity)
	assert.Equal(t, "github.com", res.Identity.Forge)
	assert.Equal(t, "ada", res.Identity.Account)
	require.Len(t, res.Identity.Keys, 1)
	assert.Equal(t, strings.ToUpper(ada.PrimaryKey.KeyIdString()), res.Identity.Keys[0][24:], "the fingerprint of the key that verified")
	rec, err := home.Lookup("org")
	require.NoError(t, err)
	assert.Equal(t, res.Identity, rec.Identity, "the identity is recorded")

	bob := f.newKey(t, "bob")
	fork, forkRepo := gitRepo(t, tree)
	f.owners[fork] = "bob"
	tag(t, forkRepo, "v0.1.0", bob)
	_, err = home.Install(ctx, fork+"@v0.1.0", trusted(f))
	assert.Equal(t, "identity_changed", reasonOf(err), "%v", err)
	after, _ := home.Lookup("org")
	assert.Equal(t, rec, after, "a refusal changes nothing")

	plain, plainRepo := gitRepo(t, tree)
	tag(t, plainRepo, "v0.1.0", nil)
	_, err = home.Install(ctx, plain+"@v0.1.0", trusted(f))
	assert.Equal(t, "tier_downgrade", reasonOf(err), "signed to unsigned: %v", err)

	opt := trusted(f)
	opt.Acknowledge = true
	res, err = home.Install(ctx, fork+"@v0.1.0", opt)
	require.NoError(t, err, "acknowledged, the new identity installs")
	assert.Equal(t, "bob", res.Identity.Account)
	assert.Equal(t, install.TierSigned, res.Tier)
}

// TestSignatureNeverRaises: whatever goes wrong with a signature lowers
// the tier to unverified and says why; it never fails the resolve.
func TestSignatureNeverRaises(t *testing.T) {
	tree := orgTree(t)
	tests := []struct {
		name, reason string
		setup        func(f *forge, dir string, repo *git.Repository)
	}{
		{"unsigned", "is not signed", func(f *forge, dir string, repo *git.Repository) {
			f.owners[dir] = "ada"
			tag(t, repo, "v1", nil)
		}},
		{"a key the forge does not publish", "by none of the 1 OpenPGP keys github.com publishes for ada", func(f *forge, dir string, repo *git.Repository) {
			f.owners[dir] = "ada"
			f.newKey(t, "ada")
			stranger := f.newKey(t, "mallory")
			tag(t, repo, "v1", stranger)
		}},
		{"the forge unreachable", "could not be read", func(f *forge, dir string, repo *git.Repository) {
			f.owners[dir] = "ada"
			tag(t, repo, "v1", f.newKey(t, "ada"))
			f.down = true
		}},
		{"no forge owns the repository", "on no forge", func(f *forge, dir string, repo *git.Repository) {
			tag(t, repo, "v1", f.newKey(t, "ada"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newForge(t)
			dir, repo := gitRepo(t, tree)
			tc.setup(f, dir, repo)
			home, err := install.Open(t.TempDir())
			require.NoError(t, err)
			p, err := home.Plan(context.Background(), dir+"@v1", trusted(f))
			require.NoError(t, err)
			assert.Equal(t, install.TierUnverified, p.Tier)
			assert.Nil(t, p.Identity)
			assert.Contains(t, p.Reason, tc.reason)
		})
	}
}

func TestForgeOwner(t *testing.T) {
	tests := []struct{ loc, forge, account string }{
		{"https://github.com/ada/whisper", "github.com", "ada"},
		{"https://github.com/ada/whisper.git", "github.com", "ada"},
		{"git@github.com:ada/whisper.git", "github.com", "ada"},
		{"https://codeberg.org/bob/x", "codeberg.org", "bob"},
		{"https://example.com/ada/whisper", "", ""},
		{"/srv/git/whisper", "", ""},
		{"https://github.com/ada", "", ""},
		{"https://gitlab.com/ada/whisper.git", "gitlab.com", "ada"},
		{"https://gitlab.com/group/sub/whisper", "gitlab.com", "group"},
		{"git@gitlab.com:ada/whisper.git", "gitlab.com", "ada"},
		{"ssh://git@gitlab.com/ada/whisper.git", "gitlab.com", "ada"},
		{"ssh://git@codeberg.org:22/bob/x", "codeberg.org", "bob"},
		{"git@codeberg.org:bob/x.git", "codeberg.org", "bob"},
		{"https://Codeberg.org/bob/x", "codeberg.org", "bob"},
		{"https://git.example.org/ada/whisper", "", ""},
		{"ssh://ada@/whisper", "", ""},
	}
	for _, tc := range tests {
		forge, account, ok := install.ForgeOwner(tc.loc)
		assert.Equal(t, tc.forge != "", ok, tc.loc)
		assert.Equal(t, tc.forge, forge, tc.loc)
		assert.Equal(t, tc.account, account, tc.loc)
	}
}

// TestForgeOwnerOfConfiguredHosts: a host Trust.Forges configures is a
// forge like the public ones; the defaults stay known beside it.
func TestForgeOwnerOfConfiguredHosts(t *testing.T) {
	tr := install.Trust{Forges: map[string]string{"Git.Example.org": install.ForgeGitLab, "forgejo.example.net": install.ForgeGitea}}
	tests := []struct{ loc, forge, account string }{
		{"https://git.example.org/ada/whisper", "git.example.org", "ada"},
		{"git@git.example.org:ada/whisper.git", "git.example.org", "ada"},
		{"ssh://git@forgejo.example.net:2222/bob/x.git", "forgejo.example.net", "bob"},
		{"https://github.com/ada/whisper", "github.com", "ada"},
		{"https://other.example.org/ada/whisper", "", ""},
	}
	for _, tc := range tests {
		forge, account, ok := tr.OwnerOf(tc.loc)
		assert.Equal(t, tc.forge != "", ok, tc.loc)
		assert.Equal(t, tc.forge, forge, tc.loc)
		assert.Equal(t, tc.account, account, tc.loc)
	}
}

// writeIndex writes an index pointing id at source and expecting
// account, signed with key (nil: unsigned).
func writeIndex(t *testing.T, entries map[string][2]string, key ed25519.PrivateKey) string {
	t.Helper()
	idx := map[string]any{}
	for id, e := range entries {
		idx[id] = map[string]any{"source": e[0], "identity": map[string]any{"account": e[1]}}
	}
	data, err := json.Marshal(map[string]any{"extensions": idx})
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "index.json")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	if key != nil {
		require.NoError(t, os.WriteFile(p+install.IndexSigSuffix, install.SignIndex(key, data), 0o644))
	}
	return p
}

// TestIndexDoor: an id installs from the index's source; verified when
// the identity that verified the tag is the one the index expects,
// refused otherwise until acknowledged; the index itself must carry a
// signature by the trusted key.
func TestIndexDoor(t *testing.T) {
	f := newForge(t)
	ada := f.newKey(t, "ada")
	tree := orgTree(t)
	dir, repo := gitRepo(t, tree)
	f.owners[dir] = "ada"
	tag(t, repo, "v0.1.0", ada)
	plain, plainRepo := gitRepo(t, tree)
	f.owners[plain] = "ada"
	tag(t, plainRepo, "v0.1.0", nil)
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	_, otherPriv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)

	tests := []struct {
		name    string
		source  string
		account string
		signer  ed25519.PrivateKey
		key     ed25519.PublicKey
		reason  string // "" = installs verified
	}{
		{"the expected identity", dir + "@v0.1.0", "ada", priv, pub, ""},
		{"another identity", dir + "@v0.1.0", "bob", priv, pub, "identity_changed"},
		{"an unsigned tag", plain + "@v0.1.0", "ada", priv, pub, "index"},
		{"an unsigned index", dir + "@v0.1.0", "ada", nil, pub, "index"},
		{"an index signed by another key", dir + "@v0.1.0", "ada", otherPriv, pub, "index"},
		{"no trusted key configured", dir + "@v0.1.0", "ada", priv, nil, "index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, err := install.Open(t.TempDir())
			require.NoError(t, err)
			opt := trusted(f)
			opt.Trust.Index = writeIndex(t, map[string][2]string{"org": {tc.source, tc.account}}, tc.signer)
			opt.Trust.IndexKey = tc.key
			res, err := home.Install(context.Background(), "org", opt)
			if tc.reason != "" {
				assert.Equal(t, tc.reason, reasonOf(err), "%v", err)
				ids, _ := home.IDs()
				assert.Empty(t, ids)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, install.TierVerified, res.Tier)
			assert.Equal(t, "index", res.Kind)
			assert.Equal(t, dir+"@v0.1.0", res.Source)
			assert.Equal(t, "ada", res.Identity.Account)
			up, err := home.Update(context.Background(), "org", opt)
			require.NoError(t, err, "an update goes through the index again")
			assert.Equal(t, install.TierVerified, up.Tier)
			assert.False(t, up.Changed)
			stale, err := home.Outdated(context.Background(), opt.Trust)
			require.NoError(t, err)
			require.Len(t, stale, 1)
			assert.Empty(t, stale[0].Error)
			assert.False(t, stale[0].Behind)
		})
	}

	home, err := install.Open(t.TempDir())
	require.NoError(t, err)
	opt := trusted(f)
	_, err = home.Install(context.Background(), "whisper", opt)
	assert.Equal(t, "index", reasonOf(err), "no index configured: %v", err)
	opt.Trust.Index, opt.Trust.IndexKey = writeIndex(t, map[string][2]string{"org": {dir + "@v0.1.0", "ada"}}, priv), pub
	_, err = home.Install(context.Background(), "whisper", opt)
	assert.Equal(t, "index", reasonOf(err), "an id the index lacks: %v", err)
	opt.Trust.Index = writeIndex(t, map[string][2]string{"whisper": {dir + "@v0.1.0", "ada"}}, priv)
	_, err = home.Install(context.Background(), "whisper", opt)
	assert.Equal(t, "index", reasonOf(err), "the entry whisper points at org: %v", err)
	ids, _ := home.IDs()
	assert.Empty(t, ids)
}
