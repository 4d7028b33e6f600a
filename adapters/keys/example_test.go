// SPDX-License-Identifier: Apache-2.0

package keys_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// An operator issues a key over one branch of a forest; a server
// resolves it and reads the policy it grants there.
func Example() {
	tmp, err := os.MkdirTemp("", "keys")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "keys.yaml")

	grants := map[string]vine.Policy{"acme": {Allow: []string{"sales/"}, Caps: []vine.Capability{vine.CapRead, vine.CapQuery}}}
	secret, k, err := keys.NewKey("reports-bot", grants, keys.NewKeyOptions{})
	if err != nil {
		log.Fatal(err)
	}
	f, err := keys.ReadFile(path) // missing: an empty file
	if err != nil {
		log.Fatal(err)
	}
	if err := f.Add(k); err != nil {
		log.Fatal(err)
	}
	if err := keys.WriteFile(path, f); err != nil {
		log.Fatal(err)
	}
	// The secret goes to the key's holder, once; the file keeps its digest.

	store, err := keys.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	p, ok := store.Resolve(context.Background(), secret)
	fmt.Println(ok, p.Name)
	pol, granted := p.Policy("acme")
	fmt.Println(granted, pol.Allow, pol.Caps)
	_, granted = p.Policy("other")
	fmt.Println(granted)
	_, ok = store.Resolve(context.Background(), "mk_guessed")
	fmt.Println(ok)
	// Output:
	// true reports-bot
	// true [sales/] [read query]
	// false
	// false
}
