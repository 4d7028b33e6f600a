// SPDX-License-Identifier: Apache-2.0

package install

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
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

// The index's size caps: an index is pointers, a signature one line.
const (
	maxIndexBody = 1 << 20
	maxIndexSig  = 4 << 10
)

// indexTimeout bounds one fetch of the index or its signature, as
// keysTimeout bounds the forge keys; a variable so a test need not wait.
var indexTimeout = 30 * time.Second

// LoadIndex reads the index at t.Index (a file path, or an https URL
// fetched with t.Client) and checks its integrity: <Index>.sig holds
// the base64 Ed25519 signature of the index's exact bytes, which must
// verify against t.IndexKey before a byte of it is parsed. An index
// whose signature is absent, that no key is configured for, or that
// cannot be fetched whole is refused (reason index): it decides what
// code runs, so an unauthenticated one would be a redirect anyone on
// its path could rewrite.
func (t Trust) LoadIndex(ctx context.Context) (*Index, error) {
	if t.Index == "" {
		return nil, refuse("index", "no extension index is configured", "set MONKEYLLM_EXT_INDEX (and MONKEYLLM_EXT_INDEX_KEY), or name a source")
	}
	if len(t.IndexKey) != ed25519.PublicKeySize {
		return nil, refuse("index", "no trusted key for the extension index is configured",
			"set MONKEYLLM_EXT_INDEX_KEY to the index publisher's Ed25519 public key (base64)")
	}
	read := readIndexFile
	if remoteIndex(t.Index) {
		if err := httpsOnly(t.Index); err != nil {
			return nil, err
		}
		read = func(loc string, max int64) ([]byte, error) { return t.fetchIndex(ctx, loc, max) }
	}
	data, err := read(t.Index, maxIndexBody)
	if err != nil {
		return nil, refuse("index", "cannot read the extension index: "+err.Error(), "")
	}
	raw, err := read(t.Index+IndexSigSuffix, maxIndexSig)
	if err != nil {
		return nil, refuse("index", "the extension index has no readable signature beside it ("+IndexSigSuffix+"): "+err.Error(), "")
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

// remoteIndex reports whether loc is a URL rather than a file path.
func remoteIndex(loc string) bool {
	return strings.Contains(loc, "://")
}

// httpsOnly refuses an index URL that is not https. Plain http is
// refused even on loopback: the signature would still hold, but one
// rule with no exception leaves no scheme a redirect could slip through.
func httpsOnly(loc string) error {
	u, err := url.Parse(loc)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return refuse("index", fmt.Sprintf("the extension index %q is neither a file nor an https URL", loc),
			"serve the index (and its .sig) over https")
	}
	return nil
}

// readIndexFile reads a local index or signature, up to max bytes.
func readIndexFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, max)
}

// readCapped reads r whole, or fails once it passes max bytes: a
// truncated index could still parse, so oversize is an error, not a cut.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return data, nil
}

// fetchIndex GETs loc with t's client within indexTimeout, following
// redirects to https only, and reads up to max bytes.
func (t Trust) fetchIndex(ctx context.Context, loc string, max int64) ([]byte, error) {
	base := t.Client
	if base == nil {
		base = http.DefaultClient
	}
	client := *base
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" {
			return fmt.Errorf("redirected to %s, which is not https", req.URL.Redacted())
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, indexTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", loc, resp.Status)
	}
	return readCapped(resp.Body, max)
}

// SignIndex is the detached signature of an index's exact bytes, as
// LoadIndex reads it from <index>.sig.
func SignIndex(key ed25519.PrivateKey, data []byte) []byte {
	return []byte(base64.StdEncoding.EncodeToString(ed25519.Sign(key, data)) + "\n")
}

// lookup is the entry for id.
func (t Trust) lookup(ctx context.Context, id string) (IndexEntry, error) {
	if t.Index == "" {
		return IndexEntry{}, refuse("index", fmt.Sprintf("%q is neither a path nor a URL, and no extension index is configured to look it up", id),
			"name a directory, a .zip, a git repository with @ref, or set MONKEYLLM_EXT_INDEX")
	}
	idx, err := t.LoadIndex(ctx)
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
