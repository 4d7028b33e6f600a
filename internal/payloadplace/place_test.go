// SPDX-License-Identifier: Apache-2.0

package payloadplace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/payload"
)

// newPlace is a Place over a forest holding finance/ledger.db beside the
// node finance/ledger, and a link finance/away.db leading out of it.
func newPlace(t *testing.T, f payload.Fetcher) (*Place, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "finance"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "finance", "ledger.db"), []byte("db"), 0o644))
	outside := filepath.Join(t.TempDir(), "secret.db")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "finance", "away.db")))
	root, err := forest.NewRoot(dir)
	require.NoError(t, err)
	return New(root, nil, f, nil), root.Dir()
}

func TestStatAppliesTheRuleAndTheScope(t *testing.T) {
	p, dir := newPlace(t, nil)
	f := p.Stat(Scope{}, "finance/ledger", "ledger.db")
	assert.True(t, f.Present)
	assert.Equal(t, "finance/ledger.db", f.Rel)
	assert.Equal(t, int64(2), f.Size)

	abs, rel, ok := p.OnDisk(Scope{}, "finance/ledger", "ledger.db")
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "finance", "ledger.db"), abs)
	assert.Equal(t, "finance/ledger.db", rel)

	hidden := Scope{Bound: true, Sees: func(rel string) bool { return !strings.HasPrefix(rel, "finance/") }}
	f = p.Stat(hidden, "finance/ledger", "ledger.db")
	assert.False(t, f.Present, "out of scope answers as absent")
	assert.False(t, f.Escapes)
	assert.True(t, f.Missing())

	assert.True(t, p.Stat(Scope{}, "finance/ledger", "../ledger.db").Escapes, "a name that leaves its folder escapes")
	linked := p.Stat(Scope{}, "finance/ledger", "away.db")
	assert.False(t, linked.Present, "a link out of the forest is absent")
	assert.False(t, linked.Escapes, "and not an escape the passport shows")

	remote := p.Stat(Scope{}, "finance/ledger", "s3://bucket/ledger.db")
	assert.True(t, remote.Remote)
	assert.False(t, remote.Missing())
}

func TestCheckWrite(t *testing.T) {
	p, _ := newPlace(t, nil)
	assert.NoError(t, p.CheckWrite(Scope{}, "plant", "finance/ledger", ""))
	assert.NoError(t, p.CheckWrite(Scope{}, "plant", "finance/ledger", "ledger.db"))

	err := p.CheckWrite(Scope{}, "plant", "finance/ledger", "../ledger.db")
	assert.Equal(t, envelope.Schema, envelope.CodeOf(err))
	assert.ErrorContains(t, err, "plant: ")

	hidden := Scope{Bound: true, Sees: func(string) bool { return false }}
	assert.ErrorIs(t, p.CheckWrite(hidden, "plant", "finance/ledger", "ledger.db"), ErrHidden)
}

func TestFollowedConfinesFileUnderAPolicy(t *testing.T) {
	unconfined, _ := newPlace(t, payload.Registry{"file": payload.FileFetcher{}})
	bound := Scope{Bound: true}
	assert.NoError(t, unconfined.Followed(Scope{}, "look", "x", "file:///etc/passwd"), "the host's own call follows every scheme")
	assert.Equal(t, envelope.Schema, envelope.CodeOf(unconfined.Followed(bound, "look", "x", "file:///etc/passwd")))
	assert.NoError(t, unconfined.Followed(bound, "look", "x", "s3://b/k"))

	confined, _ := newPlace(t, payload.Registry{"file": payload.FileFetcher{Root: t.TempDir()}})
	assert.NoError(t, confined.Followed(bound, "look", "x", "file:///srv/a.db"))
}

func TestLocalReadsTheCacheWithoutFetching(t *testing.T) {
	p, _ := newPlace(t, payload.Registry{})
	uri := "s3://bucket/ledger.db"
	f := p.Stat(Scope{}, "finance/ledger", uri)
	assert.Empty(t, p.Local(Scope{}, "look", recordOf("finance/ledger", uri), f), "a read never downloads")

	c := p.Cache().Path(uri)
	require.NoError(t, os.MkdirAll(filepath.Dir(c), 0o755))
	require.NoError(t, os.WriteFile(c, []byte("db"), 0o644))
	assert.Equal(t, c, p.Local(Scope{}, "look", recordOf("finance/ledger", uri), f))
}

func TestRefusal(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code envelope.Code
	}{
		{&payload.SchemeError{URI: "gs://b/k", Scheme: "gs"}, envelope.Schema},
		{&payload.HashError{URI: "s3://b/k", Want: "a", Got: "b"}, envelope.Schema},
		{fmt.Errorf("gone: %w", fs.ErrNotExist), envelope.NotFound},
	} {
		assert.Equal(t, tc.code, envelope.CodeOf(Refusal("query", "x", "s3://b/k", tc.err)), "%v", tc.err)
	}
	assert.ErrorIs(t, Refusal("query", "x", "s3://b/k", context.Canceled), context.Canceled)
	other := errors.New("disk on fire")
	assert.ErrorIs(t, Refusal("query", "x", "s3://b/k", other), other)
	assert.NotContains(t, []envelope.Code{envelope.Schema, envelope.NotFound}, envelope.CodeOf(Refusal("query", "x", "s3://b/k", other)), "the host's failure stays internal")
}

func recordOf(id, payloadName string) catalog.Record {
	return catalog.Record{ID: id, Payload: payloadName}
}
