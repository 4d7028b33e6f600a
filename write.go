// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/bodysum"
	"github.com/monkeyllm/vine/internal/journal"
	"github.com/monkeyllm/vine/internal/recovery"
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
//
// Before it touches a file, a txn notes the change in the forest's intent
// log (internal/journal), so that a writer killed half-way is repaired by
// the next one (recovery.Recoverer).
type txn struct {
	v         *Vine
	op        string
	puts      []*forest.Node
	data      [][]byte // the bytes of puts[i], as written
	removes   []string // node ids
	done      []undo
	committed bool        // the commit landed
	events    []HookEvent // told to Options.OnEvent once released (events.go)
}

type undo struct {
	path    string
	prev    []byte // nil: the file did not exist
	madeDir string // a directory this write created, removed on rollback
}

// beginWrite takes the writer mutex; the returned release must be called.
// Release settles the intent log: a committed write ends it, and a write
// that did not commit is put back by the same repair a crash would get, so
// nothing it began outlives it, whatever path its failure took.
//
// The forest's writer lock is taken here, for this write only: any number
// of processes may hold a forest open writable, and their writes queue
// behind each other for up to Options.LockWait.
func (v *Vine) beginWrite(op string) (*txn, func(), error) {
	if err := v.writable(op); err != nil {
		return nil, nil, err
	}
	v.wmu.Lock()
	lock, err := v.lockForest(context.Background())
	if err != nil {
		v.wmu.Unlock()
		return nil, nil, err
	}
	t := &txn{v: v, op: op}
	return t, func() {
		t.settle()
		t.recycle()
		if err := lock.Release(); err != nil {
			v.log.Error("writer lock not released", "err", err)
		}
		v.wmu.Unlock()
		t.flushEvents()
	}, nil
}

// lockForest takes the forest's writer lock, waiting behind another
// writer up to lockWait, then repairs a write another process left
// half-done (recovery.Recoverer) and picks up a dialect another process
// changed. The caller releases the lock.
func (v *Vine) lockForest(ctx context.Context) (*forest.Lock, error) {
	lock, err := forest.AcquireLockWait(ctx, v.root.Dir(), v.lockWait)
	if err != nil {
		return nil, err
	}
	rec, err := v.recoverer.Recover(ctx, true)
	if err != nil {
		lock.Release()
		return nil, err
	}
	if rec != nil {
		v.recovery.Store(recoveryOf(rec))
	}
	v.refreshDialect()
	return lock, nil
}

// recycle gives back the buffers the finished write owns: the files it
// rendered and the previous contents it kept to restore them.
func (t *txn) recycle() {
	for _, data := range t.data {
		putRender(data)
	}
	for _, u := range t.done {
		putRender(u.prev)
	}
	t.data, t.done = nil, nil
}

// note writes one intent record, beginning the log on the first.
func (t *txn) note(kind journal.Kind, rel, to string) error {
	j := t.v.journal
	if !j.Active() {
		base, err := t.v.repo.Head()
		if err != nil {
			return err
		}
		if err := j.Begin(t.op, base); err != nil {
			return err
		}
	}
	return j.Note(journal.Record{Kind: kind, Path: rel, To: to})
}

// noteFile notes a change to an absolute path inside the forest.
func (t *txn) noteFile(kind journal.Kind, abs string) error {
	return t.note(kind, t.rel(abs), "")
}

// rel is an absolute path inside the forest as the intent log names it:
// forest-relative, with "/" separators.
func (t *txn) rel(abs string) string {
	r, _ := filepath.Rel(t.v.root.Dir(), abs)
	return filepath.ToSlash(r)
}

// settle ends the intent log of a finished write. A write that did not
// commit has usually undone itself; the repair makes sure of it.
func (t *txn) settle() {
	j := t.v.journal
	if j == nil || !j.Active() {
		return
	}
	if t.committed {
		if err := j.End(); err != nil {
			t.v.log.Error("intent log not ended; the next open settles it", "err", err)
		}
		return
	}
	if err := j.Close(); err != nil {
		t.v.log.Error("intent log not closed", "err", err)
	}
	if _, err := t.v.recoverer.Recover(context.Background(), false); err != nil {
		t.v.log.Error("a failed write could not be fully undone; the next open retries", "op", t.op, "err", err)
	}
}

