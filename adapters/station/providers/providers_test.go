// SPDX-License-Identifier: Apache-2.0

package providers_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/internal/sqlitefile"
)

var clock = func() time.Time { return time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC) }

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sqlitefile.Open(filepath.Join(t.TempDir(), "station.db"), "_txlock=immediate", nil)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func open(t *testing.T, db *sql.DB, opt providers.Options) *providers.Store {
	t.Helper()
	if opt.Now == nil {
		opt.Now = clock
	}
	opt.RepairedFrom = max(opt.RepairedFrom, 1)
	s, err := providers.Open(context.Background(), db, opt)
	require.NoError(t, err)
	return s
}

func codeOf(err error) vine.Code { return vine.CodeOf(err) }

func TestSaveCustody(t *testing.T) {
	ctx := context.Background()
	s := open(t, openDB(t), providers.Options{})
	require.NoError(t, s.Save(ctx, "lab", "http://10.0.0.5:8080/v1", "sk-1"))
	tests := []struct {
		name, endpoint, key string
		code                vine.Code
		message             string
	}{
		{"", "http://x", "", vine.ESchema, "provider requires a 'name'"},
		{"a/b", "http://x", "", vine.ESchema, "provider requires a 'name'"},
		{"lab", "ftp://x", "", vine.ESchema, "endpoint must be an http(s) URL with a host"},
		{"lab", "http://", "", vine.ESchema, "endpoint must be an http(s) URL with a host"},
		{"lab", "http://elsewhere:8080/v1", "", vine.ESchema, "changing a provider's endpoint requires supplying its key again"},
		{"lab", "http://10.0.0.5:8080/v1", "", "", ""},      // blank key keeps the stored one
		{"lab", "http://elsewhere:8080/v1", "sk-2", "", ""}, // a new endpoint with its key
		{"keyless", "http://127.0.0.1:9/v1", "", "", ""},    // a keyless provider
		{"keyless", "http://127.0.0.1:10/v1", "", "", ""},   // has no key to follow it
	}
	for _, tt := range tests {
		err := s.Save(ctx, tt.name, tt.endpoint, tt.key)
		if tt.code == "" {
			assert.NoError(t, err, "%s %s", tt.name, tt.endpoint)
			continue
		}
		assert.Equal(t, tt.code, codeOf(err), "%s %s", tt.name, tt.endpoint)
		assert.ErrorContains(t, err, tt.message)
	}
	list, err := s.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []providers.Provider{
		{Name: "keyless", Endpoint: "http://127.0.0.1:10/v1", Origin: "console", Created: "2026-12-03T10:00:00Z"},
		{Name: "lab", Endpoint: "http://elsewhere:8080/v1", HasKey: true, Origin: "console", Created: "2026-12-03T10:00:00Z"},
	}, list)
	m, found := resolve(t, s, "lab")
	require.True(t, found)
	assert.Equal(t, "sk-2", m.APIKey, "the key supplied with the new endpoint")
}

// resolve binds forest f's answer role to provider p and resolves it.
func resolve(t *testing.T, s *providers.Store, p string) (providers.Model, bool) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.Bind(ctx, providers.Binding{Forest: "f", Role: providers.RoleAnswer, Provider: p, Model: "m"}))
	m, found, err := s.Resolve(ctx, "f", providers.RoleAnswer)
	require.NoError(t, err)
	return m, found
}

