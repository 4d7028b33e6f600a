// SPDX-License-Identifier: Apache-2.0

package payload_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/payload"
)

// A remote payload is fetched once into the cache, checked against the
// passport's payload_hash; later reads hit the verified copy, and bytes
// that do not match are never cached.
func ExampleCache() {
	work, err := os.MkdirTemp("", "payload-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	data := []byte("SQLite format 3\x00...")
	src := filepath.Join(work, "ledger.db")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		log.Fatal(err)
	}
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(src)}).String()
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])

	cache := payload.Cache{Dir: filepath.Join(work, "_derived", "payloads"), Fetcher: payload.DefaultRegistry()}
	file, fetched, err := cache.Get(context.Background(), uri, hash)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("fetched:", fetched, "entry:", filepath.Base(file) == payload.CacheName(uri))

	_, fetched, _ = cache.Get(context.Background(), uri, hash)
	fmt.Println("fetched again:", fetched)

	_, _, err = cache.Get(context.Background(), uri, "0000")
	var mismatch *payload.HashError
	fmt.Println("refused:", errors.As(err, &mismatch))
	// Output:
	// fetched: true entry: true
	// fetched again: false
	// refused: true
}
