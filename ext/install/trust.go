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
	if client == nil {
		client = http.DefaultClient
	}
	base = strings.TrimRight(base, "/")
	return func(ctx context.Context, forge, account string) ([]string, error) {
		if !strings.EqualFold(forge, "github.com") {
			return nil, fmt.Errorf("this host reads published keys from github.com only, not %s", forge)
		}
		u := base + "/users/" + url.PathEscape(account) + "/" + list
		ctx, cancel := context.WithTimeout(ctx, keysTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/vnd.github+json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s answered %s", u, resp.Status)
		}
		var keys []map[string]any
		if err := json.NewDecoder(io.LimitReader(resp.Body, maxKeysBody)).Decode(&keys); err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		var out []string
		for _, k := range keys {
			if v, ok := k[field].(string); ok && v != "" {
				out = append(out, v)
			}
		}
		return out, nil
	}
}

// ForgeOwner names the forge and account owning a git location on a
// known forge: https://github.com/<account>/<repo> or
// git@github.com:<account>/<repo>.git (likewise gitlab.com and
// codeberg.org). A local repository has no forge: ok is false.
func ForgeOwner(location string) (forge, account string, ok bool) {
	rest := ""
	switch {
	case strings.HasPrefix(location, "https://"):
		rest = strings.TrimPrefix(location, "https://")
	case strings.HasPrefix(location, "git@"):
		rest = strings.Replace(strings.TrimPrefix(location, "git@"), ":", "/", 1)
	default:
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || parts[1] == "" {
		return "", "", false
	}
	host := strings.ToLower(parts[0])
	switch host {
	case "github.com", "gitlab.com", "codeberg.org":
		return host, parts[1], true
	}
	return "", "", false
}

// Trust is what an install weighs signatures and the index with. The
// zero value reads GitHub's published keys over the network and has no
// index door.
type Trust struct {
	// Keys fetches a forge account's published OpenPGP keys; nil is
	// GitHubKeys(GitHubAPI, nil).
	Keys KeyFetcher
	// SSHKeys fetches its published SSH signing keys; nil is
	// GitHubSSHKeys(GitHubAPI, nil).
	SSHKeys KeyFetcher
	// Owner names the forge account owning a git location; nil is
	// ForgeOwner. A host (or a test) that mirrors a forge locally maps
	// its paths here.
	Owner func(location string) (forge, account string, ok bool)
	// Index is the path of the curated index (MONKEYLLM_EXT_INDEX);
	// empty, the index door is closed.
	Index string
	// IndexKey is the Ed25519 public key the index's detached signature
	// (<Index>.sig) must verify against; without it the index is refused.
	IndexKey []byte
}

func (t Trust) keys() KeyFetcher {
	if t.Keys != nil {
		return t.Keys
	}
	return GitHubKeys(GitHubAPI, nil)
}

func (t Trust) sshKeys() KeyFetcher {
	if t.SSHKeys != nil {
		return t.SSHKeys
	}
	return GitHubSSHKeys(GitHubAPI, nil)
}

func (t Trust) owner(location string) (string, string, bool) {
	if t.Owner != nil {
		return t.Owner(location)
	}
	return ForgeOwner(location)
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