// put stages a node write after proving the bytes read back: a write must
// never leave a file the next read refuses.
func (t *txn) put(n *forest.Node) error {
	data, back, err := forest.AppendEncoded(getRender(), n, t.v.readLimits)
	if err != nil {
		putRender(data)
		return fmt.Errorf("vine: %s would not read back: %w", n.ID, err)
	}
	t.puts = append(t.puts, back)
	t.data = append(t.data, data)
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
	written := make(map[string][]byte, len(t.puts))
	for i, n := range t.puts {
		written[n.ID+forest.NodeExt] = t.data[i]
	}
	// A folder's index is hashed while the files are written, not after.
	pre := gitops.Prehash(written)
	defer pre.Wait() // before the buffers are recycled, even if git is never reached
	for i, n := range t.puts {
		if err := t.writeFile(ctx, n, t.data[i]); err != nil {
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
	upsert := t.upsertCatalog(ctx)
	received := false
	defer func() {
		if !received { // git panicked: the catalog's writer must not be left mid-upsert
			<-upsert
		}
	}()
	sha, err := t.v.repo.Commit(ctx, gitops.Message{Subject: subject}, add, del,
		gitops.Options{When: t.v.now(), Written: written, Prehashed: pre})
	up := <-upsert
	received = true
	if err != nil {
		// The catalog may hold the write already; the repair that follows
		// a write that did not commit (settle) puts it back with the files.
		return "", errors.Join(err, t.rollback())
	}
	t.committed = true
	t.syncCatalog(ctx, up)
	return sha, nil
}

// catalogUpsert is what upsertCatalog did: the catalog generation it
// started from, and its error.
type catalogUpsert struct {
	before int64
	err    error
}

// upsertCatalog writes the records of the write's nodes into the catalog
// on another goroutine, so that the catalog's work overlaps git's commit
// of the same files instead of following it. The records are summed here:
// the body sums memo belongs to the writer, not to the goroutine.
func (t *txn) upsertCatalog(ctx context.Context) <-chan catalogUpsert {
	recs := make([]catalog.Record, len(t.puts))
	for i, n := range t.puts {
		var sums *bodysum.Memo
		if forest.IsIndex(n.ID) { // rewritten by every write into its folder
			sums = &t.v.sums
		}
		recs[i] = recordSummed(n, sums)
	}
	before := t.v.generation(ctx)
	out := make(chan catalogUpsert, 1)
	go func() {
		out <- catalogUpsert{before: before, err: t.v.cat.Upsert(ctx, recs...)}
	}()
	return out
}

// syncCatalog brings the rest of the derived state in step once the
// commit has landed. A catalog failure is logged, not returned: files are
// the truth and reindex repairs the catalog.
func (t *txn) syncCatalog(ctx context.Context, up catalogUpsert) {
	before := up.before
	if up.err != nil {
		before = -1 // the catalog did not move with the files: trust nothing remembered
		t.v.log.Error("catalog upsert of a committed write failed; reindex repairs it", "err", up.err)
	}
	t.v.canopy.Written(ctx, writtenIDs(t.puts)...)
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
	t.rememberIndexes(ctx, before)
}

// rememberIndexes keeps the indexes this write put (recentIndexes), for
// the catalog generation its update left; before is the generation the
// update started from, -1 when it failed.
func (t *txn) rememberIndexes(ctx context.Context, before int64) {
	t.v.recent.advance(before, t.v.generation(ctx))
	for i, n := range t.puts {
		if !forest.IsIndex(n.ID) {
			continue
		}
		if path, err := t.v.root.TrustedPath(n.ID); err == nil {
			t.v.recent.keep(path, n, t.data[i])
			t.data[i] = nil // the recent index owns it now
		}
	}
}

func (t *txn) writeFile(ctx context.Context, n *forest.Node, data []byte) error {
	path, err := t.v.root.Path(n.ID)
	if err != nil {
		return err
	}
	u := undo{path: path}
	if data, ok := t.v.recent.take(t.v.generation(ctx), n.ID, path); ok {
		u.prev = data
	} else if prev, err := forest.ReadFile(path); err == nil {
		u.prev = prev
	}
	dir := filepath.Dir(path)
	if top := firstMissing(dir); top != "" {
		if err := t.noteFile(journal.Dir, top); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		u.madeDir = top
	}
	if err := t.noteFile(journal.Put, path); err != nil {
		return err
	}
	t.done = append(t.done, u)
	return writeAtomic(path, data)
}

func (t *txn) deleteFile(id string) error {
	path, err := t.v.root.Path(id)
	if err != nil {
		return err
	}
	prev, err := forest.ReadFile(path)
	if err != nil {
		return err
	}
	t.v.recent.forget(id)
	if err := t.noteFile(journal.Remove, path); err != nil {
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
// rename, so a reader never sees half a file; a repair sweeps the
// temporary files a killed writer left (recovery.TempPattern).
func writeAtomic(path string, data []byte) error { return recovery.WriteAtomic(path, data) }

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
