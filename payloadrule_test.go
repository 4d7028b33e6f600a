// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/payload"
)

// The secrets a scoped caller must never read: rows of the hidden
// branch's dataset, of another forest's database, and a hidden node's
// summary as the derived catalog stores it.
const (
	hiddenRows   = "LEDGER-SECRET-7f3a"
	otherForest  = "OTHER-FOREST-SECRET-19c2"
	hiddenInMeta = "Cooperative ledger"
)

// trustForest is the fixture with a secret table in the hidden finance
// ledger, another forest's database beside it, and two symlinks in the
// visible branch that lead into the hidden one and into _derived.
type trustForest struct {
	dir, other string
	v          *Vine
}

func newTrustForest(t *testing.T, opts *Options) *trustForest {
	t.Helper()
	dir, _ := testforest.Fixture(t)
	addSecretTable(t, filepath.Join(dir, "finance", "ledger-2026.db"), hiddenRows)
	other := filepath.Join(filepath.Dir(dir), "other-forest")
	require.NoError(t, os.MkdirAll(other, 0o755))
	addSecretTable(t, filepath.Join(other, "secret.db"), otherForest)
	require.NoError(t, os.Symlink("../finance/ledger-2026.db", filepath.Join(dir, "concepts", "link.db")))
	require.NoError(t, os.Symlink("../_derived/catalog.db", filepath.Join(dir, "concepts", "catalog.db")))
	if opts == nil {
		opts = &Options{}
	}
	opts.Now = plantClock
	return &trustForest{dir: dir, other: other, v: openT(t, dir, opts)}
}

