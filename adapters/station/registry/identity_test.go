// SPDX-License-Identifier: Apache-2.0

package registry_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

const goodPassword = "correct horse battery"

func TestSetupRace(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, nil)
	const n = 20
	var wg sync.WaitGroup
	results := make([]error, n)
	sessions := make([]registry.Session, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			sessions[i], results[i] = r.Setup(ctx, "user"+string(rune('a'+i)), goodPassword, "")
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for i, err := range results {
		if err == nil {
			won++
			assert.True(t, sessions[i].Owner)
			assert.True(t, sessions[i].Admin)
			continue
		}
		assert.ErrorIs(t, err, registry.ErrSetupClosed, "a loser is told only that setup is closed")
	}
	assert.Equal(t, 1, won, "exactly one owner")
	assert.Equal(t, 1, one[int](t, r.DB(), "SELECT COUNT(*) FROM principals WHERE owner = 1"))
	assert.Equal(t, 1, one[int](t, r.DB(), "SELECT COUNT(*) FROM principals"), "losers leave nothing behind")
}

func TestSetupWindow(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		opt     *registry.Options
		prepare func(t *testing.T, r *registry.Registry)
		open    bool
	}{
		{"fresh", nil, func(*testing.T, *registry.Registry) {}, true},
		{"a grant is no credential", nil, func(t *testing.T, r *registry.Registry) {
			_, err := r.SetGrant(ctx, "svc", registry.Grant{Forest: "acme"})
			require.NoError(t, err)
		}, true},
		{"a session is no credential", nil, func(t *testing.T, r *registry.Registry) {
			_, err := r.Mint(ctx, "svc", registry.MintOptions{Kind: registry.KindSession})
			require.NoError(t, err)
		}, true},
		{"an api key closes it", nil, func(t *testing.T, r *registry.Registry) {
			_, err := r.Mint(ctx, "svc", registry.MintOptions{})
			require.NoError(t, err)
		}, false},
		{"a revoked api key still closes it", nil, func(t *testing.T, r *registry.Registry) {
			m, err := r.Mint(ctx, "svc", registry.MintOptions{})
			require.NoError(t, err)
			_, err = r.RevokeKey(ctx, m.Key.ID)
			require.NoError(t, err)
		}, false},
		{"a stored password closes it", nil, func(t *testing.T, r *registry.Registry) {
			require.NoError(t, r.SetPassword(ctx, "bob", goodPassword))
		}, false},
		{"an owner keeps it closed with every credential cleared", nil, func(t *testing.T, r *registry.Registry) {
			_, err := r.Setup(ctx, "ada", goodPassword, "")
			require.NoError(t, err)
			require.NoError(t, r.SetPassword(ctx, "ada", ""))
			_, err = r.RevokeKeys(ctx, "ada", nil)
			require.NoError(t, err)
		}, false},
		{"break-glass configured", &registry.Options{BreakGlass: registry.BreakGlass{User: "root", Password: "env password!"}},
			func(*testing.T, *registry.Registry) {}, false},
		{"break-glass needs both halves", &registry.Options{BreakGlass: registry.BreakGlass{User: "root"}},
			func(*testing.T, *registry.Registry) {}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := open(t, tt.opt)
			tt.prepare(t, r)
			got, err := r.SetupOpen(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.open, got)
			if !tt.open {
				_, err := r.Setup(ctx, "eve", goodPassword, "")
				assert.ErrorIs(t, err, registry.ErrSetupClosed)
				_, err = r.Setup(ctx, "", "", "")
				assert.ErrorIs(t, err, registry.ErrSetupClosed, "closed answers before the arguments are looked at")
				_, err = r.BootstrapKey(ctx)
				assert.ErrorIs(t, err, registry.ErrSetupClosed, "the bootstrap key mints nothing outside the window")
			}
		})
	}
}

func TestSetupRefusals(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, nil)
	for _, tt := range []struct{ user, pw, want string }{
		{"", goodPassword, "username and password are required"},
		{"ada", "", "username and password are required"},
		{"  ", goodPassword, "username and password are required"},
		{"ada", "elevenchars", "password must be at least 12 characters"},
	} {
		_, err := r.Setup(ctx, tt.user, tt.pw, "")
		assert.Equal(t, vine.ESchema, code(err))
		assert.Equal(t, tt.want, message(t, err))
	}
	s, err := r.Setup(ctx, "ada", goodPassword, " ada@example.org ")
	require.NoError(t, err)
	assert.Equal(t, "2", s.ExpiresAt[:1], "an expiry is stamped")
	assert.Equal(t, "ada@example.org", one[string](t, r.DB(), "SELECT email FROM principals WHERE id = 'ada'"))
	p, ok := r.Resolve(ctx, s.Key)
	require.True(t, ok)
	assert.True(t, p.IsOwner())
	pol, ok := p.Policy("a-forest-made-tomorrow")
	require.True(t, ok, "the owner holds every forest, present and future")
	assert.Equal(t, vine.FullPolicy().Allow, pol.Allow)
}

func TestBootstrapKey(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	r, _ := open(t, &registry.Options{Now: c.Now})
	m, err := r.BootstrapKey(ctx)
	require.NoError(t, err)
	assert.Equal(t, registry.BootstrapPrincipal, m.Key.Principal)
	assert.Equal(t, "bootstrap", m.Key.Label)
	assert.Equal(t, "2027-03-01T12:00:00Z", m.Key.ExpiresAt, "365 days")
	p, ok := r.Resolve(ctx, m.Secret)
	require.True(t, ok)
	assert.True(t, p.IsOwner())
	_, err = r.BootstrapKey(ctx)
	assert.ErrorIs(t, err, registry.ErrSetupClosed, "a second boot mints nothing")
}

