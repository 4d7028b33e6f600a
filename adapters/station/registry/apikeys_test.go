// SPDX-License-Identifier: Apache-2.0

package registry_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

const day = 24 * time.Hour

func TestMintExpiry(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, &registry.Options{Now: newClock().Now})
	tests := []struct {
		name    string
		opt     registry.MintOptions
		expires string
		refusal string
	}{
		{"default 90 days", registry.MintOptions{}, "2026-05-30T12:00:00Z", ""},
		{"a week", registry.MintOptions{ExpiresIn: 7 * day}, "2026-03-08T12:00:00Z", ""},
		{"the maximum", registry.MintOptions{ExpiresIn: 365 * day}, "2027-03-01T12:00:00Z", ""},
		{"beyond, refused not clamped", registry.MintOptions{ExpiresIn: 366 * day}, "", "expires_in_days must be at most 365"},
		{"negative", registry.MintOptions{ExpiresIn: -day}, "", "expires_in_days must be positive"},
		{"a session lives 12 h whatever is asked", registry.MintOptions{Kind: registry.KindSession, ExpiresIn: 300 * day},
			"2026-03-02T00:00:00Z", ""},
		{"unknown mask caps", registry.MintOptions{Mask: caps(rd, "sudo", "root")}, "", "unknown capabilities: [root, sudo]"},
		{"unknown kind", registry.MintOptions{Kind: "robot"}, "", "unknown key kind: robot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := r.Mint(ctx, "svc", tt.opt)
			if tt.refusal != "" {
				assert.Equal(t, vine.ESchema, code(err))
				assert.Equal(t, tt.refusal, message(t, err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.expires, m.Key.ExpiresAt)
			assert.Regexp(t, regexp.MustCompile(`^mk_[A-Za-z0-9_-]{43}$`), m.Secret)
			assert.Equal(t, m.Secret[:9], m.Key.Prefix)
			assert.Equal(t, keys.Digest(m.Secret), m.Key.ID)
			assert.Equal(t, 0, one[int](t, r.DB(), "SELECT COUNT(*) FROM api_keys WHERE key_hash = ?", m.Secret),
				"only the digest is stored")
		})
	}
	assert.Equal(t, "principal is required", message(t, func() error { _, err := r.Mint(ctx, "", registry.MintOptions{}); return err }()))
}

func TestResolveLifecycle(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	r, _ := open(t, &registry.Options{Now: c.Now})
	_, err := r.SetGrant(ctx, "svc", registry.Grant{Forest: "acme", Caps: caps(ad)})
	require.NoError(t, err)
	week, err := r.Mint(ctx, "svc", registry.MintOptions{Label: "week", ExpiresIn: 7 * day})
	require.NoError(t, err)
	c.Advance(time.Second) // the listing orders by creation
	revoked, err := r.Mint(ctx, "svc", registry.MintOptions{Label: "revoked"})
	require.NoError(t, err)
	c.Advance(time.Second)
	masked, err := r.Mint(ctx, "svc", registry.MintOptions{Label: "masked", Mask: caps(rd, qu)})
	require.NoError(t, err)
	c.Advance(time.Second)
	session, err := r.OpenSession(ctx, "svc")
	require.NoError(t, err)
	_, err = r.RevokeKey(ctx, revoked.Key.ID)
	require.NoError(t, err)

	tests := []struct {
		name    string
		advance time.Duration
		secret  string
		ok      bool
		caps    []vine.Capability
	}{
		{"active", 0, week.Secret, true, keys.AllCaps},
		{"masked: the grant narrowed at the moment of use", 0, masked.Secret, true, caps(rd, qu)},
		{"session", 0, session.Key, true, keys.AllCaps},
		{"revoked", 0, revoked.Secret, false, nil},
		{"unknown", 0, "mk_nobody", false, nil},
		{"empty", 0, "", false, nil},
		{"session at 12 h is expired (expires_at <= now)", 12 * time.Hour, session.Key, false, nil},
		{"a week later the week key is expired", 7 * day, week.Secret, false, nil},
		{"the 90-day key still works", 0, masked.Secret, true, caps(rd, qu)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Advance(tt.advance)
			p, ok := r.Resolve(ctx, tt.secret)
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, "svc", p.Name)
				pol, granted := p.Policy("acme")
				require.True(t, granted)
				assert.Equal(t, tt.caps, keys.Expand(pol.Caps))
			}
		})
	}

	list, err := r.ListKeys(ctx, []string{"svc"})
	require.NoError(t, err)
	var labels, statuses []string
	for _, k := range list {
		labels, statuses = append(labels, k.Label), append(statuses, k.Status)
	}
	assert.Equal(t, []string{"masked", "revoked", "week"}, labels, "api keys only, newest first")
	assert.Equal(t, []string{"active", "revoked", "expired"}, statuses)
	assert.Equal(t, []string{"query", "read"}, []string{string(list[0].Caps[0]), string(list[0].Caps[1])})
	assert.NotEmpty(t, list[1].RevokedAt)
	none, err := r.ListKeys(ctx, []string{})
	require.NoError(t, err)
	assert.Empty(t, none, "an empty list of principals matches nobody")

	registry.FlushUsage(r)
	list, err = r.ListKeys(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, "2026-03-09T00:00:03Z", list[0].LastUsedAt, "the last resolve of the masked key is stamped")
	assert.Empty(t, list[1].LastUsedAt, "a refused key is not stamped")

	_, err = r.OpenSession(ctx, "svc")
	require.NoError(t, err)
	assert.Equal(t, 1, one[int](t, r.DB(), "SELECT COUNT(*) FROM api_keys WHERE kind = 'session'"),
		"the expired session row went when the next one was minted")
}