func TestEnvProviders(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	env := []providers.EnvProvider{
		{Role: "llm", Endpoint: "https://api.example.org/v1", APIKey: "sk-env"},
		{Role: "embed", Endpoint: "https://api.example.org/v1", APIKey: "sk-env"},       // same endpoint and key: one row
		{Role: "embed", Name: "api.example.org", Endpoint: "https://other.example.org"}, // a clash: <name>-<role>
	}
	s := open(t, db, providers.Options{Env: env})
	list, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, providers.Provider{Name: "api.example.org", Endpoint: "https://api.example.org/v1", HasKey: true,
		Origin: "env", Created: "2026-12-03T10:00:00Z"}, list[0])
	assert.Equal(t, "api.example.org-embed", list[1].Name)
	assert.False(t, list[1].HasKey)
	var stored sql.NullString
	require.NoError(t, db.QueryRow("SELECT api_key FROM providers WHERE name = 'api.example.org'").Scan(&stored))
	assert.False(t, stored.Valid, "an environment key is never stored")

	err = s.Save(ctx, "api.example.org", "https://x.example.org", "k")
	assert.Equal(t, vine.ESchema, codeOf(err))
	assert.ErrorContains(t, err, "MONKEYLLM_LLM_ENDPOINT")
	assert.Equal(t, vine.ESchema, codeOf(s.Remove(ctx, "api.example.org")))
	m, found := resolve(t, s, "api.example.org")
	require.True(t, found)
	assert.Equal(t, "sk-env", m.APIKey, "the key from memory")

	// Withdrawn from the environment: a keyless console row, bindings kept.
	s = open(t, db, providers.Options{})
	list, err = s.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, "console", list[0].Origin)
	assert.False(t, list[0].HasKey)
	b, err := s.Bindings(ctx, "f")
	require.NoError(t, err)
	assert.Len(t, b, 1)
}

func TestBindings(t *testing.T) {
	ctx := context.Background()
	s := open(t, openDB(t), providers.Options{})
	require.NoError(t, s.Save(ctx, "p", "http://10.0.0.1/v1", ""))
	refusals := []struct {
		b       providers.Binding
		message string
	}{
		{providers.Binding{Forest: "f", Role: "poet", Provider: "p", Model: "m"}, "unknown role: poet"},
		{providers.Binding{Forest: "f", Role: "embed", Provider: "nobody", Model: "m"}, "unknown provider: nobody"},
		{providers.Binding{Forest: "f", Role: "embed", Provider: "p"}, "binding requires a 'model'"},
		{providers.Binding{Forest: "f", Role: "embed", Provider: "p", Model: "m", MaxTokens: -1}, "max_tokens"},
		{providers.Binding{Forest: "f", Role: "embed", Provider: "p", Model: "m", Reasoning: "maybe"}, "reasoning"},
	}
	for _, tt := range refusals {
		err := s.Bind(ctx, tt.b)
		assert.Equal(t, vine.ESchema, codeOf(err), tt.message)
		assert.ErrorContains(t, err, tt.message)
	}
	for _, role := range []string{"embed", "answer", "ingest"} {
		require.NoError(t, s.Bind(ctx, providers.Binding{Forest: "f", Role: role, Provider: "p", Model: "m-" + role}))
	}
	got, err := s.Bindings(ctx, "f")
	require.NoError(t, err)
	assert.Equal(t, []providers.Binding{
		{Forest: "f", Role: "ingest", Provider: "p", Model: "m-ingest", MaxTokens: 600, Reasoning: "off"},
		{Forest: "f", Role: "answer", Provider: "p", Model: "m-answer", MaxTokens: 1500, Reasoning: "off"},
		{Forest: "f", Role: "embed", Provider: "p", Model: "m-embed", MaxTokens: 600, Reasoning: "off"},
	}, got, "catalogue order, defaults filled")
	require.NoError(t, s.Unbind(ctx, "f", "ingest"))
	require.NoError(t, s.Remove(ctx, "p"))
	got, err = s.Bindings(ctx, "f")
	require.NoError(t, err)
	assert.Empty(t, got, "removing a provider removes its bindings")
	assert.Equal(t, vine.ESchema, codeOf(s.Remove(ctx, "p")))
}

func TestRepairAnswerTokens(t *testing.T) {
	db := openDB(t)
	_, err := db.Exec(`CREATE TABLE model_bindings (forest TEXT NOT NULL, role TEXT NOT NULL, provider TEXT NOT NULL,
		model TEXT NOT NULL, max_tokens INTEGER NOT NULL DEFAULT 1500, reasoning TEXT NOT NULL DEFAULT 'off',
		PRIMARY KEY (forest, role));
		INSERT INTO model_bindings VALUES ('acme', 'answer', 'p', 'm', 600, 'off'), ('acme', 'ingest', 'p', 'm', 600, 'off')`)
	require.NoError(t, err)
	_, err = providers.Open(context.Background(), db, providers.Options{RepairedFrom: 0})
	require.NoError(t, err)
	var answer, ingest int
	require.NoError(t, db.QueryRow("SELECT max_tokens FROM model_bindings WHERE role = 'answer'").Scan(&answer))
	require.NoError(t, db.QueryRow("SELECT max_tokens FROM model_bindings WHERE role = 'ingest'").Scan(&ingest))
	assert.Equal(t, 1500, answer)
	assert.Equal(t, 600, ingest, "only answer bindings change")
}

