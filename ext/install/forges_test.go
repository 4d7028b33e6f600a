// SPDX-License-Identifier: Apache-2.0

package install_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/monkeyllm/vine/ext/install"
)

// otherForge serves the keys of a test forge (its keys and ssh maps) as
// GitLab's API, Gitea's, or a self-hosted GitHub's (under /api/v3), over TLS so the default https base of a
// configured host reaches it.
type otherForge struct {
	*forge
	// authOnly marks accounts whose SSH keys GitLab lists for
	// authentication only: they must not verify a signature.
	authOnly map[string]bool
	tls      *httptest.Server
}

func newOtherForge(t *testing.T, kind string) *otherForge {
	o := &otherForge{forge: newForge(t), authOnly: map[string]bool{}}
	accounts := func() []string {
		var out []string
		for a := range o.keys {
			out = append(out, a)
		}
		for a := range o.ssh {
			out = append(out, a)
		}
		// Sorted and deduplicated, so a user's id is stable between the
		// lookup and the keys request.
		slices.Sort(out)
		return slices.Compact(out)
	}
	byID := func(s string) string {
		n, _ := strconv.Atoi(s)
		if as := accounts(); n > 0 && n <= len(as) {
			return as[n-1]
		}
		return ""
	}
	o.tls = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := []map[string]any{}
		p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		switch {
		case kind == install.ForgeGitLab && r.URL.Path == "/api/v4/users":
			for i, a := range accounts() {
				if a == r.URL.Query().Get("username") {
					out = append(out, map[string]any{"id": i + 1, "username": a})
					break
				}
			}
		case kind == install.ForgeGitLab && len(p) == 5 && p[4] == "gpg_keys":
			for i, k := range o.keys[byID(p[3])] {
				out = append(out, map[string]any{"id": i, "key": k})
			}
		case kind == install.ForgeGitLab && len(p) == 5 && p[4] == "keys":
			a := byID(p[3])
			for i, k := range o.ssh[a] {
				usage := "auth_and_signing"
				if o.authOnly[a] {
					usage = "auth"
				}
				out = append(out, map[string]any{"id": i, "key": k, "usage_type": usage})
			}
		case kind == install.ForgeGitHub && len(p) == 5 && p[1] == "v3" && p[4] == "gpg_keys":
			for i, k := range o.keys[p[3]] {
				out = append(out, map[string]any{"id": i, "raw_key": k})
			}
		case kind == install.ForgeGitHub && len(p) == 5 && p[1] == "v3" && p[4] == "ssh_signing_keys":
			for i, k := range o.ssh[p[3]] {
				out = append(out, map[string]any{"id": i, "key": k})
			}
		case kind == install.ForgeGitea && len(p) == 5 && p[4] == "gpg_keys":
			for i, k := range o.keys[p[3]] {
				out = append(out, map[string]any{"id": i, "public_key": k})
			}
		case kind == install.ForgeGitea && len(p) == 5 && p[4] == "keys":
			for i, k := range o.ssh[p[3]] {
				out = append(out, map[string]any{"id": i, "key": k})
			}
		default:
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(o.tls.Close)
	return o
}

// host is the forge's host, as a Trust's Forges names it.
func (o *otherForge) host() string { return strings.TrimPrefix(o.tls.URL, "https://") }

// trust reads keys through the default ForgeKeys, the test server's
// host configured as kind.
func (o *otherForge) trust(kind string) install.Trust {
	return install.Trust{
		Forges: map[string]string{o.host(): kind},
		Client: o.tls.Client(),
		Owner: func(loc string) (string, string, bool) {
			a, ok := o.owners[loc]
			return o.host(), a, ok
		},
	}
}

// TestOtherForges: a tag signed with an OpenPGP or SSH key a GitLab or
// a Gitea/Forgejo publishes for the owner verifies signed, found
// through the host's configured kind; a key it does not publish, an
// authentication-only GitLab key, or a host of no known kind leaves it
// unverified, saying why.
func TestOtherForges(t *testing.T) {
	tree := orgTree(t)
	tests := []struct {
		name, kind string
		sign       func(o *otherForge, dir string) any // an *openpgp.Entity or an ssh.Signer
		tier       string
		reason     string
		unknown    bool // the host is configured as no kind
	}{
		{name: "gitlab openpgp", kind: install.ForgeGitLab, tier: install.TierSigned, reason: "publishes for ada",
			sign: func(o *otherForge, _ string) any { return o.newKey(t, "ada") }},
		{name: "gitlab ssh signing", kind: install.ForgeGitLab, tier: install.TierSigned, reason: "publishes for ada",
			sign: func(o *otherForge, _ string) any { return o.newSSHKey(t, "ada") }},
		{name: "gitlab ssh for authentication only", kind: install.ForgeGitLab, tier: install.TierUnverified,
			reason: "by none of the 0 SSH signing keys",
			sign:   func(o *otherForge, _ string) any { o.authOnly["ada"] = true; return o.newSSHKey(t, "ada") }},
		{name: "gitlab unpublished openpgp", kind: install.ForgeGitLab, tier: install.TierUnverified, reason: "by none of the 1 OpenPGP keys",
			sign: func(o *otherForge, _ string) any { o.newKey(t, "ada"); return o.newKey(t, "mallory") }},
		{name: "gitlab no such user", kind: install.ForgeGitLab, tier: install.TierUnverified, reason: "has no user ada",
			sign: func(o *otherForge, _ string) any { return o.newKey(t, "mallory") }},
		{name: "gitea openpgp", kind: install.ForgeGitea, tier: install.TierSigned, reason: "publishes for ada",
			sign: func(o *otherForge, _ string) any { return o.newKey(t, "ada") }},
		{name: "gitea ssh", kind: install.ForgeGitea, tier: install.TierSigned, reason: "publishes for ada",
			sign: func(o *otherForge, _ string) any { return o.newSSHKey(t, "ada") }},
		{name: "gitea unpublished ssh", kind: install.ForgeGitea, tier: install.TierUnverified, reason: "by none of the 1 SSH signing keys",
			sign: func(o *otherForge, _ string) any { o.newSSHKey(t, "ada"); return o.newSSHKey(t, "") }},
		{name: "a self-hosted github openpgp", kind: install.ForgeGitHub, tier: install.TierSigned, reason: "publishes for ada",
			sign: func(o *otherForge, _ string) any { return o.newKey(t, "ada") }},
		{name: "a self-hosted github ssh", kind: install.ForgeGitHub, tier: install.TierSigned, reason: "publishes for ada",
			sign: func(o *otherForge, _ string) any { return o.newSSHKey(t, "ada") }},
		{name: "a forge of no known kind", kind: install.ForgeGitea, unknown: true, tier: install.TierUnverified,
			reason: "knows no key API for the forge 127.0.0.1",
			sign:   func(o *otherForge, _ string) any { return o.newKey(t, "ada") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := newOtherForge(t, tc.kind)
			dir, repo := gitRepo(t, tree)
			o.owners[dir] = "ada"
			key := tc.sign(o, dir)
			if signer, ok := key.(ssh.Signer); ok {
				sshTag(t, repo, "v1", signer)
			} else {
				tag(t, repo, "v1", key.(*openpgp.Entity))
			}
			tr := o.trust(tc.kind)
			if tc.unknown {
				tr.Forges = nil
			}
			opt := kitOptions()
			opt.Trust = tr
			home, err := install.Open(t.TempDir())
			require.NoError(t, err)
			p, err := home.Plan(context.Background(), dir+"@v1", opt)
			require.NoError(t, err, "verification never fails a resolve")
			assert.Equal(t, tc.tier, p.Tier, p.Reason)
			assert.Contains(t, p.Reason, tc.reason)
			if tc.tier == install.TierSigned {
				require.NotNil(t, p.Identity)
				assert.Equal(t, o.host(), p.Identity.Forge)
				assert.Equal(t, "ada", p.Identity.Account)
			}
		})
	}
}