func TestRevoke(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	r, _ := open(t, &registry.Options{Now: c.Now})
	a, err := r.Mint(ctx, "svc", registry.MintOptions{Label: "a"})
	require.NoError(t, err)
	b, err := r.Mint(ctx, "svc", registry.MintOptions{Label: "b"})
	require.NoError(t, err)
	other, err := r.Mint(ctx, "other", registry.MintOptions{})
	require.NoError(t, err)
	s, err := r.OpenSession(ctx, "svc")
	require.NoError(t, err)

	_, err = r.KeyOwner(ctx, "nope")
	assert.Equal(t, vine.ENotFound, code(err))
	_, err = r.RevokeKey(ctx, "nope")
	assert.Equal(t, "no such token", message(t, err))
	owner, err := r.KeyOwner(ctx, a.Key.ID)
	require.NoError(t, err)
	assert.Equal(t, "svc", owner)

	k, err := r.RevokeKey(ctx, a.Key.ID)
	require.NoError(t, err)
	assert.Equal(t, "revoked", k.Status)
	first := k.RevokedAt
	c.Advance(time.Hour)
	k, err = r.RevokeKey(ctx, a.Key.ID)
	require.NoError(t, err)
	assert.Equal(t, first, k.RevokedAt, "revoking again keeps the first time")

	got, err := r.RevokeKeys(ctx, "svc", []string{b.Key.ID, other.Key.ID})
	require.NoError(t, err)
	require.Len(t, got, 1, "ids of another principal are ignored")
	assert.Equal(t, b.Key.ID, got[0].ID)
	_, ok := r.Resolve(ctx, other.Secret)
	assert.True(t, ok)
	_, ok = r.Resolve(ctx, s.Key)
	assert.True(t, ok)

	got, err = r.RevokeKeys(ctx, "svc", nil)
	require.NoError(t, err)
	require.Len(t, got, 1, "all: the session with them")
	_, ok = r.Resolve(ctx, s.Key)
	assert.False(t, ok, "revoking all keys ends open sessions (09 §17.14)")
}

func TestResolveReadsLiveGrants(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, nil)
	_, err := r.SetGrant(ctx, "svc", registry.Grant{Forest: "acme", Caps: caps(rd, wr), Allow: []string{"sales"}})
	require.NoError(t, err)
	m, err := r.Mint(ctx, "svc", registry.MintOptions{Mask: caps(rd)})
	require.NoError(t, err)
	p, ok := r.Resolve(ctx, m.Secret)
	require.True(t, ok)
	pol, ok := p.Policy("acme")
	require.True(t, ok)
	assert.Equal(t, caps(rd), pol.Caps)
	assert.Equal(t, []string{"sales/"}, pol.Allow)

	removed, err := r.RevokeGrant(ctx, "svc", "acme")
	require.NoError(t, err)
	assert.True(t, removed)
	p, ok = r.Resolve(ctx, m.Secret)
	require.True(t, ok, "the key still authenticates")
	_, ok = p.Policy("acme")
	assert.False(t, ok, "revoking the grant narrowed the key at once")
}

// A writer holding the registry (an audit burst, a grant) never holds up
// a key's resolution: the read goes through WAL, and the last-use stamp
// waits behind the call.
func TestResolveIsNotSlowedByAWriter(t *testing.T) {
	ctx := context.Background()
	r, _ := open(t, nil)
	m, err := r.Mint(ctx, "svc", registry.MintOptions{})
	require.NoError(t, err)
	tx, err := r.DB().BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
	require.NoError(t, err)
	_, err = tx.Exec("UPDATE principals SET kind = 'service'")
	require.NoError(t, err)
	for range 20 {
		_, ok := r.Resolve(ctx, m.Secret) // a resolve that needed the lock would fail after busy_timeout
		require.True(t, ok)
	}
	list, err := r.ListKeys(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, list[0].LastUsedAt, "the stamp waits behind the calls while the writer holds the file")
	require.NoError(t, tx.Rollback())
	registry.FlushUsage(r)
	list, err = r.ListKeys(ctx, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, list[0].LastUsedAt, "stamped once the writer let go")
}
