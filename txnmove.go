// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/monkeyllm/vine/internal/journal"
	"github.com/monkeyllm/vine/internal/recovery"
)

// fileMoves carries the files outside git that travel with a write
// (payloads, staged upload sources). Git cannot restore them, so every move
// is recorded and undone, newest first, when the write fails before its
// commit lands.
type fileMoves struct {
	t    *txn // notes each move in the intent log; set before the first
	done []fileMove
}

type fileMove struct {
	from, to string
	madeDir  string // outermost directory created for to, removed on undo
}

// move renames from to to, creating to's directory. It never overwrites:
// a payload already at the destination belongs to someone else.
func (m *fileMoves) move(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("vine: move target already exists: %s", filepath.Base(to))
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(to)
	made := firstMissing(dir)
	if err := m.noteMove(from, to, made); err != nil {
		return err
	}
	if made != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := os.Rename(from, to); err != nil {
		if made != "" {
			os.RemoveAll(made)
		}
		return err
	}
	m.done = append(m.done, fileMove{from: from, to: to, madeDir: made})
	return nil
}

// noteMove notes a move, and the folder it creates, in the intent log.
func (m *fileMoves) noteMove(from, to, made string) error {
	if m.t == nil {
		return nil
	}
	if made != "" {
		if err := m.t.noteFile(journal.Dir, made); err != nil {
			return err
		}
	}
	return m.t.note(journal.Move, m.t.rel(from), m.t.rel(to))
}

// undo moves every file back to where it was.
func (m *fileMoves) undo() error {
	var errs []error
	for i := len(m.done) - 1; i >= 0; i-- {
		mv := m.done[i]
		if err := os.MkdirAll(filepath.Dir(mv.from), 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Rename(mv.to, mv.from); err != nil {
			errs = append(errs, err)
			continue
		}
		if mv.madeDir != "" {
			errs = append(errs, os.RemoveAll(mv.madeDir))
		}
	}
	m.done = nil
	return errors.Join(errs...)
}

// commitMoving commits the txn after the moves were made; when the commit
// fails the txn restores the node files and the moves are undone, so the
// forest is as it was.
func commitMoving(ctx context.Context, t *txn, m *fileMoves, subject string) (string, error) {
	sha, err := t.commit(ctx, subject)
	if err != nil {
		return "", errors.Join(err, m.undo())
	}
	return sha, nil
}

// sqliteSidecars are the files SQLite may keep beside a database; they
// belong to the payload and travel with it.
var sqliteSidecars = recovery.Sidecars

// payloadFiles lists a local payload file and any SQLite sidecars present.
func payloadFiles(p string) []string {
	files := []string{p}
	for _, s := range sqliteSidecars {
		if _, err := os.Lstat(p + s); err == nil {
			files = append(files, p+s)
		}
	}
	return files
}

// moveWithSidecars moves a payload and its sidecars to dst.
func (m *fileMoves) moveWithSidecars(src, dst string) error {
	for _, f := range payloadFiles(src) {
		if err := m.move(f, dst+strings.TrimPrefix(f, src)); err != nil {
			return err
		}
	}
	return nil
}

// graveyardDir is where prune puts a node's files outside git (C.14).
func graveyardDir(id string) string {
	return path.Join("_derived", "graveyard", id)
}

// freeName returns name, or name with "-2", "-3", ... before its extension,
// whichever does not exist in dir yet: an id pruned, replanted and pruned
// again must not bury one generation's payload under the next.
func freeName(dir, name string) string {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	cand := name
	for i := 2; ; i++ {
		if _, err := os.Lstat(filepath.Join(dir, cand)); errors.Is(err, os.ErrNotExist) {
			return cand
		}
		cand = fmt.Sprintf("%s-%d%s", stem, i, ext)
	}
}

// markStale flags nodes for the dense layer's lazy re-embedding (spec §0:
// new and edited nodes are stale). Best effort: the commit has landed, and
// a missed flag costs only a late vector.
func (v *Vine) markStale(ctx context.Context, ids ...string) {
	err := v.cat.Write(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, "UPDATE nodes SET stale = 1 WHERE id = ?", id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		v.log.Warn("marking nodes stale failed; the next vector refresh misses them", "err", err)
	}
}