// modelServer is a fake OpenAI-compatible /models that records the
// Authorization header of each request.
func modelServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"data":[{"id":"zeta"},{"id":"alpha","name":"Alpha","context_length":8192,
			"pricing":{"prompt":"0.000001","completion":0.000002}}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), auth...) }
}

func TestProviderTest(t *testing.T) {
	ctx := context.Background()
	srv, auth := modelServer(t)
	s := open(t, openDB(t), providers.Options{AllowPrivate: true})
	require.NoError(t, s.Save(ctx, "lab", srv.URL+"/v1", "sk-lab"))

	res, err := s.Test(ctx, providers.TestRequest{Name: "lab"})
	require.NoError(t, err)
	require.True(t, res.OK, res.Error)
	require.Equal(t, 2, *res.Count)
	assert.Equal(t, "alpha", res.Models[0].ID)
	assert.InDelta(t, 0.000001, *res.Models[0].Prompt, 1e-12)
	assert.Equal(t, 8192, *res.Models[0].Context)
	assert.Nil(t, res.Models[1].Prompt, "no price stated, none invented")
	assert.Equal(t, "zeta", res.Models[1].Name)

	// The stored key goes to the stored endpoint only.
	res, err = s.Test(ctx, providers.TestRequest{Name: "lab", Endpoint: srv.URL + "/v1/"})
	require.NoError(t, err)
	res2, err := s.Test(ctx, providers.TestRequest{Name: "lab", Endpoint: srv.URL})
	require.NoError(t, err)
	assert.False(t, res2.OK, "GET /models at the root is not there")
	assert.Equal(t, []string{"Bearer sk-lab", "", ""}, auth())

	_, err = s.Test(ctx, providers.TestRequest{})
	assert.Equal(t, vine.ESchema, codeOf(err))
	_, err = s.Test(ctx, providers.TestRequest{Name: "nobody"})
	assert.ErrorContains(t, err, "unknown provider: nobody")
}

func TestProviderTestRefusesPrivate(t *testing.T) {
	srv, auth := modelServer(t)
	s := open(t, openDB(t), providers.Options{})
	_, err := s.Test(context.Background(), providers.TestRequest{Endpoint: srv.URL + "/v1"})
	assert.Equal(t, vine.ESchema, codeOf(err))
	assert.ErrorContains(t, err, "endpoint resolves to a non-public address")
	assert.Empty(t, auth(), "nothing was sent")
}

// TestPrice: a bound model's cost comes from its provider's price
// listing, read once and kept; a model listed without a price, or a
// provider the address rule refuses, is unpriced (never $0.00).
func TestPrice(t *testing.T) {
	ctx := context.Background()
	srv, auth := modelServer(t)
	s := open(t, openDB(t), providers.Options{AllowPrivate: true})
	require.NoError(t, s.Save(ctx, "lab", srv.URL+"/v1", "sk-lab"))
	require.NoError(t, s.Bind(ctx, providers.Binding{Forest: "acme", Role: "answer", Provider: "lab", Model: "alpha"}))
	m, found, err := s.Resolve(ctx, "acme", "answer")
	require.NoError(t, err)
	require.True(t, found)

	r, ok := s.Price(ctx, m)
	require.True(t, ok)
	assert.InDelta(t, 0.000001*1000+0.000002*500, r.Cost(1000, 500), 1e-12)
	m.Model = "zeta"
	_, ok = s.Price(ctx, m)
	assert.False(t, ok, "listed without a price")
	assert.Equal(t, []string{"Bearer sk-lab"}, auth(), "one listing read, with the stored key, for both")

	closed := open(t, openDB(t), providers.Options{})
	_, ok = closed.Price(ctx, providers.Model{Endpoint: srv.URL + "/v1", Model: "alpha"})
	assert.False(t, ok, "a private address is not read without AllowPrivate")
	assert.Len(t, auth(), 1)
}
