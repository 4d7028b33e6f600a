// SPDX-License-Identifier: Apache-2.0

package keys

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

var (
	rd, wr, qu, te = vine.CapRead, vine.CapWrite, vine.CapQuery, vine.CapTend
	in, ad, an     = vine.CapIngest, vine.CapAdmin, vine.CapAnswer
)

// caps is a capability list; caps() is empty, never nil (nil is "no mask").
func caps(c ...vine.Capability) []vine.Capability { return append([]vine.Capability{}, c...) }

func TestMasked(t *testing.T) {
	tests := []struct {
		name        string
		grant, mask []vine.Capability
		want        []vine.Capability
	}{
		{"unmasked keeps the grant", caps(qu, rd), nil, caps(rd, qu)},
		{"admin expands to every cap", caps(ad), nil, AllCaps},
		{"no grant", nil, nil, caps()},
		{"mask narrows admin", caps(ad), caps(rd, qu), caps(rd, qu)},
		{"mask never widens", caps(rd), caps(rd, wr, ad), caps(rd)},
		{"empty mask lets nothing through", caps(ad), caps(), caps()},
		{"disjoint", caps(wr), caps(rd), caps()},
		{"admin in both stays admin", caps(ad), caps(ad), AllCaps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Masked(tt.grant, tt.mask))
		})
	}
}

func TestParseCaps(t *testing.T) {
	got, err := ParseCaps(" read, query,read ,")
	require.NoError(t, err)
	assert.Equal(t, caps(rd, qu), got)
	_, err = ParseCaps("read,sudo")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"sudo"`)
	got, err = ParseCaps("")
	require.NoError(t, err)
	assert.Equal(t, caps(), got)
}

func TestPrincipalPolicy(t *testing.T) {
	p := &Principal{Name: "svc", Mask: caps(rd, qu), Grants: map[string]vine.Policy{
		"acme": {Allow: []string{"sales/"}, Deny: []string{"sales/payroll/"}, Caps: caps(ad)},
	}}
	pol, ok := p.Policy("acme")
	require.True(t, ok)
	assert.Equal(t, caps(rd, qu), pol.Caps, "the mask filters the grant at the moment of use")
	assert.Equal(t, []string{"sales/"}, pol.Allow, "masks never touch allow")
	assert.Equal(t, []string{"sales/payroll/"}, pol.Deny, "masks never touch deny")
	pol.Allow[0] = "changed/"
	again, _ := p.Policy("acme")
	assert.Equal(t, []string{"sales/"}, again.Allow, "a policy handed out is a copy")

	_, ok = p.Policy("other")
	assert.False(t, ok, "no grant, no access")
	assert.False(t, p.Admin(), "a masked key without admin is admin nowhere")
	assert.Equal(t, []string{"acme"}, p.Forests())

	p.Mask = nil
	assert.True(t, p.Admin())
	p.Owner = true
	assert.True(t, p.IsOwner())
	p.Mask = caps(rd)
	assert.False(t, p.IsOwner(), "the owner bit needs admin in the mask")
	p.Mask = caps(ad)
	assert.True(t, p.IsOwner())
}

func TestLocalOwnerAndOpen(t *testing.T) {
	p, ok := Open.Resolve(context.Background(), "")
	require.True(t, ok)
	assert.True(t, p.IsLocal())
	pol, ok := p.Policy("any-forest")
	require.True(t, ok)
	assert.Equal(t, vine.FullPolicy(), pol)
	assert.True(t, p.Admin())
	assert.True(t, p.IsOwner())
}

func TestNewKey(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	grants := map[string]vine.Policy{"acme": {Allow: []string{"sales/"}, Caps: caps(rd)}}
	secret, k, err := NewKey("reports", grants, NewKeyOptions{Now: func() time.Time { return now }})
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^mk_[A-Za-z0-9_-]{43}$`), secret)
	assert.Equal(t, secret[:9], k.Prefix)
	assert.Equal(t, Digest(secret), k.SHA256)
	assert.NotContains(t, k.SHA256, secret[3:])
	assert.Equal(t, "2026-03-01T12:00:00Z", k.Created)
	assert.Equal(t, "2026-05-30T12:00:00Z", k.ExpiresAt, "90 days by default")
	assert.Equal(t, "api", k.Kind)
	assert.Nil(t, k.Caps, "no mask unless asked")

	other, _, err := NewKey("x", nil, NewKeyOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, secret, other)

	_, k, err = NewKey("long", nil, NewKeyOptions{Expires: MaxExpiry, Now: func() time.Time { return now }})
	require.NoError(t, err)
	assert.Equal(t, "2027-03-01T12:00:00Z", k.ExpiresAt)
	for _, d := range []time.Duration{MaxExpiry + time.Hour, -time.Hour} {
		_, _, err = NewKey("bad", nil, NewKeyOptions{Expires: d})
		require.Error(t, err, "%s is refused, never clamped", d)
		assert.Contains(t, err.Error(), "365d")
	}
}

