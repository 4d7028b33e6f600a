// SPDX-License-Identifier: Apache-2.0

package registry_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/registry"
)

// The first visitor creates the owner; the owner grants a colleague one
// branch of a forest and mints a key for them; the key resolves to the
// grant, and stops working once revoked.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "station")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	reg, err := registry.Open(ctx, filepath.Join(dir, "station.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()

	owner, err := reg.Setup(ctx, "ada", "correct horse battery", "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("owner:", owner.Principal, owner.Owner)
	_, err = reg.Setup(ctx, "eve", "correct horse battery", "")
	fmt.Println("second setup closed:", err == registry.ErrSetupClosed)

	caps, _ := registry.RoleCaps("analyst")
	if _, err := reg.SetGrant(ctx, "bob", registry.Grant{Forest: "acme", Caps: caps, Allow: []string{"sales"}}); err != nil {
		log.Fatal(err)
	}
	if ok, _ := reg.AdministersFully(ctx, owner.Principal, "bob"); ok {
		key, err := reg.Mint(ctx, "bob", registry.MintOptions{Label: "bob's laptop"})
		if err != nil {
			log.Fatal(err)
		}
		p, ok := reg.Resolve(ctx, key.Secret)
		pol, _ := p.Policy("acme")
		fmt.Println(ok, p.Name, pol.Allow, pol.Caps)

		if _, err := reg.RevokeKey(ctx, key.Key.ID); err != nil {
			log.Fatal(err)
		}
		_, ok = reg.Resolve(ctx, key.Secret)
		fmt.Println("after revocation:", ok)
	}
	_, err = reg.Mint(ctx, "bob", registry.MintOptions{ExpiresIn: 400 * 24 * time.Hour})
	fmt.Println(vine.CodeOf(err), err)
	// Output:
	// owner: ada true
	// second setup closed: true
	// true bob [sales/] [read query answer]
	// after revocation: false
	// E_SCHEMA E_SCHEMA: expires_in_days must be at most 365
}
