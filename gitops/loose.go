// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// looseLevel is the zlib level of the loose objects a commit writes: git's
// own default (core.looseCompression = 1, best speed). go-git writes them
// at the default level 6, which costs about ten times as much and, on a
// branch index rewritten by every plant, dominated an adopt: the index of
// a 2,000-document branch is half a megabyte, compressed again per commit.
// Loose objects are the short-lived form; packing (git gc) recompresses
// them with deltas.
const looseLevel = zlib.BestSpeed

// writeLoose stores data as a loose object of type t whose hash is h
// (already computed by the caller), the way git does: a zlib stream of
// "<type> <size>\x00<data>" written to a temporary file in the objects
// directory and renamed into place, read-only. An object that appeared
// meanwhile is kept: objects are content addressed.
//
// Callers hold r.mu (the zlib writer is reused across objects).
func (r *Repo) writeLoose(t plumbing.ObjectType, h plumbing.Hash, data []byte) error {
	objects := filepath.Join(r.dot.Root(), "objects")
	hex := h.String()
	dir := filepath.Join(objects, hex[:2])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(objects, "tmp_obj_")
	if err != nil {
		return err
	}
	if err := r.deflateObject(f, t, data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	final := filepath.Join(dir, hex[2:])
	if _, err := os.Lstat(final); err == nil {
		return os.Remove(f.Name())
	}
	if err := os.Chmod(f.Name(), 0o444); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), final); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// deflateObject writes the zlib stream of a loose object to f.
func (r *Repo) deflateObject(f *os.File, t plumbing.ObjectType, data []byte) error {
	if r.zw == nil {
		zw, err := zlib.NewWriterLevel(f, looseLevel)
		if err != nil {
			return err
		}
		r.zw = zw
	} else {
		r.zw.Reset(f)
	}
	head := make([]byte, 0, 32)
	head = append(head, t.Bytes()...)
	head = append(head, ' ')
	head = strconv.AppendInt(head, int64(len(data)), 10)
	head = append(head, 0)
	_, err := r.zw.Write(head)
	if err == nil {
		_, err = r.zw.Write(data)
	}
	if err := errors.Join(err, r.zw.Close()); err != nil {
		return fmt.Errorf("gitops: write object %s: %w", t, err)
	}
	return nil
}