const validYAML = `keys:
  - label: reports
    principal: svc-reports
    kind: api
    prefix: mk_abcdef
    sha256: %s
    created: "2026-01-01T00:00:00Z"
    expires_at: "2099-01-01T00:00:00Z"
    caps: [read, query]
    grants:
      acme:
        allow: [sales/]
        deny: [sales/payroll/]
        caps: [admin]
        datasets: {sales/q1: {tables: [orders]}}
`

func digestOf(s string) string { return Digest(s) }

func TestParse(t *testing.T) {
	d := digestOf("mk_secret")
	f, err := Parse([]byte(strings.Replace(validYAML, "%s", d, 1)))
	require.NoError(t, err)
	require.Len(t, f.Keys, 1)
	k := f.Keys[0]
	assert.Equal(t, "svc-reports", k.Principal)
	assert.Equal(t, caps(rd, qu), k.Caps)
	assert.Equal(t, vine.Policy{Allow: []string{"sales/"}, Deny: []string{"sales/payroll/"}, Caps: caps(ad),
		Datasets: map[string]vine.DatasetGrant{"sales/q1": {Tables: []string{"orders"}}}}, k.Grants["acme"])

	asJSON := `{"keys":[{"label":"j","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z","caps":null,"grants":{"acme":{"allow":[""],"caps":["read"]}}}]}`
	f, err = Parse([]byte(asJSON))
	require.NoError(t, err)
	assert.Nil(t, f.Keys[0].Caps, "null caps is unmasked")
	assert.Equal(t, "api", f.Keys[0].Kind, "kind defaults to api")

	f, err = Parse([]byte("  \n"))
	require.NoError(t, err)
	assert.Empty(t, f.Keys)

	bad := map[string]string{
		"unknown field":   `{"keys":[{"label":"a","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z","grant":{}}]}`,
		"short digest":    `{"keys":[{"label":"a","sha256":"abc","expires_at":"2099-01-01T00:00:00Z"}]}`,
		"upper digest":    `{"keys":[{"label":"a","sha256":"` + strings.ToUpper(d) + `","expires_at":"2099-01-01T00:00:00Z"}]}`,
		"no label":        `{"keys":[{"label":" ","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z"}]}`,
		"no expiry":       `{"keys":[{"label":"a","sha256":"` + d + `"}]}`,
		"bad time":        `{"keys":[{"label":"a","sha256":"` + d + `","expires_at":"next year"}]}`,
		"unknown mask":    `{"keys":[{"label":"a","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z","caps":["root"]}]}`,
		"unknown grant":   `{"keys":[{"label":"a","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z","grants":{"f":{"caps":["root"]}}}]}`,
		"bad kind":        `{"keys":[{"label":"a","kind":"robot","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z"}]}`,
		"duplicate label": `{"keys":[{"label":"a","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z"},{"label":"a","sha256":"` + digestOf("x") + `","expires_at":"2099-01-01T00:00:00Z"}]}`,
		"not yaml":        "keys: [\n",
	}
	for name, doc := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "keys file")
			assert.NotContains(t, err.Error(), "\n", "one line, for a log")
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	_, masked, err := NewKey("masked", map[string]vine.Policy{"acme": {Allow: []string{""}, Caps: caps(rd)}},
		NewKeyOptions{Mask: caps()})
	require.NoError(t, err)
	_, open, err := NewKey("open", map[string]vine.Policy{"acme": {Allow: []string{"a/"}, Deny: []string{"a/b/"}, Caps: caps(wr)}},
		NewKeyOptions{})
	require.NoError(t, err)
	f := &File{}
	require.NoError(t, f.Add(masked))
	require.NoError(t, f.Add(open))
	for _, asJSON := range []bool{false, true} {
		data, err := f.Marshal(asJSON)
		require.NoError(t, err)
		back, err := Parse(data)
		require.NoError(t, err, string(data))
		require.Len(t, back.Keys, 2)
		assert.NotNil(t, back.Keys[0].Caps, "an empty mask survives as empty, not as unmasked (json=%v)", asJSON)
		assert.Empty(t, back.Keys[0].Caps)
		assert.Nil(t, back.Keys[1].Caps, "no mask survives as no mask (json=%v)", asJSON)
		assert.Equal(t, f.Keys[1].Grants, back.Keys[1].Grants)
	}
}

