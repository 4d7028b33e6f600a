// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/rest"
)

// loadOpenAPI fetches the document without a key and validates it with
// kin-openapi, which reads OpenAPI 3.1 (JSON Schema 2020-12 included).
func loadOpenAPI(t *testing.T, st *station) *openapi3.T {
	t.Helper()
	r := st.do(http.MethodGet, "/v1/openapi.json", "", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	doc, err := openapi3.NewLoader().LoadFromData([]byte(r.body))
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	return doc
}

func TestOpenAPIDocumentValidates(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.Metrics = prometheus.NewRegistry() })
	doc := loadOpenAPI(t, st)
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	assert.True(t, doc.IsOpenAPI31OrLater())
	assert.Equal(t, "9.9.9-test", doc.Info.Version)

	look := doc.Paths.Find("/v1/forests/{forest}/look")
	require.NotNil(t, look, "one path per served primitive")
	body := look.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	assert.Contains(t, body.Required, "id", "the signature table's required parameters")
	assert.NotNil(t, body.Properties["id"])
	assert.Contains(t, look.Post.Description, "view", "the tool description MCP gives, neighbours included")
	assert.Nil(t, doc.Paths.Find("/v1/forests/{forest}/view"), "view is MCP's")
	assert.NotNil(t, doc.Paths.Find("/v1/forests/{forest}/ingest").Post.Responses.Value("202").Value.Headers["Location"])
	assert.NotNil(t, doc.Paths.Find("/v1/metrics"), "listed when served")
	assert.NotNil(t, doc.Paths.Find("/v1/forests/{forest}/payload/{node}"))
	health := doc.Paths.Find("/v1/health").Get
	require.NotNil(t, health.Security)
	assert.Empty(t, *health.Security, "health needs no key")

	without := loadOpenAPI(t, newStation(t, nil))
	assert.Nil(t, without.Paths.Find("/v1/metrics"), "not listed when not served")
}

// TestEveryListedRouteAnswers calls every operation the document lists,
// as the document describes it, and checks that each is routed (never
// 405 nor "no such endpoint"), answers a status the document gives it,
// and carries Server-Timing and a request id, refusals included.
func TestEveryListedRouteAnswers(t *testing.T) {
	st := newStation(t, func(o *rest.Options) { o.Metrics = prometheus.NewRegistry() })
	doc := loadOpenAPI(t, st)
	done := jobOf(t, st.post(keyFull, "ingest", `{"files":`+files(1)+`,"dest":"operations","wait":true}`))
	values := map[string]string{"forest": forestID, "job": done["id"].(string), "file": "mare-alta-20260101T000000Z.forest", "run": "no-such-run"}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	calls := 0
	for _, p := range paths {
		item := doc.Paths.Value(p)
		for method, op := range item.Operations() {
			target := p
			for name, v := range values {
				target = strings.ReplaceAll(target, "{"+name+"}", v)
			}
			node := st.man.Media
			if strings.Contains(p, "/export/") {
				node = "concepts/tide"
			}
			target = strings.ReplaceAll(target, "{node}", node)
			require.NotContains(t, target, "{", "every parameter filled: %s", p)
			body := ""
			if method == http.MethodPost {
				body = "{}"
			}
			if strings.HasSuffix(p, "/locate") {
				body = `{"query":"tide"}`
			}
			r := st.do(method, target, keyFull, body)
			calls++
			assert.NotEqual(t, http.StatusMethodNotAllowed, r.status, "%s %s", method, target)
			assert.NotContains(t, r.body, "no such endpoint", "%s %s", method, target)
			listed := op.Responses.Value(strconv.Itoa(r.status)) != nil || op.Responses.Default() != nil
			assert.True(t, listed, "%s %s answered %d, which the document does not give", method, target, r.status)
			assert.Regexp(t, serverTiming, r.header.Get("Server-Timing"), "%s %s", method, target)
			assert.NotEmpty(t, r.header.Get(rest.RequestIDHeader), "%s %s", method, target)
			if slices.Contains([]string{"/v1/forests/{forest}/locate", "/v1/me", "/v1/forests"}, p) {
				assert.Equal(t, http.StatusOK, r.status, "%s %s: %s", method, target, r.body)
			}
		}
	}
	assert.Greater(t, calls, 20, "the primitives and the other routes")
}

func TestOpenAPIListsTheFormUpload(t *testing.T) {
	doc := loadOpenAPI(t, newStation(t, nil))
	body := doc.Paths.Find("/v1/forests/{forest}/ingest").Post.RequestBody.Value
	assert.NotNil(t, body.Content.Get("multipart/form-data"))
	assert.NotNil(t, body.Content.Get("application/json"))
}
