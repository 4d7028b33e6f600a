// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// Member names of a .forest file.
const (
	bundleMember  = "forest.bundle"
	readmeMember  = "README.txt"
	payloadPrefix = "payloads/"
)

// Ext is the extension of a snapshot file.
const Ext = ".forest"

// CreateOptions configure Create. The zero value writes a full snapshot
// beside the forest.
type CreateOptions struct {
	// OutDir receives the file; empty means the forest's parent directory.
	// It must lie outside the forest: a binary inside would be committed
	// by nobody and packed by the next snapshot. Missing directories are
	// created.
	OutDir string
	// LockWait bounds the wait for the forest's writer lock while another
	// process writes: 0 means forest.DefaultLockWait, negative no wait.
	// The snapshot holds the lock while it reads, so writes queue behind
	// it and bundle and payloads are one cut.
	LockWait time.Duration
	// NoPayloads leaves the payloads out: a metadata-only artifact, legal
	// but reported (PayloadsOmitted counts what is missing).
	NoPayloads bool
	// Now stamps the file name; nil means time.Now.
	Now func() time.Time
	// Progress, when set, receives "bundle" (0/1, then 1/1) and
	// "payloads" (files packed of all) from the working goroutine, then
	// "upload" (bytes sent of the file's size) when To is set.
	Progress func(vine.Progress)
	// To, when set, is a URI the finished file is also sent to (I.5,
	// `--to`): file:///DIR/ or s3://BUCKET/PREFIX/ (a trailing slash, a
	// bare bucket or an existing directory receive the file under its
	// own name; anything else names the object). Its scheme must be one
	// Targets serves, else E_SCHEMA before anything is written; a
	// file:// target inside the forest is refused as OutDir is. The file
	// in OutDir is kept either way.
	To string
	// Targets serve the schemes of To; nil means DefaultTargets (file://
	// only). An S3 store is reached through an [S3Target] the caller
	// configures, credentials included.
	Targets Targets
}

// Created is the result of Create (I.3).
type Created struct {
	// File is the snapshot written: OutDir/<forest>-<stamp>.forest.
	File string `json:"file"`
	// Bytes is its size.
	Bytes int64 `json:"bytes"`
	// Payloads counts the payload files packed.
	Payloads int `json:"payloads"`
	// PayloadsOmitted counts payload files of the forest the file does
	// not carry: all of them under NoPayloads, else those in Skipped.
	PayloadsOmitted int `json:"payloads_omitted"`
	// Skipped lists payload files left out because their names cannot
	// travel (a component starting with a dot, a backslash, colon or
	// percent sign, ...): Restore would refuse them.
	Skipped []string `json:"skipped,omitempty"`
	// Uploaded is the URI the file was sent to, when CreateOptions.To
	// was set.
	Uploaded string `json:"uploaded,omitempty"`
}

// Create writes a snapshot of the forest at forestDir: the git history of
// every ref as a bundle, the local payloads, and a README naming the
// commands that open it without this program. With CreateOptions.To it
// then sends the file to that URI, after the forest's lock is released.
//
// It holds the forest's writer lock while it reads, so bundle and payloads
// are one consistent cut; a forest that another writer holds answers
// E_LOCKED. A directory that is not a forest's git repository is E_SCHEMA,
// as is an OutDir inside the forest. The file appears whole or not at all:
// it is written under a scratch name and renamed when complete. A failed
// upload is an error that names the local file, which is kept.
func Create(ctx context.Context, forestDir string, opts CreateOptions) (*Created, error) {
	root, err := forestRoot(forestDir)
	if err != nil {
		return nil, err
	}
	var target Target
	if opts.To != "" {
		if target, err = pickTarget(root, opts); err != nil {
			return nil, err
		}
	}
	out, err := outDir(root, opts.OutDir)
	if err != nil {
		return nil, err
	}
	res, err := pack(ctx, root, out, opts)
	if err != nil || target == nil {
		return res, err
	}
	dest := targetURI(opts.To, filepath.Base(res.File))
	if err := upload(ctx, target, res.File, dest, res.Bytes, opts.Progress); err != nil {
		return nil, err
	}
	res.Uploaded = dest
	return res, nil
}

// pack writes the .forest file into out under the forest's writer lock.
func pack(ctx context.Context, root, out string, opts CreateOptions) (*Created, error) {
	lock, err := forest.AcquireLockWait(ctx, root, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Release()

	files, skipped, err := payloadFiles(root)
	if err != nil {
		return nil, fmt.Errorf("snapshot: list payloads: %w", err)
	}
	res := &Created{Payloads: len(files), PayloadsOmitted: len(skipped), Skipped: skipped}
	if opts.NoPayloads {
		res.Payloads, res.PayloadsOmitted, files = 0, len(files)+len(skipped), nil
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	name := freeName(out, filepath.Base(root)+"-"+now().UTC().Format("20060102T150405Z"), Ext)
	w := &artifact{root: root, files: files, progress: opts.Progress, when: now()}
	if res.Bytes, err = w.writeTo(ctx, filepath.Join(out, name)); err != nil {
		return nil, err
	}
	res.File = filepath.Join(out, name)
	return res, nil
}

// forestRoot resolves a forest directory and checks it has its own git
// repository.
func forestRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", envelope.New(envelope.NotFound, "snapshot: forest not found: "+filepath.Base(dir),
			"name the forest's root directory with --forest")
	}
	if fi, err := os.Stat(filepath.Join(abs, forest.GitDir)); err != nil || !fi.IsDir() {
		return "", envelope.New(envelope.Schema, "snapshot: not a forest git repo: "+filepath.Base(abs)+" has no .git of its own",
			"a snapshot carries the forest's history; create the forest with vine init")
	}
	return abs, nil
}

