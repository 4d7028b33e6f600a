// SPDX-License-Identifier: Apache-2.0

package gate

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
)

// FileWriter is the default Writer: it writes the content to a temporary
// file in the target's own directory and renames it over the target, so a
// crash leaves either the old file or the new one, never half of one.
// Every operation goes through an os.Root, so nothing it does can land
// outside the root even if the tree changes under it after the checks.
// Missing parent directories are created, and removed again on failure.
type FileWriter struct{}

// Replace writes content to rel under root atomically. A new file gets
// mode 0644; a replaced one keeps its permission bits.
func (FileWriter) Replace(ctx context.Context, root, rel string, content []byte) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	dir := path.Dir(rel)
	made, err := mkdirs(r, dir)
	defer func() {
		if err != nil {
			removeDirs(r, made)
		}
	}()
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if fi, statErr := r.Lstat(rel); statErr == nil {
		perm = fi.Mode().Perm()
	}
	tmp := path.Join(dir, ".gate-"+rand.Text()+".tmp")
	if err := writeSynced(r, tmp, content, perm); err != nil {
		r.Remove(tmp)
		return err
	}
	if err := r.Rename(tmp, rel); err != nil {
		r.Remove(tmp)
		return err
	}
	syncDir(r, dir)
	return nil
}

func writeSynced(r *os.Root, name string, content []byte, perm fs.FileMode) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// syncDir makes the rename durable where the platform allows; a failure
// only weakens durability, never the content, so it is not reported.
func syncDir(r *os.Root, dir string) {
	if d, err := r.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// mkdirs creates the missing directories of dir, outermost first, and
// returns those it created.
func mkdirs(r *os.Root, dir string) ([]string, error) {
	if dir == "." {
		return nil, nil
	}
	var made []string
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		err := r.Mkdir(p, 0o755)
		switch {
		case err == nil:
			made = append(made, p)
		case errors.Is(err, fs.ErrExist):
		default:
			return made, err
		}
	}
	return made, nil
}

// removeDirs removes the directories a failed write created, innermost
// first.
func removeDirs(r *os.Root, made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		r.Remove(made[i])
	}
}
