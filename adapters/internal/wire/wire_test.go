package wire

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	_ "github.com/monkeyllm/vine/harvest"
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