func TestFileAddRevoke(t *testing.T) {
	f := &File{}
	_, k, err := NewKey("a", nil, NewKeyOptions{})
	require.NoError(t, err)
	require.NoError(t, f.Add(k))
	_, k2, _ := NewKey("a", nil, NewKeyOptions{})
	assert.ErrorContains(t, f.Add(k2), "taken")
	assert.ErrorContains(t, f.Add(Key{Label: "b", SHA256: "nope", ExpiresAt: "2099-01-01T00:00:00Z"}), "sha256")

	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r, err := f.Revoke(k.SHA256, t1)
	require.NoError(t, err)
	assert.Equal(t, "2026-01-01T00:00:00Z", r.RevokedAt)
	r, err = f.Revoke("a", t1.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, "2026-01-01T00:00:00Z", r.RevokedAt, "the first revocation time stands")
	_, err = f.Revoke("missing", t1)
	assert.Error(t, err)
}

func TestKeyStatus(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	k := Key{ExpiresAt: "2026-07-01T00:00:00Z"}
	assert.Equal(t, StatusActive, k.Status(now))
	k.RevokedAt = "2026-05-01T00:00:00Z"
	assert.Equal(t, StatusRevoked, k.Status(now))
	k.RevokedAt = "2026-06-15T00:00:00Z"
	assert.Equal(t, StatusActive, k.Status(now), "a revocation in the future has not happened yet")
	k = Key{ExpiresAt: "2026-06-01T00:00:00Z"}
	assert.Equal(t, StatusExpired, k.Status(now), "expires_at <= now is expired")
}

func writeKeys(t *testing.T, path string, ks ...Key) {
	t.Helper()
	require.NoError(t, WriteFile(path, &File{Keys: ks}))
}

func TestStoreResolve(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.yaml")
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	grants := map[string]vine.Policy{"acme": {Allow: []string{""}, Caps: caps(rd)}}
	live, kLive, err := NewKey("live", grants, NewKeyOptions{Now: clock})
	require.NoError(t, err)
	revoked, kRev, _ := NewKey("revoked", grants, NewKeyOptions{Now: clock})
	kRev.RevokedAt = "2026-02-01T00:00:00Z"
	expired, kExp, _ := NewKey("expired", grants, NewKeyOptions{Now: func() time.Time { return now.Add(-100 * 24 * time.Hour) }})
	writeKeys(t, path, kLive, kRev, kExp)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "a keys file is the operator's alone")

	s, err := Load(path)
	require.NoError(t, err)
	s.SetClock(clock)
	ctx := context.Background()

	p, ok := s.Resolve(ctx, live)
	require.True(t, ok)
	assert.Equal(t, "live", p.Name)
	assert.Equal(t, grants["acme"].Caps, p.Grants["acme"].Caps)
	assert.Equal(t, grants["acme"].Allow, p.Grants["acme"].Allow)
	for name, secret := range map[string]string{"revoked": revoked, "expired": expired, "unknown": "mk_nope", "empty": ""} {
		_, ok := s.Resolve(ctx, secret)
		assert.False(t, ok, name)
	}
	var used string
	for _, k := range s.Keys() {
		if k.Label == "live" {
			used = k.LastUsedAt
		}
		assert.NotContains(t, k.SHA256+k.Prefix, live[prefixLen:], "a listing never carries the secret")
	}
	assert.Equal(t, "2026-03-01T00:00:00Z", used, "last use is stamped")

	// The file changes under the running server: a revocation takes
	// effect without a restart.
	f, err := ReadFile(path)
	require.NoError(t, err)
	_, err = f.Revoke("live", now.Add(-time.Minute))
	require.NoError(t, err)
	require.NoError(t, WriteFile(path, f))
	s.expire()
	_, ok = s.Resolve(ctx, live)
	assert.False(t, ok, "a revocation written to the file is seen")

	_, err = Load(filepath.Join(dir, "missing.yaml"))
	assert.Error(t, err, "a server asked to check keys needs the file")
	missing, err := ReadFile(filepath.Join(dir, "missing.yaml"))
	require.NoError(t, err, "the first add creates the file")
	assert.Empty(t, missing.Keys)
}

