// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/rest"
)

// A host serves a forest over REST: every request is authenticated by
// its key and sees the forest through that key's policy.
func ExampleNew() {
	tmp, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "harbour")
	if _, err := vine.Init(context.Background(), dir, "Harbour", nil); err != nil {
		log.Fatal(err)
	}
	reg, err := vine.NewRegistry(dir, &vine.Options{Observer: rest.TimingObserver{}})
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()

	// One key, reading the whole forest. A real host loads a keys file
	// with keys.Load, or serves itself alone with keys.Open.
	principals := fixedKeys{"mk_demo": {Name: "demo", Grants: map[string]vine.Policy{
		"harbour": {Allow: []string{""}, Caps: []vine.Capability{vine.CapRead}},
	}}}
	api := rest.New(reg, &rest.Options{Keys: principals})
	defer api.Close()

	// A local client: the default Host allow-list serves localhost, and
	// a call's body is declared JSON.
	req := httptest.NewRequest(http.MethodPost, "/v1/forests/harbour/look", strings.NewReader(`{"id":"_index"}`))
	req.Host = "localhost"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer mk_demo")
	w := httptest.NewRecorder()
	api.ServeHTTP(w, req)
	var digest struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	json.Unmarshal(w.Body.Bytes(), &digest)
	fmt.Println(w.Code, digest.ID, digest.Title)

	req = httptest.NewRequest(http.MethodPost, "/v1/forests/harbour/plant", strings.NewReader(`{}`))
	req.Host = "localhost"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer mk_demo")
	w = httptest.NewRecorder()
	api.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 200 _index Harbour
	// 403 {"error":{"code":"E_FORBIDDEN","message":"plant needs the write capability","hint":"this key holds: read"}}
}

// fixedKeys resolves a fixed set of secrets.
type fixedKeys map[string]*keys.Principal

func (f fixedKeys) Resolve(_ context.Context, secret string) (*keys.Principal, bool) {
	p, ok := f[secret]
	return p, ok
}