func TestVerifyPassword(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, &registry.Options{BreakGlass: registry.BreakGlass{User: "root", Password: "the env password"}})
	require.NoError(t, r.SetPassword(ctx, "ada", goodPassword))
	_, err := r.SetGrant(ctx, "svc", registry.Grant{Forest: "acme"}) // exists, no password
	require.NoError(t, err)
	require.NoError(t, r.SetPassword(ctx, "cleared", goodPassword))
	require.NoError(t, r.SetPassword(ctx, "cleared", ""))

	tests := []struct {
		name, user, pw string
		want           bool
	}{
		{"right password", "ada", goodPassword, true},
		{"wrong password", "ada", goodPassword + "!", false},
		{"empty password", "ada", "", false},
		{"unknown user", "nobody", goodPassword, false},
		{"no password door", "svc", goodPassword, false},
		{"cleared password", "cleared", goodPassword, false},
		{"cleared password, empty attempt", "cleared", "", false},
		{"break-glass", "root", "the env password", true},
		{"break-glass, wrong", "root", "the env passwore", false},
		{"break-glass, a prefix", "root", "the env", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.VerifyPassword(ctx, tt.user, tt.pw)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			s, err := r.Login(ctx, tt.user, tt.pw)
			if !tt.want {
				assert.Equal(t, registry.ErrInvalidLogin(), err, "one refusal for every failure")
				return
			}
			require.NoError(t, err)
			_, ok := r.Resolve(ctx, s.Key)
			assert.True(t, ok)
		})
	}
	assert.Regexp(t, `^scrypt\$16384\$8\$1\$[0-9a-f]{64}$`, one[string](t, r.DB(), "SELECT pw_hash FROM principals WHERE id = 'ada'"))
	assert.Regexp(t, `^[0-9a-f]{32}$`, one[string](t, r.DB(), "SELECT pw_salt FROM principals WHERE id = 'ada'"))

	err = r.SetPassword(ctx, "root", "another password")
	assert.Equal(t, &vine.Error{Code: vine.EForbidden, Message: "the environment account has no stored password",
		Hint: "Rotate MONKEYLLM_STATION_PASSWORD and restart."}, err)
	err = r.SetPassword(ctx, "ada", "short")
	assert.Equal(t, "password must be at least 12 characters", message(t, err))
	assert.Equal(t, "principal is required", message(t, r.SetPassword(ctx, " ", goodPassword)))
}

func TestBreakGlass(t *testing.T) {
	ctx := context.Background()
	const secret = "break-glass-Pa55word-never-on-disk"
	glass := registry.BreakGlass{User: "root", Password: secret}

	t.Run("takes the free owner seat, and it is never written", func(t *testing.T) {
		r, path := open(t, &registry.Options{BreakGlass: glass})
		owner, err := r.Owner(ctx)
		require.NoError(t, err)
		assert.Equal(t, "root", owner)
		s, err := r.Login(ctx, "root", secret)
		require.NoError(t, err)
		assert.True(t, s.Owner)
		for range 3 { // some traffic, so the WAL holds pages
			_, err = r.Login(ctx, "root", secret)
			require.NoError(t, err)
		}
		assertNotOnDisk(t, path, secret)
		require.NoError(t, r.Close())
		assertNotOnDisk(t, path, secret)
	})
	t.Run("a real owner keeps the seat; break-glass holds every cap on the boot forests", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "station.db")
		first := openAt(t, path, nil)
		_, err := first.Setup(ctx, "ada", goodPassword, "")
		require.NoError(t, err)
		require.NoError(t, first.Close())

		r := openAt(t, path, &registry.Options{BreakGlass: glass, Forests: []string{"acme", "zoo"}})
		owner, err := r.Owner(ctx)
		require.NoError(t, err)
		assert.Equal(t, "ada", owner, "break-glass never demotes a real owner")
		g, err := r.Grants(ctx, "root")
		require.NoError(t, err)
		require.Len(t, g, 2)
		for _, gr := range g {
			assert.Equal(t, caps(ad, an, in, qu, rd, te, wr), gr.Caps)
			assert.Equal(t, []string{""}, gr.Allow)
		}
		s, err := r.Login(ctx, "root", secret)
		require.NoError(t, err)
		assert.False(t, s.Owner)
		assert.True(t, s.Admin)
	})
}

// assertNotOnDisk greps the registry file and its WAL and shared-memory
// files for s.
func assertNotOnDisk(t *testing.T, path, s string) {
	t.Helper()
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		require.NoError(t, err)
		assert.False(t, bytes.Contains(b, []byte(s)), "%s holds the break-glass password", filepath.Base(f))
	}
}

// Every failure of the verifier costs one key derivation, so its clock
// tells an unknown user from a wrong password no better than its answer.
// Derivations are counted, not timed.
func TestVerifyPasswordCostsTheSame(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, &registry.Options{BreakGlass: registry.BreakGlass{User: "root", Password: "the env password"}})
	require.NoError(t, r.SetPassword(ctx, "ada", goodPassword))
	_, err := r.SetGrant(ctx, "svc", registry.Grant{Forest: "acme"})
	require.NoError(t, err)
	for _, user := range []string{"ada", "nobody", "svc", "root"} {
		n := registry.Derivations(func() {
			ok, err := r.VerifyPassword(ctx, user, "not the password")
			require.NoError(t, err)
			require.False(t, ok)
		})
		assert.Equal(t, 1, n, "%s: one derivation, as for a wrong password", user)
	}
}