// addSecretTable writes a table holding secret into a SQLite file.
func addSecretTable(t *testing.T, file, secret string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.ToSlash(file))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE vault(word TEXT)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO vault VALUES (?)`, secret)
	require.NoError(t, err)
}

// escapes are payload values that reach past a caller's scope, each with
// the code a scoped plant answers and whether a read treats the value as
// visible in the passport alone (E_SCHEMA on view-like doors) or as absent.
func (f *trustForest) escapes() []struct {
	name, payload string
	remote        bool
} {
	abs := func(p string) string { return filepath.Join(f.dir, filepath.FromSlash(p)) }
	return []struct {
		name, payload string
		remote        bool
	}{
		{"dot-dot into a hidden branch", "../finance/ledger-2026.db", false},
		{"dot-dot into _derived", "../_derived/catalog.db", false},
		{"_derived below the folder", "_derived/catalog.db", false},
		{"dot-dot into .git", "../.git/HEAD", false},
		{"absolute path", abs("finance/ledger-2026.db"), false},
		{"symlink into a hidden branch", "link.db", false},
		{"symlink into _derived", "catalog.db", false},
		{"file:// into a hidden branch", "file://" + filepath.ToSlash(abs("finance/ledger-2026.db")), true},
		{"file:// into another forest", "file://" + filepath.ToSlash(filepath.Join(f.other, "secret.db")), true},
		{"file:// into _derived", "file://" + filepath.ToSlash(abs("_derived/catalog.db")), true},
	}
}

// scoped is the attacker: a key allowed only concepts/, able to read,
// write, query and tend.
func (f *trustForest) scoped(t *testing.T) *Scoped {
	t.Helper()
	sc, err := f.v.Scoped(Policy{Allow: []string{"concepts/"}, Caps: []Capability{CapRead, CapWrite, CapQuery, CapTend}})
	require.NoError(t, err)
	return sc
}

// handWrite puts a passport on disk as an editor (or an older policy)
// would have, and reindexes, so reads meet a payload no plant checked.
func (f *trustForest) handWrite(t *testing.T, id, front string) {
	t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(id)+".md")
	require.NoError(t, os.WriteFile(p, []byte("---\nid: "+id+"\n"+front+"---\n\n# Probe\n"), 0o644))
	_, err := f.v.Reindex(context.Background())
	require.NoError(t, err)
}

// noSecret fails when any secret shows in a result or a refusal.
func noSecret(t *testing.T, what string, res any, err error) {
	t.Helper()
	b, _ := json.Marshal(res)
	text := string(b)
	if err != nil {
		text += err.Error()
		if e, ok := err.(*Error); ok {
			text += string(e.Body())
		}
	}
	for _, s := range []string{hiddenRows, otherForest, hiddenInMeta} {
		assert.NotContains(t, text, s, what)
	}
}

func TestPayloadEscapeRefusedAtPlant(t *testing.T) {
	f := newTrustForest(t, nil)
	sc := f.scoped(t)
	ctx := context.Background()
	for _, e := range f.escapes() {
		for _, typ := range []string{"dataset", "media"} {
			t.Run(e.name+"/"+typ, func(t *testing.T) {
				before := testforest.TreeDigest(t, f.dir)
				node := map[string]any{"id": "concepts/probe", "parent": "concepts/_index", "type": typ, "title": "Probe",
					"summary": "A passport naming a payload outside its node's folder.", "payload": e.payload}
				if typ == "dataset" {
					node["payload_type"] = "sqlite"
				} else {
					node["payload_type"] = "image"
				}
				for _, dry := range []bool{true, false} {
					args, _ := json.Marshal(map[string]any{"node": node, "dry_run": dry})
					res, err := sc.Call(ctx, "plant", args)
					require.Error(t, err, "dry_run=%v", dry)
					assert.Equal(t, ESchema, CodeOf(err), "dry_run=%v: %v", dry, err)
					assert.Contains(t, err.Error(), "payload", "the refusal is the payload's")
					noSecret(t, e.name, res, err)
				}
				assert.Equal(t, before, testforest.TreeDigest(t, f.dir), "a refusal leaves the forest as it was")
			})
		}
	}
}

func TestPayloadEscapeRefusedAtPlantForTheOwnerToo(t *testing.T) {
	f := newTrustForest(t, nil)
	ctx := context.Background()
	for _, e := range f.escapes() {
		if e.remote {
			continue // the owner's fetcher is the host's choice
		}
		t.Run(e.name, func(t *testing.T) {
			before := testforest.TreeDigest(t, f.dir)
			args, _ := json.Marshal(map[string]any{"node": map[string]any{"id": "concepts/probe", "parent": "concepts/_index",
				"type": "dataset", "title": "Probe", "summary": "A passport naming a payload outside its node's folder.",
				"payload": e.payload, "payload_type": "sqlite"}})
			_, err := f.v.Call(ctx, "plant", args)
			assert.Equal(t, ESchema, CodeOf(err), "%v", err)
			assert.Contains(t, err.Error(), "payload", "the refusal is the payload's")
			assert.Equal(t, before, testforest.TreeDigest(t, f.dir))
		})
	}
}

func TestPayloadCannotBeGrafted(t *testing.T) {
	f := newTrustForest(t, nil)
	sc := f.scoped(t)
	before := testforest.TreeDigest(t, f.dir)
	for _, e := range f.escapes() {
		args, _ := json.Marshal(map[string]any{"id": "concepts/tide",
			"patch": map[string]any{"set_frontmatter": map[string]any{"payload": e.payload}}})
		res, err := sc.Call(context.Background(), "graft", args)
		assert.Equal(t, EReadOnly, CodeOf(err), "%s: payload is not graft-mutable (C.8): %v", e.name, err)
		noSecret(t, e.name, res, err)
	}
	assert.Equal(t, before, testforest.TreeDigest(t, f.dir))
}

// TestPayloadEscapeRefusedAtEveryRead: a passport written before the
// rule (or by hand) is checked again by every door that follows it.
func TestPayloadEscapeRefusedAtEveryRead(t *testing.T) {
	f := newTrustForest(t, nil)
	sc := f.scoped(t)
	ctx := context.Background()
	for _, e := range f.escapes() {
		t.Run(e.name, func(t *testing.T) {
			f.handWrite(t, "concepts/probe", "type: dataset\ntitle: Probe\nsummary: A passport written by hand.\n"+
				"payload: "+e.payload+"\npayload_type: sqlite\n")
			before := testforest.TreeDigest(t, f.dir)
			doors := []struct {
				name string
				run  func() (any, error)
				want []Code
			}{
				{"query", func() (any, error) {
					return sc.Call(ctx, "query", []byte(`{"id": "concepts/probe", "sql": "SELECT word FROM vault"}`))
				}, []Code{ENotFound, ESchema}},
				{"tend", func() (any, error) {
					return sc.Call(ctx, "tend", []byte(`{"id": "concepts/probe", "sql": "DELETE FROM vault WHERE 1"}`))
				}, []Code{ENotFound, EQueryForbidden}},
				{"payload bytes", func() (any, error) {
					pf, err := f.v.OpenPayload(sc.Context(ctx), "concepts/probe")
					if err == nil {
						pf.Close()
					}
					return nil, err
				}, []Code{ENotFound, ESchema}},
				{"view", func() (any, error) {
					return sc.Call(ctx, "view", []byte(`{"id": "concepts/probe"}`))
				}, []Code{ENotFound, ESchema}},
			}
			for _, d := range doors {
				res, err := d.run()
				require.Error(t, err, d.name)
				assert.Contains(t, d.want, CodeOf(err), "%s: %v", d.name, err)
				noSecret(t, d.name, res, err)
			}
			res, err := sc.Call(ctx, "look", []byte(`{"id": "concepts/probe"}`))
			require.NoError(t, err)
			noSecret(t, "look", res, err)
			d := res.(*Digest)
			assert.True(t, d.PayloadMissing || e.remote, "look: a payload out of reach is missing")
			assert.Nil(t, d.QueryManual, "look: no map of a payload out of reach")
			assert.Equal(t, before, testforest.TreeDigest(t, f.dir), "refusals leave the forest as it was")
		})
	}
}

// TestPayloadDenyInsideTheFolder: a payload below the node's folder but
// under a denied prefix is hidden like a hidden node.
func TestPayloadDenyInsideTheFolder(t *testing.T) {
	f := newTrustForest(t, nil)
	ctx := context.Background()
	require.NoError(t, os.MkdirAll(filepath.Join(f.dir, "concepts", "private"), 0o755))
	addSecretTable(t, filepath.Join(f.dir, "concepts", "private", "x.db"), hiddenRows)
	f.handWrite(t, "concepts/probe", "type: dataset\ntitle: Probe\nsummary: A passport written by hand.\n"+
		"payload: private/x.db\npayload_type: sqlite\n")
	sc, err := f.v.Scoped(Policy{Allow: []string{"concepts/"}, Deny: []string{"concepts/private/"},
		Caps: []Capability{CapRead, CapWrite, CapQuery, CapTend}})
	require.NoError(t, err)

	_, err = f.v.Query(ctx, "concepts/probe", "SELECT word FROM vault")
	require.NoError(t, err, "the owner reads it")
	res, err := sc.Call(ctx, "query", []byte(`{"id": "concepts/probe", "sql": "SELECT word FROM vault"}`))
	assert.Equal(t, ENotFound, CodeOf(err))
	noSecret(t, "query", res, err)

	args := `{"node": {"id": "concepts/probe2", "parent": "concepts/_index", "type": "dataset", "title": "P", "payload_type": "sqlite",
		"summary": "A second passport onto a denied file.", "payload": "private/x.db"}}`
	before := testforest.TreeDigest(t, f.dir)
	_, err = sc.Call(ctx, "plant", []byte(args))
	assert.Equal(t, EForbidden, CodeOf(err), "plant names a payload outside the grant: %v", err)
	assert.Equal(t, before, testforest.TreeDigest(t, f.dir))
}

// TestFileFetcherConfinedUnderPolicy: under a policy, file:// is followed
// only through a confined fetcher, and a confined fetcher never serves a
// forest's _derived or .git.
func TestFileFetcherConfinedUnderPolicy(t *testing.T) {
	probe := func(f *trustForest, uri string) (any, error) {
		f.handWrite(t, "concepts/probe", "type: dataset\ntitle: Probe\nsummary: A remote passport.\n"+
			"payload: "+uri+"\npayload_type: sqlite\n")
		sc, err := f.v.Scoped(Policy{Allow: []string{"concepts/"}, Caps: []Capability{CapRead, CapQuery}})
		require.NoError(t, err)
		return sc.Call(context.Background(), "query", []byte(`{"id": "concepts/probe", "sql": "SELECT word FROM vault"}`))
	}
	t.Run("unconfined", func(t *testing.T) {
		f := newTrustForest(t, nil)
		res, err := probe(f, "file://"+filepath.ToSlash(filepath.Join(f.other, "secret.db")))
		assert.Equal(t, ESchema, CodeOf(err))
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Contains(t, e.Hint, "--file-root")
		noSecret(t, "query", res, err)
		_, err = f.v.Query(context.Background(), "concepts/probe", "SELECT word FROM vault")
		assert.NoError(t, err, "unscoped calls are the host's own and keep file://")
	})
	t.Run("confined", func(t *testing.T) {
		root := t.TempDir()
		f := newTrustForest(t, &Options{Fetcher: payload.Registry{"file": payload.FileFetcher{Root: root}}})
		// Inside the root: served.
		addSecretTable(t, filepath.Join(root, "shared.db"), "SHARED-ROW")
		res, err := probe(f, "file://"+filepath.ToSlash(filepath.Join(root, "shared.db")))
		require.NoError(t, err)
		assert.Contains(t, fmt.Sprint(res), "SHARED-ROW")
		// Outside the root, and a forest's machinery inside it: absent.
		require.NoError(t, os.MkdirAll(filepath.Join(root, "forest", "_derived"), 0o755))
		addSecretTable(t, filepath.Join(root, "forest", "_derived", "catalog.db"), otherForest)
		for _, uri := range []string{
			"file://" + filepath.ToSlash(filepath.Join(f.other, "secret.db")),
			"file://" + filepath.ToSlash(filepath.Join(root, "forest", "_derived", "catalog.db")),
		} {
			res, err := probe(f, uri)
			assert.Equal(t, ENotFound, CodeOf(err), uri)
			noSecret(t, uri, res, err)
		}
	})
}

// TestTableGrantFollowsThePayloadFile: an allow-list protects the file,
// so a second passport onto it inherits the list, and look's manual
// leaves the withheld tables out.
func TestTableGrantFollowsThePayloadFile(t *testing.T) {
	f := newTrustForest(t, nil)
	ctx := context.Background()
	f.handWrite(t, "finance/ledger-copy", "type: dataset\ntitle: Copy\nsummary: A second passport on the ledger.\n"+
		"payload: ledger-2026.db\npayload_type: sqlite\n")
	sc, err := f.v.Scoped(Policy{Allow: []string{"finance/"}, Caps: []Capability{CapRead, CapQuery, CapTend},
		Datasets: map[string]DatasetGrant{"finance/ledger-2026": {Tables: []string{"ledger"}}}})
	require.NoError(t, err)
	before := testforest.TreeDigest(t, f.dir)
	for _, id := range []string{"finance/ledger-2026", "finance/ledger-copy"} {
		res, err := sc.Call(ctx, "query", []byte(`{"id": "`+id+`", "sql": "SELECT word FROM vault"}`))
		assert.Equal(t, EQueryForbidden, CodeOf(err), id)
		noSecret(t, id, res, err)
		_, err = sc.Call(ctx, "tend", []byte(`{"id": "`+id+`", "sql": "DELETE FROM vault WHERE 1"}`))
		assert.Equal(t, EQueryForbidden, CodeOf(err), id)
		_, err = sc.Call(ctx, "query", []byte(`{"id": "`+id+`", "sql": "SELECT COUNT(*) FROM ledger"}`))
		assert.NoError(t, err, "%s: the granted table stays readable", id)

		res, err = sc.Call(ctx, "look", []byte(`{"id": "`+id+`"}`))
		require.NoError(t, err)
		d := res.(*Digest)
		require.NotNil(t, d.QueryManual, id)
		assert.Contains(t, d.QueryManual.Tables, "ledger", id)
		assert.NotContains(t, d.QueryManual.Tables, "vault", id)
		for _, q := range d.QueryManual.ExampleQueries {
			assert.NotContains(t, strings.ToLower(q), "vault", id)
		}
	}
	assert.Equal(t, before, testforest.TreeDigest(t, f.dir))

	// The owner still sees every table.
	d, err := f.v.Look(ctx, "finance/ledger-copy", LookOptions{})
	require.NoError(t, err)
	assert.Contains(t, d.QueryManual.Tables, "vault")
}