// expire makes the next Resolve look at the file again.
func (s *Store) expire() {
	s.mu.Lock()
	s.checked = time.Time{}
	s.modTime = time.Time{}
	s.mu.Unlock()
}

func FuzzParse(f *testing.F) {
	d := Digest("mk_x")
	f.Add([]byte(strings.Replace(validYAML, "%s", d, 1)))
	f.Add([]byte(`{"keys":[{"label":"j","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z","caps":[]}]}`))
	f.Add([]byte("keys: null"))
	f.Add([]byte("- 1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		for _, asJSON := range []bool{false, true} {
			out, err := file.Marshal(asJSON)
			if err != nil {
				t.Fatalf("a parsed file does not render: %v", err)
			}
			back, err := Parse(out)
			if err != nil {
				t.Fatalf("a rendered file does not parse: %v\n%s", err, out)
			}
			if len(back.Keys) != len(file.Keys) {
				t.Fatalf("round trip lost keys: %d != %d", len(back.Keys), len(file.Keys))
			}
			for i := range back.Keys {
				if back.Keys[i].SHA256 != file.Keys[i].SHA256 || (back.Keys[i].Caps == nil) != (file.Keys[i].Caps == nil) {
					t.Fatalf("round trip changed key %d", i)
				}
			}
		}
	})
}

