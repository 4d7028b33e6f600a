// SPDX-License-Identifier: Apache-2.0

package install

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Identity is who verified an artifact: the forge account whose
// published key signed the tag. A compromised forge account is a
// compromised extension; that is the stated cost of the signed tier.
type Identity struct {
	Forge   string `json:"forge"`
	Account string `json:"account"`
	// Keys are the fingerprints of the published keys that verified.
	Keys []string `json:"keys,omitempty"`
}

// same reports whether two identities name the same forge account;
// a rotated key under the same account is the same identity.
func (i *Identity) same(o *Identity) bool {
	return strings.EqualFold(i.Forge, o.Forge) && strings.EqualFold(i.Account, o.Account)
}

func (i *Identity) String() string { return i.Forge + "/" + i.Account }

// KeyFetcher returns the armored OpenPGP public keys a forge publishes
// for an account, one key per string.
type KeyFetcher func(ctx context.Context, forge, account string) ([]string, error)

// GitHubAPI is the GitHub API the default KeyFetcher reads.
const GitHubAPI = "https://api.github.com"

// maxKeysBody caps a forge's answer: keys are a few KiB each.
const maxKeysBody = 1 << 20

// keysTimeout bounds one fetch of published keys, so a forge that does
// not answer lowers the tier instead of hanging the install.
const keysTimeout = 30 * time.Second

// GitHubKeys is the KeyFetcher of a GitHub API at base (GitHubAPI, or a
// test server) for OpenPGP keys: GET <base>/users/<account>/gpg_keys,
// each key's raw_key. It knows the forge github.com only. client nil is
// http.DefaultClient.
func GitHubKeys(base string, client *http.Client) KeyFetcher {
	return githubKeys(base, client, "gpg_keys", "raw_key")
}

// GitHubSSHKeys is GitHubKeys for SSH signing keys: GET
// <base>/users/<account>/ssh_signing_keys, each key's key, an
// authorized_keys line.
func GitHubSSHKeys(base string, client *http.Client) KeyFetcher {
	return githubKeys(base, client, "ssh_signing_keys", "key")
}

func githubKeys(base string, client *http.Client, list, field string) KeyFetcher {
	base = strings.TrimRight(base, "/")
	return func(ctx context.Context, forge, account string) ([]string, error) {
		if !strings.EqualFold(forge, "github.com") {
			return nil, fmt.Errorf("this host reads published keys from github.com only, not %s", forge)
		}
		return keysAt(ctx, client, base+"/users/"+url.PathEscape(account)+"/"+list, githubType, field, nil)
	}
}

// GitLabKeys is the KeyFetcher of a GitLab at base (https://gitlab.com,
// any self-hosted GitLab, or a test server) for OpenPGP keys: the
// account's id from GET <base>/api/v4/users?username=<account>, then
// each key's key from /api/v4/users/<id>/gpg_keys. base decides the
// host; the forge name is not checked. client nil is http.DefaultClient.
func GitLabKeys(base string, client *http.Client) KeyFetcher {
	return gitlabKeys(base, client, "gpg_keys", nil)
}

// GitLabSSHKeys is GitLabKeys for SSH signing keys:
// /api/v4/users/<id>/keys, keeping the keys whose usage_type allows
// signing (auth_and_signing or signing); an authentication-only key
// signs nothing the account vouched for.
func GitLabSSHKeys(base string, client *http.Client) KeyFetcher {
	return gitlabKeys(base, client, "keys", func(k map[string]any) bool {
		u, _ := k["usage_type"].(string)
		return u == "auth_and_signing" || u == "signing"
	})
}

func gitlabKeys(base string, client *http.Client, list string, keep func(map[string]any) bool) KeyFetcher {
	base = strings.TrimRight(base, "/")
	return func(ctx context.Context, forge, account string) ([]string, error) {
		ctx, cancel := context.WithTimeout(ctx, keysTimeout)
		defer cancel()
		var users []struct {
			ID       int64  `json:"id"`
			Username string `json:"username"`
		}
		u := base + "/api/v4/users?username=" + url.QueryEscape(account)
		if err := getJSON(ctx, client, u, jsonType, &users); err != nil {
			return nil, err
		}
		// The search is by exact username, but a forge that answered
		// with someone else must not lend their keys to this account.
		var id int64
		for _, x := range users {
			if strings.EqualFold(x.Username, account) {
				id = x.ID
			}
		}
		if id == 0 {
			return nil, fmt.Errorf("%s has no user %s", forge, account)
		}
		return keysAt(ctx, client, fmt.Sprintf("%s/api/v4/users/%d/%s", base, id, list), jsonType, "key", keep)
	}
}

// GiteaKeys is the KeyFetcher of a Gitea or Forgejo at base
// (https://codeberg.org, any self-hosted one, or a test server) for
// OpenPGP keys: GET <base>/api/v1/users/<account>/gpg_keys, each key's
// public_key. base decides the host. client nil is http.DefaultClient.
func GiteaKeys(base string, client *http.Client) KeyFetcher {
	return giteaKeys(base, client, "gpg_keys", "public_key")
}

