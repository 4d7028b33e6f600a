// SPDX-License-Identifier: Apache-2.0

package install

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Index is the curated index (spec 11 §6): pointers to extensions, and
// the forge account each one's signed tag must come from. It holds no
// code; this project distributes nothing.
type Index struct {
	Extensions map[string]IndexEntry `json:"extensions"`
}

// IndexEntry is one extension the index points at.
type IndexEntry struct {
	Source   string `json:"source"`
	Identity struct {
		Forge   string `json:"forge,omitempty"` // default github.com
		Account string `json:"account"`
	} `json:"identity"`
}

// expected is the identity the entry expects to verify its artifact.
func (e IndexEntry) expected() *Identity {
	forge := e.Identity.Forge
	if forge == "" {
		forge = "github.com"
	}
	return &Identity{Forge: forge, Account: e.Identity.Account}
}

var indexID = regexp.MustCompile(`^[a-z][a-z0-9-]{1,39}$`)

// viaIndex reports whether source names an index entry rather than a
// path or URL: an extension id that is not a directory or file here.
func viaIndex(source string) bool {
	if !indexID.MatchString(source) {
		return false
	}
	_, err := os.Stat(source)
	return err != nil
}

// IndexSigSuffix names the index's detached signature beside it.
const IndexSigSuffix = ".sig"

// LoadIndex reads the index at t.Index and checks its integrity: the
// file <Index>.sig holds the base64 Ed25519 signature of the index's
// exact bytes, which must verify against t.IndexKey. An index whose
// signature is absent, or that no key is configured for, is refused
// (reason index): it decides what code runs, so an unauthenticated one
// would be a redirect anyone on its path could rewrite.
func (t Trust) LoadIndex() (*Index, error) {
	if t.Index == "" {
		return nil, refuse("index", "no extension index is configured", "set MONKEYLLM_EXT_INDEX (and MONKEYLLM_EXT_INDEX_KEY), or name a source")
	}
	data, err := os.ReadFile(t.Index)
	if err != nil {
		return nil, refuse("index", "cannot read the extension index: "+err.Error(), "")
	}
	if len(t.IndexKey) != ed25519.PublicKeySize {
		return nil, refuse("index", "no trusted key for the extension index is configured",
			"set MONKEYLLM_EXT_INDEX_KEY to the index publisher's Ed25519 public key (base64)")
	}
	raw, err := os.ReadFile(t.Index + IndexSigSuffix)
	if err != nil {
		return nil, refuse("index", "the extension index has no signature beside it ("+IndexSigSuffix+")", "")
	}
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || !ed25519.Verify(ed25519.PublicKey(t.IndexKey), data, sig) {
		return nil, refuse("index", "the extension index's signature does not verify against the trusted key",
			"the index was changed after it was signed, or signed by another key: do not use it")
	}
	var idx Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, refuse("index", "the extension index is not JSON: "+err.Error(), "")
	}
	return &idx, nil
}

// SignIndex is the detached signature of an index's exact bytes, as
// LoadIndex reads it from <index>.sig.
func SignIndex(key ed25519.PrivateKey, data []byte) []byte {
	return []byte(base64.StdEncoding.EncodeToString(ed25519.Sign(key, data)) + "\n")
}

// lookup is the entry for id.
func (t Trust) lookup(id string) (IndexEntry, error) {
	if t.Index == "" {
		return IndexEntry{}, refuse("index", fmt.Sprintf("%q is neither a path nor a URL, and no extension index is configured to look it up", id),
			"name a directory, a .zip, a git repository with @ref, or set MONKEYLLM_EXT_INDEX")
	}
	idx, err := t.LoadIndex()
	if err != nil {
		return IndexEntry{}, err
	}
	e, ok := idx.Extensions[id]
	if !ok || e.Source == "" {
		return IndexEntry{}, refuse("index", fmt.Sprintf("the extension index has no entry %q", id), "name a source instead")
	}
	if e.Identity.Account == "" {
		return IndexEntry{}, refuse("index", fmt.Sprintf("the index entry %q names no identity", id), "")
	}
	return e, nil
}
