package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/envelope"
)

// WithPrincipal returns a context whose writes carry the commit trailer
// "station-principal: <principal>" (J.4). The core never invents or reads
// it; transports set it per call, so the returned sha is the stamped one.
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return gitops.WithTrailers(ctx, gitops.Trailer{Key: gitops.PrincipalKey, Value: principal})
}

// txn is one write: every node file it changes lands with one commit, or
// none does. Files are staged in memory, written by rename, and restored
// (or removed, with directories the write created) if anything fails
// before the commit is made.
type txn struct {
	v       *Vine
	puts    []*forest.Node
	removes []string // node ids
	done    []undo
}

type undo struct {
	path    string
	prev    []byte // nil: the file did not exist
	madeDir string // a directory this write created, removed on rollback
}

// beginWrite takes the writer mutex; the returned release must be called.
func (v *Vine) beginWrite(op string) (*txn, func(), error) {
	if err := v.writable(op); err != nil {
		return nil, nil, err
	}
	v.wmu.Lock()
	return &txn{v: v}, v.wmu.Unlock, nil
}

// put stages a node write after proving the bytes read back: a write must
// never leave a file the next read refuses.
func (t *txn) put(n *forest.Node) error {
	data := n.Bytes()
	back, err := t.v.parse(n.ID, data)
	if err != nil {
		return fmt.Errorf("vine: %s would not read back: %w", n.ID, err)
	}
	t.puts = append(t.puts, back)
	return nil
}

// remove stages a node file deletion.
func (t *txn) remove(id string) { t.removes = append(t.removes, id) }

// commit writes the staged files, commits them, and upserts the catalog.
// It returns the commit sha.
func (t *txn) commit(ctx context.Context, subject string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var add, del []string
	for _, n := range t.puts {
		if err := t.writeFile(n); err != nil {
			return "", errors.Join(err, t.rollback())
		}
		add = append(add, n.ID+forest.NodeExt)
	}
	for _, id := range t.removes {
		if err := t.deleteFile(id); err != nil {
			return "", errors.Join(err, t.rollback())
		}
		del = append(del, id+forest.NodeExt)
	}
	sha, err := t.v.repo.Commit(ctx, gitops.Message{Subject: subject}, add, del,
		gitops.Options{When: t.v.now()})
	if err != nil {
		return "", errors.Join(err, t.rollback())
	}
	t.syncCatalog(ctx)
	return sha, nil
}

// syncCatalog brings the derived catalog in step. The commit has landed,
// so a catalog failure is logged, not returned: files are the truth and
// reindex repairs the catalog.
func (t *txn) syncCatalog(ctx context.Context) {
	recs := make([]catalog.Record, len(t.puts))
	for i, n := range t.puts {
		recs[i] = recordOf(n)
	}
	if err := t.v.cat.Upsert(ctx, recs...); err != nil {
		t.v.log.Error("catalog upsert after commit failed; reindex repairs it", "err", err)
	}
	t.v.canopyWritten(ctx, t.puts)
	if len(t.removes) > 0 {
		if err := t.v.cat.Delete(ctx, t.removes...); err != nil {
			t.v.log.Error("catalog delete after commit failed; reindex repairs it", "err", err)
		}
	}
	for _, n := range t.puts {
		if n.ID == forest.SchemaID {
			t.v.loadDialect()
		}
	}
}

func (t *txn) writeFile(n *forest.Node) error {
	path, err := t.v.root.Path(n.ID)
	if err != nil {
		return err
	}
	u := undo{path: path}
	if prev, err := os.ReadFile(path); err == nil {
		u.prev = prev
	}
	dir := filepath.Dir(path)
	if top := firstMissing(dir); top != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		u.madeDir = top
	}
	t.done = append(t.done, u)
	return writeAtomic(path, n.Bytes())
}

func (t *txn) deleteFile(id string) error {
	path, err := t.v.root.Path(id)
	if err != nil {
		return err
	}
	prev, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	t.done = append(t.done, undo{path: path, prev: prev})
	return os.Remove(path)
}

// rollback restores every file touched, newest first.
func (t *txn) rollback() error {
	var errs []error
	for i := len(t.done) - 1; i >= 0; i-- {
		u := t.done[i]
		if u.prev != nil {
			errs = append(errs, writeAtomic(u.path, u.prev))
		} else if err := os.Remove(u.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		if u.madeDir != "" {
			errs = append(errs, os.RemoveAll(u.madeDir))
		}
	}
	t.done = nil
	return errors.Join(errs...)
}

// writeAtomic replaces path with data through a temporary file and a
// rename, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vine-*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// firstMissing returns the outermost ancestor of dir (or dir itself) that
// does not exist yet, or "" when dir exists.
func firstMissing(dir string) string {
	top := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			return top
		}
		top = d
		if filepath.Dir(d) == d {
			return top
		}
	}
}

// writable is the first check of every write (E_READONLY before any
// other check, dry runs included).
func (v *Vine) writable(op string) error {
	if v.readOnly {
		return envelope.New(envelope.ReadOnly, op+": this forest is open read-only",
			"open it writable to change it; reads keep working")
	}
	return nil
}