// GiteaSSHKeys is GiteaKeys for SSH keys: GET
// <base>/api/v1/users/<account>/keys, each key's key. Gitea does not
// mark signing keys apart; git's own Gitea verification trusts them
// all the same way.
func GiteaSSHKeys(base string, client *http.Client) KeyFetcher {
	return giteaKeys(base, client, "keys", "key")
}

func giteaKeys(base string, client *http.Client, list, field string) KeyFetcher {
	base = strings.TrimRight(base, "/")
	return func(ctx context.Context, forge, account string) ([]string, error) {
		return keysAt(ctx, client, base+"/api/v1/users/"+url.PathEscape(account)+"/"+list, jsonType, field, nil)
	}
}

// The media types asked of forges: GitHub documents its own, the others
// plain JSON.
const (
	githubType = "application/vnd.github+json"
	jsonType   = "application/json"
)

// keysAt reads a forge's JSON list of keys at u, each key's field,
// those keep accepts (nil: all).
func keysAt(ctx context.Context, client *http.Client, u, accept, field string, keep func(map[string]any) bool) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, keysTimeout)
	defer cancel()
	var keys []map[string]any
	if err := getJSON(ctx, client, u, accept, &keys); err != nil {
		return nil, err
	}
	var out []string
	for _, k := range keys {
		if v, ok := k[field].(string); ok && v != "" && (keep == nil || keep(k)) {
			out = append(out, v)
		}
	}
	return out, nil
}

// getJSON decodes a forge's answer at u, asked for as accept, into v,
// at most maxKeysBody.
func getJSON(ctx context.Context, client *http.Client, u, accept string, v any) error {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxKeysBody)).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	return nil
}

// The kinds of forge whose published keys this host can read.
const (
	ForgeGitHub = "github"
	ForgeGitLab = "gitlab"
	ForgeGitea  = "gitea" // Gitea and Forgejo speak the same API
)

// DefaultForges are the public forges known without configuration;
// Trust.Forges adds self-hosted ones (or overrides these).
var DefaultForges = map[string]string{
	"github.com":   ForgeGitHub,
	"gitlab.com":   ForgeGitLab,
	"codeberg.org": ForgeGitea,
}

// ForgeKeys is the KeyFetcher that reads each forge's published keys
// from its own API, by the kind forges (DefaultForges when nil) maps
// its host to: github.com through GitHubAPI, another GitHub at
// https://<host>/api/v3, a GitLab or Gitea at https://<host>. ssh picks
// the SSH signing keys over the OpenPGP ones. A host forges does not
// name is an error naming it, which lowers the tier to unverified.
func ForgeKeys(forges map[string]string, client *http.Client, ssh bool) KeyFetcher {
	if forges == nil {
		forges = DefaultForges
	}
	return func(ctx context.Context, forge, account string) ([]string, error) {
		host := strings.ToLower(forge)
		var f KeyFetcher
		switch forges[host] {
		case ForgeGitHub:
			base := GitHubAPI
			if host != "github.com" {
				base = "https://" + host + "/api/v3"
			}
			f = githubKeys(base, client, "gpg_keys", "raw_key")
			if ssh {
				f = githubKeys(base, client, "ssh_signing_keys", "key")
			}
			// githubKeys guards against another forge's name reaching
			// api.github.com; here the host chose the base already.
			return f(ctx, "github.com", account)
		case ForgeGitLab:
			f = GitLabKeys("https://"+host, client)
			if ssh {
				f = GitLabSSHKeys("https://"+host, client)
			}
		case ForgeGitea:
			f = GiteaKeys("https://"+host, client)
			if ssh {
				f = GiteaSSHKeys("https://"+host, client)
			}
		default:
			return nil, fmt.Errorf("this host knows no key API for the forge %s (configure its kind: github, gitlab or gitea)", forge)
		}
		return f(ctx, forge, account)
	}
}

// ForgeOwner names the forge and account owning a git location on a
// known forge (DefaultForges): https://github.com/<account>/<repo>,
// ssh://git@github.com/<account>/<repo> or
// git@github.com:<account>/<repo>.git, likewise gitlab.com and
// codeberg.org. A local repository has no forge: ok is false.
func ForgeOwner(location string) (forge, account string, ok bool) {
	return forgeOwner(DefaultForges, location)
}