func TestCheckPrefix(t *testing.T) {
	tests := []struct {
		prefix string
		want   string // a piece of the refusal; "" accepts
	}{
		{"sales/", ""},
		{"ops/runbooks/", ""},
		{"sales", ""},
		{"2026_q1-x/notes", ""},
		{"", ""},               // the whole forest, as a keys file stores it
		{"/", ""},              // the same, normalised
		{"/sales/", ""},        // a leading "/" is normalised away
		{" sales/ ", ""},       // so is white space
		{"_meta/", ""},         // a system branch is a prefix like any other
		{" ", "blank"},         // an empty shell variable, quoted
		{"\t", "blank"},        // ditto
		{"*", "glob"},          // matches nothing, literally
		{"sales/*", "glob"},    // ditto
		{"sales/q?", "glob"},   // ditto
		{"sales/[ab]", "glob"}, // ditto
		{"./sales", `"." segment`},
		{"sales/./x", `"." segment`},
		{".", `"." segment`},
		{"../", `".." segment`},
		{"../sales", `".." segment`},
		{"sales/../hr/", `".." segment`},
		{"sales\\eu", "backslash"},
		{"sales//eu", "empty segment"},
		{"sales/\x00", "control character"},
		{"sales/_index", "index id"},
		{"_index", "index id"},
		{"sales/q1.md", "extension"},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			err := CheckPrefix(tt.prefix)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseRefusesBadPrefixes(t *testing.T) {
	d := Digest("mk_secret")
	entry := func(grant string) string {
		return `{"keys":[{"label":"a","sha256":"` + d + `","expires_at":"2099-01-01T00:00:00Z","grants":{"acme":` + grant + `}}]}`
	}
	tests := []struct{ name, grant, want string }{
		{"glob allow", `{"allow":["sales/*"],"caps":["read"]}`, `grants.acme.allow "sales/*" is a glob`},
		{"blank allow", `{"allow":[" "],"caps":["read"]}`, `grants.acme.allow " " is blank`},
		{"traversal deny", `{"allow":[""],"deny":["../x"],"caps":["read"]}`, `grants.acme.deny "../x" has a ".." segment`},
		{"empty deny", `{"allow":["sales/"],"deny":[""],"caps":["read"]}`, `grants.acme.deny "" is empty and hides nothing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(entry(tt.grant)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), `keys file: entry 1 (label "a"): `+tt.want)
		})
	}
	// The stored default and what the policy normalises still read.
	for _, grant := range []string{`{"allow":[""],"caps":["read"]}`, `{"allow":["/sales/","ops"],"deny":["sales/payroll/"],"caps":["read"]}`} {
		_, err := Parse([]byte(entry(grant)))
		assert.NoError(t, err, grant)
	}
}

// logTo is a logger writing text lines into b.
func logTo(b *strings.Builder) *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }

func TestStoreKeepsLastGoodKeysWhenTheFileBreaks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	grants := map[string]vine.Policy{"acme": {Allow: []string{"sales/"}, Caps: caps(rd)}}
	secret, k, err := NewKey("live", grants, NewKeyOptions{})
	require.NoError(t, err)
	writeKeys(t, path, k)
	var logs strings.Builder
	s, err := NewStore(path, &StoreOptions{Logger: logTo(&logs)})
	require.NoError(t, err)
	ctx := context.Background()

	for _, broken := range []string{"keys: [broken", strings.Replace(mustRead(t, path), "sales/", "sales/*", 1)} {
		require.NoError(t, os.WriteFile(path, []byte(broken), 0o600))
		s.expire()
		_, ok := s.Resolve(ctx, secret)
		assert.True(t, ok, "a broken edit does not turn every key into 401")
		assert.Error(t, s.Err())
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 2, "one line per distinct failure:\n%s", logs.String())
	assert.Contains(t, lines[0], "level=ERROR")
	assert.Contains(t, lines[0], "file="+path)
	assert.Contains(t, lines[0], "keys file not reloaded")
	assert.Contains(t, lines[1], `is a glob`)
	s.expire()
	s.Resolve(ctx, secret)
	assert.Len(t, strings.Split(strings.TrimSpace(logs.String()), "\n"), 2, "a file that stays broken is not logged again")

	// Fixed, with a revocation: it now takes effect.
	k.RevokedAt = "2000-01-01T00:00:00Z"
	writeKeys(t, path, k)
	s.expire()
	_, ok := s.Resolve(ctx, secret)
	assert.False(t, ok, "the repaired file is applied")
	require.NoError(t, s.Err())
	assert.Contains(t, logs.String(), "keys file reloaded")

	// A file that is gone serves no key, and says so.
	require.NoError(t, os.Remove(path))
	s.expire()
	k.RevokedAt = ""
	assert.Empty(t, s.Keys())
	assert.Contains(t, logs.String(), "no key is accepted until it is back")
	writeKeys(t, path, k)
	s.expire()
	_, ok = s.Resolve(ctx, secret)
	assert.True(t, ok, "back, it serves again")
}

func TestNewStoreRefusesABrokenFileByName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	require.NoError(t, os.WriteFile(path, []byte("keys: [broken"), 0o600))
	_, err := NewStore(path, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "keys file")
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestOwnerPolicy(t *testing.T) {
	grants := map[string]vine.Policy{"acme": {Allow: []string{"sales/"}, Caps: caps(rd)}}
	tests := []struct {
		name      string
		owner     bool
		mask      []vine.Capability
		forest    string
		wantOK    bool
		wantPol   vine.Policy
		wantAdmin bool
	}{
		{"owner, unmasked: every forest in full", true, nil, "acme", true,
			vine.Policy{Allow: []string{""}, Caps: AllCaps}, true},
		{"owner, a forest made later", true, nil, "future", true,
			vine.Policy{Allow: []string{""}, Caps: AllCaps}, true},
		{"owner, mask with admin keeps the bit", true, caps(ad), "future", true,
			vine.Policy{Allow: []string{""}, Caps: AllCaps}, true},
		{"owner, mask without admin: the grants, masked", true, caps(rd, qu), "acme", true,
			vine.Policy{Allow: []string{"sales/"}, Caps: caps(rd)}, false},
		{"owner, mask without admin: no grant, no forest", true, caps(rd), "future", false,
			vine.Policy{}, false},
		{"not owner: only its grant", false, nil, "future", false, vine.Policy{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Principal{Name: "o", Owner: tt.owner, Mask: tt.mask, Grants: grants}
			pol, ok := p.Policy(tt.forest)
			require.Equal(t, tt.wantOK, ok)
			if ok {
				assert.Equal(t, tt.wantPol.Allow, pol.Allow)
				assert.Equal(t, tt.wantPol.Caps, pol.Caps)
				assert.Empty(t, pol.Deny)
			}
			assert.Equal(t, tt.wantAdmin, p.Admin())
			assert.Equal(t, []string{"acme"}, p.Forests(), "Forests lists stored grants only")
		})
	}
	t.Run("owner without any grant is admin", func(t *testing.T) {
		p := &Principal{Name: "o", Owner: true}
		assert.True(t, p.Admin(), "admin on every forest, including when none exist")
	})
}
