// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"compress/zlib"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
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
// "<type> <size>\x00<data>" written to a temporary file beside it and
// renamed into place, read-only. An object that appeared
// meanwhile is kept: objects are content addressed.
//
// Callers hold r.mu (the zlib writer is reused across objects).
func (r *Repo) writeLoose(t plumbing.ObjectType, h plumbing.Hash, data []byte) error {
	hex := h.String()
	dir := filepath.Join(r.dot.Root(), "objects", hex[:2])
	f, err := createLooseTemp(dir)
	if errors.Is(err, fs.ErrNotExist) { // a new fan-out directory, or one git gc pruned
		if err = os.MkdirAll(dir, 0o755); err == nil {
			f, err = createLooseTemp(dir)
		}
	}
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
	// No existence check first: the caller found the object absent, and
	// renaming an object over its identical twin changes nothing.
	if err := os.Rename(f.Name(), filepath.Join(dir, hex[2:])); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// createLooseTemp creates a temporary object file in dir, the object's
// fan-out directory as git does (the rename stays in one directory),
// read-only from the start as git keeps objects (the open handle still
// writes), named as git names its own so that git's prune knows it.
func createLooseTemp(dir string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "tmp_obj_"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("gitops: no free temporary object name")
}

// deflateObject writes the zlib stream of a loose object to f.
func (r *Repo) deflateObject(f *os.File, t plumbing.ObjectType, data []byte) error {
	zw := r.zw
	if len(data) > storeLooseAbove {
		zw = r.zstore
	}
	if zw == nil {
		level := looseLevel
		if len(data) > storeLooseAbove {
			level = zlib.NoCompression
		}
		var err error
		if zw, err = zlib.NewWriterLevel(f, level); err != nil {
			return err
		}
		if level == looseLevel {
			r.zw = zw
		} else {
			r.zstore = zw
		}
	} else {
		zw.Reset(f)
	}
	head := make([]byte, 0, 32)
	head = append(head, t.Bytes()...)
	head = append(head, ' ')
	head = strconv.AppendInt(head, int64(len(data)), 10)
	head = append(head, 0)
	_, err := zw.Write(head)
	if err == nil {
		_, err = zw.Write(data)
	}
	if err := errors.Join(err, zw.Close()); err != nil {
		return fmt.Errorf("gitops: write object %s: %w", t, err)
	}
	return nil
}