// forgeOwner is ForgeOwner over the hosts forges names. On GitLab the
// account is the first path segment, the user or top-level group.
func forgeOwner(forges map[string]string, location string) (forge, account string, ok bool) {
	rest := ""
	switch {
	case strings.HasPrefix(location, "https://"):
		rest = strings.TrimPrefix(location, "https://")
	case strings.HasPrefix(location, "ssh://"):
		rest = strings.TrimPrefix(location, "ssh://")
		if at := strings.IndexByte(rest, '@'); at >= 0 && at < strings.IndexByte(rest+"/", '/') {
			rest = rest[at+1:]
		}
	case strings.HasPrefix(location, "git@"):
		rest = strings.Replace(strings.TrimPrefix(location, "git@"), ":", "/", 1)
	default:
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || parts[1] == "" || parts[2] == "" {
		return "", "", false
	}
	host := strings.ToLower(parts[0])
	if strings.HasPrefix(location, "ssh://") {
		// ssh://host:2222/ names a port; the forge is the host.
		if h, _, found := strings.Cut(host, ":"); found {
			host = h
		}
	}
	if _, known := forges[host]; known {
		return host, parts[1], true
	}
	return "", "", false
}

// Trust is what an install weighs signatures and the index with. The
// zero value reads GitHub's published keys over the network and has no
// index door.
type Trust struct {
	// Keys fetches a forge account's published OpenPGP keys; nil is
	// ForgeKeys over the forges (DefaultForges and Forges) with Client.
	Keys KeyFetcher
	// SSHKeys fetches its published SSH signing keys; nil is ForgeKeys
	// for SSH keys, likewise.
	SSHKeys KeyFetcher
	// Owner names the forge account owning a git location; nil is
	// ForgeOwner over the same forges. A host (or a test) that mirrors
	// a forge locally maps its paths here.
	Owner func(location string) (forge, account string, ok bool)
	// Forges maps a self-hosted forge's host to its kind (ForgeGitHub,
	// ForgeGitLab or ForgeGitea), on top of DefaultForges; a host in
	// neither has no keys this host can read.
	Forges map[string]string
	// Client is the http client for the forges' keys and an https
	// index; nil is http.DefaultClient.
	Client *http.Client
	// Index is the curated index (MONKEYLLM_EXT_INDEX): a file path or
	// an https URL; empty, the index door is closed.
	Index string
	// IndexKey is the Ed25519 public key the index's detached signature
	// (<Index>.sig) must verify against; without it the index is refused.
	IndexKey []byte
}

func (t Trust) keys() KeyFetcher {
	if t.Keys != nil {
		return t.Keys
	}
	return ForgeKeys(t.forges(), t.Client, false)
}

func (t Trust) sshKeys() KeyFetcher {
	if t.SSHKeys != nil {
		return t.SSHKeys
	}
	return ForgeKeys(t.forges(), t.Client, true)
}

// forges is DefaultForges with t.Forges over it, hosts lowercased.
func (t Trust) forges() map[string]string {
	if len(t.Forges) == 0 {
		return DefaultForges
	}
	m := make(map[string]string, len(DefaultForges)+len(t.Forges))
	for h, k := range DefaultForges {
		m[h] = k
	}
	for h, k := range t.Forges {
		m[strings.ToLower(h)] = k
	}
	return m
}

func (t Trust) owner(location string) (string, string, bool) {
	if t.Owner != nil {
		return t.Owner(location)
	}
	return forgeOwner(t.forges(), location)
}

// verifyTag weighs a tag: signed when its signature (OpenPGP, or SSH
// in git's namespace) verifies against a key the forge publishes for
// the repository's owner. Verification never raises: a failure leaves
// the tier unverified and says why in the reason.
func verifyTag(ctx context.Context, t Trust, location, ref string, tag *object.Tag) (tier string, id *Identity, reason string) {
	if tag.PGPSignature == "" {
		return TierUnverified, nil, "tag " + ref + " is not signed"
	}
	forge, account, ok := t.owner(location)
	if !ok {
		return TierUnverified, nil, "tag " + ref + " is signed, but " + location + " is on no forge that publishes its owner's keys"
	}
	ssh := strings.Contains(tag.PGPSignature, sshSigBegin)
	fetch, kind := t.keys(), "OpenPGP"
	if ssh {
		fetch, kind = t.sshKeys(), "SSH signing"
	}
	who := forge + "/" + account
	keys, err := fetch(ctx, forge, account)
	if err != nil {
		return TierUnverified, nil, "tag " + ref + " is signed, but the " + kind + " keys of " + who + " could not be read: " + err.Error()
	}
	var fp string
	if ssh {
		fp = verifySSHTag(tag, keys)
	} else {
		fp = verifyPGPTag(tag, keys)
	}
	if fp == "" {
		return TierUnverified, nil, fmt.Sprintf("tag %s is signed, but by none of the %d %s keys %s publishes for %s", ref, len(keys), kind, forge, account)
	}
	return TierSigned, &Identity{Forge: forge, Account: account, Keys: []string{fp}},
		"tag " + ref + " is signed by a key " + forge + " publishes for " + account
}

// verifyPGPTag is the fingerprint of the OpenPGP key among keys that
// signed tag, or "".
func verifyPGPTag(tag *object.Tag, keys []string) string {
	for _, k := range keys {
		if e, err := tag.Verify(k); err == nil && e != nil && e.PrimaryKey != nil {
			return strings.ToUpper(hex.EncodeToString(e.PrimaryKey.Fingerprint))
		}
	}
	return ""
}
