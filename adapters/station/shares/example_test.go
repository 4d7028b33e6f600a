// SPDX-License-Identifier: Apache-2.0

package shares_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/adapters/station/shares"
)

// A share is made once, its token handed out inside a link, and resolved
// from the token alone until it expires or is revoked.
func ExampleStore() {
	dir, _ := os.MkdirTemp("", "station")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite3", "file:"+filepath.ToSlash(filepath.Join(dir, "station.db")))
	defer db.Close()

	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	store, err := shares.New(ctx, db, &shares.Options{Now: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	made, _ := store.Create(ctx, "acme", "notes/tide", "ana", shares.DefaultDays)
	url := "/s/" + made.Token // the only time the token is seen

	sh, ok, _ := store.Resolve(ctx, url[len("/s/"):])
	fmt.Println(ok, sh.Node, sh.Issuer, sh.Expires)
	store.Revoke(ctx, made.ID)
	_, ok, _ = store.Resolve(ctx, made.Token)
	fmt.Println(ok, shares.NotFound().Message)
	// Output:
	// true notes/tide ana 2026-12-08T09:00:00Z
	// false share not found
}
