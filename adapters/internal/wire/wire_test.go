// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/internal/testforest"
)

func render(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestParamSchemaPerWireType(t *testing.T) {
	tests := []struct {
		typ  vine.ParamType
		want string
	}{
		{vine.TString, `{"type":"string"}`},
		{vine.TInteger, `{"type":"integer"}`},
		{vine.TNumber, `{"type":"number"}`},
		{vine.TBoolean, `{"type":"boolean"}`},
		{vine.TObject, `{"type":"object"}`},
		{vine.TStringList, `{"type":"array","items":{"type":"string"}}`},
		{vine.TObjectList, `{"type":"array","items":{"type":"object"}}`},
		{vine.TStringOrList, `{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}`},
		{vine.TObjectOrList, `{"anyOf":[{"type":"object"},{"type":"array","items":{"type":"object"}}]}`},
		{vine.TBoolOrInteger, `{"anyOf":[{"type":"boolean"},{"type":"integer"}]}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			b, err := json.Marshal(ParamSchema(vine.Param{Name: "p", Type: tt.typ}))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestParamSchemaCarriesDefaultEnumDoc(t *testing.T) {
	p := vine.Param{Name: "direction", Type: vine.TString, Default: "out", Enum: []string{"out", "in", "both"}, Doc: "which way"}
	assert.Equal(t, map[string]any{"type": "string", "default": "out", "enum": []any{"out", "in", "both"}, "description": "which way"},
		render(t, ParamSchema(p)))
	assert.Equal(t, float64(5), render(t, ParamSchema(vine.Param{Name: "k", Type: vine.TInteger, Default: 5}))["default"])
	assert.Equal(t, false, render(t, ParamSchema(vine.Param{Name: "f", Type: vine.TBoolean, Default: false}))["default"],
		"a false default is a default, not an absent one")
}

func TestInputSchemaForestArgument(t *testing.T) {
	sig, ok := vine.LookupSignature("look")
	require.True(t, ok)
	tests := []struct {
		forest       ForestArg
		wantForest   bool
		wantRequired []any
	}{
		{ForestNone, false, []any{"id"}},
		{ForestOptional, true, []any{"id"}},
		{ForestRequired, true, []any{"forest", "id"}},
	}
	for _, tt := range tests {
		m := render(t, InputSchema(sig, tt.forest))
		assert.Equal(t, "object", m["type"])
		assert.Equal(t, false, m["additionalProperties"], "unknown parameters are refused, so the schema says so")
		props := m["properties"].(map[string]any)
		_, has := props[ForestParam]
		assert.Equal(t, tt.wantForest, has)
		assert.Equal(t, tt.wantRequired, m["required"])
		assert.Len(t, props, len(sig.Params)+map[bool]int{true: 1}[tt.wantForest])
	}
}

func TestInputSchemaKeepsTableOrder(t *testing.T) {
	sig, ok := vine.LookupSignature("locate")
	require.True(t, ok)
	b, err := json.Marshal(InputSchema(sig, ForestOptional))
	require.NoError(t, err)
	last := -1
	for _, name := range append([]string{ForestParam}, paramNames(sig)...) {
		i := strings.Index(string(b), `"`+name+`":`)
		require.Greater(t, i, last, "property %s out of table order", name)
		last = i
	}
}

func paramNames(sig vine.Signature) []string {
	var out []string
	for _, p := range sig.Params {
		out = append(out, p.Name)
	}
	return out
}

// mentions reports whether text names tool as a word.
func mentions(text, tool string) bool {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(tool) + `\b`).MatchString(text)
}

func TestDescriptionNamesBudget(t *testing.T) {
	for _, sig := range vine.Signatures() {
		d := Description(sig)
		assert.True(t, strings.HasPrefix(d, strings.TrimSpace(sig.Doc)), sig.Name)
		if sig.Budget > 0 {
			assert.Contains(t, d, " "+strconv.Itoa(sig.Budget)+" tokens", sig.Name)
		} else {
			assert.Contains(t, d, "No token budget", sig.Name)
		}
	}
}

// TestDescriptionNamesNeighbour checks spec 08 §4.3 r7 on the served text:
// each tool names the one that does what it refuses.
func TestDescriptionNamesNeighbour(t *testing.T) {
	want := map[string][]string{
		"locate":     {"sniff", "calendar", "coverage"},
		"sniff":      {"locate", "coverage"},
		"look":       {"pick", "view"},
		"query":      {"tend"},
		"tend":       {"query"},
		"plant":      {"graft", "if_absent", "transplant"},
		"graft":      {"transplant", "plant"},
		"prune":      {"force", "transplant"},
		"transplant": {"graft"},
		"harvest":    {"pick", "sniff", "coverage"},
	}
	for tool, names := range want {
		sig, ok := vine.LookupSignature(tool)
		require.True(t, ok, tool)
		for _, n := range names {
			assert.True(t, mentions(Description(sig), n), "%s description should name %s: %s", tool, n, Description(sig))
		}
	}
	served := map[string]bool{ForestsTool: true}
	for _, sig := range vine.Signatures() {
		served[sig.Name] = true
	}
	for _, sig := range vine.Signatures() {
		named := false
		for other := range served {
			named = named || other != sig.Name && mentions(Description(sig), other)
		}
		assert.True(t, named, "%s: the description names no neighbour tool", sig.Name)
	}
}

func TestEncodeIsCompactUnescapedOrdered(t *testing.T) {
	type res struct {
		Zeta  string   `json:"zeta"`
		Alpha []string `json:"alpha"`
	}
	b, err := Encode(res{Zeta: "<tag> & Maré", Alpha: []string{"a"}})
	require.NoError(t, err)
	assert.Equal(t, `{"zeta":"<tag> & Maré","alpha":["a"]}`, string(b))

	_, err = Encode(func() {})
	assert.Error(t, err)
}

func TestRefusalBody(t *testing.T) {
	e := &vine.Error{Code: vine.ENotFound, Message: "no such node: a", Hint: "call locate"}
	assert.Equal(t, `{"error":{"code":"E_NOT_FOUND","message":"no such node: a","hint":"call locate"}}`, string(Refusal("look", e)))
	internal := string(Refusal("look", &json.SyntaxError{}))
	assert.Contains(t, internal, `"code":"E_INTERNAL"`)
	assert.Contains(t, internal, "look")
}

func TestHostsAllowed(t *testing.T) {
	h := NewHosts(LocalHosts("8800"))
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"localhost:8800", true},
		{"LOCALHOST:8800", true},
		{"127.0.0.1:8800", true},
		{"[::1]:8800", true},
		{"[::1]", true},
		{"localhost:8801", false},
		{"evil.example", false},
		{"localhost.evil.example", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, h.Allowed(tt.host), tt.host)
	}
	anyPort := LocalHostsAnyPort()
	assert.True(t, anyPort.Allowed("127.0.0.1:43121"))
	assert.True(t, anyPort.Allowed("[::1]:43121"))
	assert.False(t, anyPort.Allowed("example.com:43121"))
	assert.True(t, NewHosts([]string{"*"}).Allowed("anything.example"))
	assert.False(t, NewHosts(nil).Allowed("localhost"), "an empty list serves nobody")
}

func TestHostsOrigin(t *testing.T) {
	h := NewHosts([]string{"kb.example.org", "localhost:8800"})
	tests := []struct {
		origin string
		want   bool
	}{
		{"", true},
		{"https://kb.example.org", true},
		{"http://localhost:8800", true},
		{"http://evil.example", false},
		{"https://kb.example.org.evil.example", false},
		{"https://kb.example.org/path", false},
		{"null", false},
		{"ftp://kb.example.org", false},
		{"chrome-extension://baopdbbppagblncnendomapdjlfpgong", true},
		{"moz-extension://4b3c2a1d-0000-4000-8000-123456789abc", true},
		{"chrome-extension://", false},
		{"chrome-extension://id/path", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, h.OriginAllowed(tt.origin), tt.origin)
	}
	assert.True(t, NewHosts([]string{"*"}).OriginAllowed("http://evil.example"), `"*" turns the Origin check off too`)
}

func TestHostsLocalOnlyAndWildcard(t *testing.T) {
	assert.True(t, NewHosts(LocalHosts("8800")).LocalOnly())
	assert.True(t, NewHosts([]string{"testserver", "0.0.0.0:80", "::1"}).LocalOnly())
	assert.False(t, NewHosts([]string{"localhost", "kb.example.org"}).LocalOnly())
	assert.False(t, NewHosts([]string{"*"}).LocalOnly())
	assert.True(t, NewHosts([]string{"localhost", "*"}).Wildcard())
	assert.Equal(t, []string{"a", "b:1"}, ParseHosts(" a, ,b:1 ,"))
	assert.Nil(t, ParseHosts(""))
}

func TestGuardRefusals(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	g := NewHosts([]string{"localhost:8800"}).Guard(next)
	serve := func(host, origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		return w
	}
	assert.Equal(t, http.StatusTeapot, serve("localhost:8800", "").Code)
	assert.Equal(t, http.StatusTeapot, serve("localhost:8800", "http://localhost:8800").Code)

	w := serve("evil.example", "")
	assert.Equal(t, http.StatusMisdirectedRequest, w.Code)
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var env struct {
		Error map[string]string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &env))
	assert.Equal(t, "E_HOST_NOT_ALLOWED", env.Error["code"])
	assert.Equal(t, `host not allowed: "evil.example"`, env.Error["message"])
	assert.Contains(t, env.Error["hint"], HostsEnv)
	assert.Contains(t, env.Error["hint"], `"*"`)
	assert.NotContains(t, w.Body.String(), "localhost:8800", "the refusal never reveals the list")

	w = serve("", "")
	assert.Equal(t, http.StatusMisdirectedRequest, w.Code)
	assert.Contains(t, w.Body.String(), "no Host header was sent")

	w = serve("localhost:8800", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Contains(t, w.Body.String(), `"code":"E_FORBIDDEN"`)
	assert.Contains(t, w.Body.String(), `origin not allowed: \"http://evil.example\"`)

	w = serve("x\n"+strings.Repeat("h", 400), "")
	assert.Contains(t, w.Body.String(), `x\\n`, "control characters are escaped")
	assert.Less(t, w.Body.Len(), 700, "a long Host is quoted bounded")
}

func TestListForestsSingle(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	reg, err := vine.NewRegistry(dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	got := ListForests(reg, "1.2.3")
	assert.Equal(t, "1.2.3", got.Station)
	require.Len(t, got.Forests, 1)
	assert.Equal(t, ForestInfo{ID: "mare-alta", Caps: LocalCaps, Roots: []string{"_index"}}, got.Forests[0])
	b, err := Encode(got)
	require.NoError(t, err)
	assert.Equal(t, `{"forests":[{"id":"mare-alta","caps":["read","write","query","tend","ingest","admin","answer"],"roots":["_index"],"hybrid":false}],"station":"1.2.3"}`, string(b))
}

func TestVersionIsNeverEmpty(t *testing.T) {
	assert.NotEmpty(t, Version())
}

func FuzzHosts(f *testing.F) {
	f.Add("localhost,localhost:8800,[::1]", "localhost:8800", "http://localhost:8800")
	f.Add("*", "", "null")
	f.Add(" ,::1,", "[::1]:1", "https://[::1]:1")
	f.Fuzz(func(t *testing.T, list, host, origin string) {
		entries := ParseHosts(list)
		h := NewHosts(entries)
		for _, e := range entries {
			if !h.Allowed(e) {
				t.Fatalf("listed entry %q not allowed", e)
			}
		}
		h.OriginAllowed(origin)
		if h.Allowed(host) != h.Allowed(strings.ToUpper(host)) && strings.ToLower(strings.ToUpper(host)) == strings.ToLower(host) {
			t.Fatalf("case changed the answer for %q", host)
		}
		if h.LocalOnly() && h.Wildcard() {
			t.Fatal("a wildcard list is not local only")
		}
	})
}

func TestSecret(t *testing.T) {
	tests := []struct {
		name, auth, apiKey, want string
	}{
		{"bearer", "Bearer mk_abc", "", "mk_abc"},
		{"scheme case", "bearer  mk_abc ", "", "mk_abc"},
		{"api key", "", "mk_xyz", "mk_xyz"},
		{"bearer wins", "Bearer mk_abc", "mk_xyz", "mk_abc"},
		{"basic is no key", "Basic dXNlcjpwYXNz", "mk_xyz", ""},
		{"none", "", "", ""},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.auth != "" {
			h.Set("Authorization", tt.auth)
		}
		if tt.apiKey != "" {
			h.Set("X-API-Key", tt.apiKey)
		}
		assert.Equal(t, tt.want, Secret(h), tt.name)
	}
}

func TestRootsAgreeWithTheEngine(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	v, err := vine.Open(context.Background(), dir, &vine.Options{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	for _, allow := range [][]string{{""}, {"sales/"}, {"/sales", " ops/runbooks/ "}, {"a/", ""}, {}} {
		p := vine.Policy{Allow: allow, Caps: []vine.Capability{vine.CapRead}}
		sc, err := v.Scoped(p)
		require.NoError(t, err)
		assert.Equal(t, sc.Roots(), Roots(p), "%q", allow)
	}
	assert.Equal(t, []string{"read", "write", "query", "tend", "ingest", "admin", "answer"}, CapNames(vine.FullPolicy()))
}

func FuzzSecret(f *testing.F) {
	f.Add("Bearer mk_abc", "")
	f.Add("", "mk_xyz")
	f.Add("bearer", "x")
	f.Fuzz(func(t *testing.T, auth, apiKey string) {
		h := http.Header{"Authorization": {auth}, "X-Api-Key": {apiKey}}
		got := Secret(h)
		if got != strings.TrimSpace(got) {
			t.Fatalf("secret %q is not trimmed", got)
		}
		if auth != "" && got != "" && !strings.Contains(auth, got) {
			t.Fatalf("secret %q is not from the Authorization header %q", got, auth)
		}
	})
}

func TestForestsGrant(t *testing.T) {
	root := t.TempDir()
	for _, id := range []string{"harbour", "lighthouse"} {
		_, err := vine.Init(context.Background(), filepath.Join(root, id), "The "+id, nil)
		require.NoError(t, err)
	}
	reg, err := vine.NewRegistry(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	f := NewForests(reg, "call forests() to list them")
	p := &keys.Principal{Name: "p", Mask: []vine.Capability{vine.CapRead},
		Grants: map[string]vine.Policy{"harbour": {Allow: []string{"docs/"}, Caps: []vine.Capability{vine.CapAdmin}}}}

	id, pol, err := f.Grant(p, "harbour")
	require.NoError(t, err)
	assert.Equal(t, "harbour", id)
	assert.Equal(t, []vine.Capability{vine.CapRead}, pol.Caps, "masked")

	_, _, ungranted := f.Grant(p, "lighthouse")
	_, _, unknown := f.Grant(p, "nowhere")
	assert.Equal(t, `{"error":{"code":"E_NOT_FOUND","message":"unknown forest: lighthouse","hint":"call forests() to list them"}}`,
		string(Refusal("x", ungranted)))
	assert.Equal(t, strings.ReplaceAll(string(Refusal("x", unknown)), "nowhere", "lighthouse"), string(Refusal("x", ungranted)),
		"an ungranted forest reads as an unknown one")

	_, _, missing := f.Grant(p, "")
	e := vine.AsError("x", missing)
	assert.Equal(t, vine.ESchema, e.Code)
	assert.Equal(t, "available forests: harbour; call forests() to list them", e.Hint, "only forests the caller may use")

	sc, err := f.Open(context.Background(), p, "harbour")
	require.NoError(t, err)
	assert.Equal(t, []string{"docs/_index"}, sc.Roots())
	_, err = f.Open(context.Background(), keys.LocalOwner(), "nowhere")
	assert.Equal(t, vine.ENotFound, vine.CodeOf(err))

	list := ListForestsFor(f, "1.0", p)
	require.Len(t, list.Forests, 1)
	assert.Equal(t, ForestInfo{ID: "harbour", Caps: []string{"read"}, Roots: []string{"docs/_index"}}, list.Forests[0])
	assert.Len(t, ListForestsFor(f, "1.0", keys.LocalOwner()).Forests, 2)
}

func TestDevelVersionNamesTheRevision(t *testing.T) {
	s := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	assert.Equal(t, "(devel)", develVersion(nil))
	assert.Equal(t, "devel+0123456789ab", develVersion(s("vcs.revision", "0123456789abcdef", "vcs.modified", "false")))
	assert.Equal(t, "devel+0123456789ab.dirty", develVersion(s("vcs.revision", "0123456789abcdef", "vcs.modified", "true")))
}

func TestTitlesAndDestructive(t *testing.T) {
	for _, sig := range vine.Signatures() {
		assert.NotEqual(t, sig.Name, Title(sig.Name), "%s has a title", sig.Name)
	}
	assert.Equal(t, "teleport", Title("teleport"), "no title: the name")
	graft, _ := vine.LookupSignature("graft")
	assert.True(t, Destructive(graft), "graft replaces bodies and removes links")
	prune, _ := vine.LookupSignature("prune")
	assert.True(t, Destructive(prune))
	look, _ := vine.LookupSignature("look")
	assert.False(t, Destructive(look))
}

// An owner lists every forest served, granted or not, with every cap; a
// forest made after its key was minted included. An unknown forest still
// answers as unknown once opened.
func TestForestsOwner(t *testing.T) {
	root := t.TempDir()
	for _, id := range []string{"harbour", "lighthouse"} {
		_, err := vine.Init(context.Background(), filepath.Join(root, id), "The "+id, nil)
		require.NoError(t, err)
	}
	reg, err := vine.NewRegistry(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { reg.Close() })
	f := NewForests(reg, "call forests() to list them")
	owner := &keys.Principal{Name: "o", Owner: true}
	list := ListForestsFor(f, "1.0", owner)
	require.Len(t, list.Forests, 2)
	for _, fi := range list.Forests {
		assert.Equal(t, LocalCaps, fi.Caps)
		assert.Equal(t, []string{"_index"}, fi.Roots)
	}
	_, err = f.Open(context.Background(), owner, "nowhere")
	assert.Equal(t, vine.ENotFound, vine.CodeOf(err))

	masked := &keys.Principal{Name: "o", Owner: true, Mask: []vine.Capability{vine.CapRead}}
	assert.Empty(t, ListForestsFor(f, "1.0", masked).Forests, "a mask without admin drops the owner bit")
}
