// SPDX-License-Identifier: Apache-2.0

package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/monkeyllm/vine/fetch"
)

// vault serves vault://<name> from memory and confines its scheme: it can
// only ever answer the objects its host put in it.
type vault map[string][]byte

func (v vault) Fetch(ctx context.Context, uri string, w io.Writer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, ok := v[strings.TrimPrefix(uri, "vault://")]
	if !ok {
		return fmt.Errorf("vault: %s: %w", uri, fs.ErrNotExist)
	}
	_, err := w.Write(b)
	return err
}

func (vault) Confines(scheme string) bool { return scheme == "vault" }

// A fetcher copies the bytes a URI names, answers fs.ErrNotExist for a URI
// that names nothing, and may say it confines its scheme.
func Example() {
	var f fetch.Fetcher = vault{"ledger.db": []byte("SQLite format 3\x00")}

	var buf bytes.Buffer
	err := f.Fetch(context.Background(), "vault://ledger.db", &buf)
	fmt.Printf("%d bytes, err %v\n", buf.Len(), err)

	err = f.Fetch(context.Background(), "vault://missing.db", io.Discard)
	fmt.Println("missing:", errors.Is(err, fs.ErrNotExist))

	c, ok := f.(fetch.Confiner)
	fmt.Println("confines vault:", ok && c.Confines("vault"))
	// Output:
	// 16 bytes, err <nil>
	// missing: true
	// confines vault: true
}