// outDir resolves where the file goes and refuses a place inside the
// forest before creating anything.
func outDir(root, dir string) (string, error) {
	if dir == "" {
		dir = filepath.Dir(root)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("snapshot: output directory: %w", err)
	}
	if reason := forest.HostPathTooLong(abs); reason != "" {
		return "", envelope.New(envelope.Schema, "snapshot: the output directory "+reason,
			"a file system refuses such a name; choose a shorter folder")
	}
	if abs, err = resolveExisting(abs); err != nil {
		return "", fmt.Errorf("snapshot: output directory: %w", err)
	}
	if within(root, abs) {
		return "", envelope.New(envelope.Schema, "snapshot: the output directory lies inside the forest",
			"write the snapshot outside the forest (the default is the forest's parent directory): inside, it would be packed by the next snapshot")
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("snapshot: output directory: %w", err)
	}
	return abs, nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// an absolute path and keeps the missing rest as written.
func resolveExisting(p string) (string, error) {
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// within reports whether p is root or lies under it (both resolved).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// freeName is stem+ext, or stem-2+ext, stem-3+ext, ... whichever does not
// exist in dir: two snapshots within one second keep both.
func freeName(dir, stem, ext string) string {
	name := stem + ext
	for i := 2; ; i++ {
		if _, err := os.Lstat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s-%d%s", stem, i, ext)
	}
}

// artifact writes one .forest file.
type artifact struct {
	root     string
	files    []string
	progress func(vine.Progress)
	when     time.Time
}

// writeTo writes the file at dst through a scratch file beside it and
// returns its size.
func (a *artifact) writeTo(ctx context.Context, dst string) (n int64, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
	if err != nil {
		return 0, fmt.Errorf("snapshot: create file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	zw := zip.NewWriter(tmp)
	if err := a.writeMembers(ctx, zw); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("snapshot: finish zip: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return 0, fmt.Errorf("snapshot: write file: %w", err)
	}
	fi, err := tmp.Stat()
	if err != nil {
		return 0, fmt.Errorf("snapshot: write file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("snapshot: write file: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return 0, fmt.Errorf("snapshot: name file: %w", err)
	}
	return fi.Size(), nil
}

func (a *artifact) writeMembers(ctx context.Context, zw *zip.Writer) error {
	w, err := zw.CreateHeader(a.header(readmeMember, zip.Deflate))
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, readme(filepath.Base(a.root))); err != nil {
		return err
	}
	a.report("bundle", 0, 1)
	// Stored, not deflated: a pack is compressed already.
	if w, err = zw.CreateHeader(a.header(bundleMember, zip.Store)); err != nil {
		return err
	}
	if err := writeBundle(ctx, w, a.root); err != nil {
		return err
	}
	a.report("bundle", 1, 1)
	for i, rel := range a.files {
		a.report("payloads", i, len(a.files))
		if err := a.writePayload(ctx, zw, rel); err != nil {
			return err
		}
	}
	a.report("payloads", len(a.files), len(a.files))
	return nil
}

// writePayload deflates one payload file into payloads/<rel>.
func (a *artifact) writePayload(ctx context.Context, zw *zip.Writer, rel string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(a.root, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("snapshot: read payload %s: %w", rel, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("snapshot: payload %s is no longer a regular file", rel)
	}
	w, err := zw.CreateHeader(a.header(payloadPrefix+rel, zip.Deflate))
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("snapshot: pack payload %s: %w", rel, err)
	}
	return nil
}

func (a *artifact) header(name string, method uint16) *zip.FileHeader {
	h := &zip.FileHeader{Name: name, Method: method, Modified: a.when}
	h.SetMode(0o644)
	return h
}

func (a *artifact) report(op string, done, total int) {
	if a.progress != nil {
		a.progress(vine.Progress{Op: op, Done: done, Total: total})
	}
}

// readme is README.txt: how to open the file with stock tools.
func readme(name string) string {
	return fmt.Sprintf(`This is a snapshot of the MonkeyLLM knowledge forest %q.

It opens without MonkeyLLM, with two commands:

    unzip FILE.forest -d %[1]s-snapshot
    git clone %[1]s-snapshot/%[2]s %[1]s

The clone is the forest: markdown nodes with their full git history.
Payload files (datasets, media) are not in git; they are in
%[1]s-snapshot/%[3]s at the same path they have inside the forest:

    cp -R %[1]s-snapshot/%[3]s. %[1]s/

"vine snapshot restore FILE.forest --forest DIR" does all of this and
rebuilds the search catalog.
`, name, bundleMember, payloadPrefix)
}
