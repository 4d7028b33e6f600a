// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
)

// Target stores a finished snapshot file at a URI of the scheme it
// serves: where `vine snapshot create --to URI` sends it (I.5). Put reads
// the file's size bytes from r and makes them appear at uri whole or not
// at all; it must not read the environment for settings or credentials.
type Target interface {
	Put(ctx context.Context, uri string, r io.Reader, size int64) error
}

// Targets maps a URI scheme ("file", "s3") to the Target that serves it.
type Targets map[string]Target

// DefaultTargets serves file:// only: an S3 store needs an endpoint and
// credentials, which only the caller can give (an [S3Target]).
func DefaultTargets() Targets { return Targets{"file": FileTarget{}} }

// toParam is the name refusals of a target URI give it: the CLI flag and
// the CreateOptions field.
const toParam = "'to'"

// uriScheme is G.9's test for a value that carries a scheme.
var uriScheme = regexp.MustCompile(`^([a-z][a-z0-9+.-]*)://`)

// pickTarget checks CreateOptions.To before anything is written: a
// served scheme, and for file:// a place outside the forest.
func pickTarget(root string, opts CreateOptions) (Target, error) {
	targets := opts.Targets
	if targets == nil {
		targets = DefaultTargets()
	}
	m := uriScheme.FindStringSubmatch(opts.To)
	if m == nil {
		return nil, envelope.New(envelope.Schema, "snapshot: parameter "+toParam+" is not a URI: "+opts.To,
			"name where the snapshot goes as file:///DIR/ or s3://BUCKET/PREFIX/")
	}
	t, ok := targets[m[1]]
	if !ok || t == nil {
		return nil, envelope.New(envelope.Schema, fmt.Sprintf("snapshot: parameter %s: scheme %q is not served", toParam, m[1]),
			"served: "+strings.Join(slices.Sorted(maps.Keys(targets)), ", "))
	}
	if m[1] == "file" {
		if err := fileOutside(root, opts.To); err != nil {
			return nil, err
		}
	}
	if c, ok := t.(checker); ok {
		if err := c.check(targetURI(opts.To, "x"+Ext)); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// checker is a Target of this package that can refuse a URI, or its own
// settings, before the snapshot is written.
type checker interface{ check(uri string) error }

// fileOutside refuses a file:// target inside the forest, as OutDir is
// refused: the next snapshot would pack this one.
func fileOutside(root, uri string) error {
	p, err := localPath(uri)
	if err != nil {
		return err
	}
	if p, err = resolveExisting(p); err != nil {
		return fmt.Errorf("snapshot: target: %w", err)
	}
	if within(root, p) {
		return envelope.New(envelope.Schema, "snapshot: parameter "+toParam+" lies inside the forest",
			"send the snapshot outside the forest: inside, it would be packed by the next snapshot")
	}
	return nil
}

// targetURI is where the file named name goes for --to uri: uri itself
// when it names an object, else name inside it. A URI ending in "/", a
// bare s3://bucket and a file:// naming an existing directory name a
// place, not an object.
func targetURI(uri, name string) string {
	if bucket, ok := strings.CutPrefix(uri, "s3://"); ok {
		// An S3 key is taken literally, never percent-decoded.
		switch {
		case strings.HasSuffix(uri, "/"):
			return uri + name
		case !strings.Contains(bucket, "/"):
			return uri + "/" + name
		}
		return uri
	}
	switch {
	case strings.HasSuffix(uri, "/"):
		return uri + url.PathEscape(name)
	case strings.HasPrefix(uri, "file://"):
		if p, err := localPath(uri); err == nil {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return uri + "/" + url.PathEscape(name)
			}
		}
	}
	return uri
}

// upload sends the finished file to dest through t, reporting bytes sent
// as "upload" progress.
func upload(ctx context.Context, t Target, file, dest string, size int64, progress func(vine.Progress)) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("snapshot: upload: %w", err)
	}
	defer f.Close()
	r := &countingReader{r: f, total: size, progress: progress}
	r.report()
	if err := t.Put(ctx, dest, r, size); err != nil {
		return uploadError(dest, filepath.Base(file), err)
	}
	r.done = size
	r.report()
	return nil
}

// uploadError keeps an envelope a target answered and wraps anything
// else; both say the local file is kept.
func uploadError(dest, name string, err error) error {
	var e *envelope.Error
	if errors.As(err, &e) {
		return err
	}
	return fmt.Errorf("snapshot: upload to %s failed (the local file %s is kept): %w", redactURI(dest), name, err)
}

// redactURI drops user information from a URI before it is quoted.
func redactURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.User == nil {
		return uri
	}
	u.User = nil
	return u.String()
}

// countingReader reports how many bytes a target has read.
type countingReader struct {
	r        io.Reader
	done     int64
	total    int64
	progress func(vine.Progress)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.done += int64(n)
		c.report()
	}
	return n, err
}

func (c *countingReader) report() {
	if c.progress != nil {
		c.progress(vine.Progress{Op: "upload", Done: int(min(c.done, c.total)), Total: int(c.total)})
	}
}

// FileTarget serves file:// URIs (file:///DIR/NAME.forest): it copies the
// snapshot there through a scratch file beside it, and never overwrites
// an existing file.
type FileTarget struct{}

// Put copies r to the local file uri names. An existing file there is
// E_SCHEMA; missing directories are created.
func (FileTarget) Put(ctx context.Context, uri string, r io.Reader, size int64) (err error) {
	dst, err := localPath(uri)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("snapshot: target directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
	if err != nil {
		return fmt.Errorf("snapshot: target: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	if _, err := io.Copy(tmp, ctxReader{ctx, r}); err != nil {
		return fmt.Errorf("snapshot: copy to target: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("snapshot: copy to target: %w", err)
	}
	// A hard link fails when the name exists: no overwrite, no race.
	if err := os.Link(tmp.Name(), dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return envelope.New(envelope.Schema, "snapshot: parameter "+toParam+" names an existing file: "+filepath.Base(dst),
				"a snapshot never overwrites; name a directory (ending in /) or a new file")
		}
		return fmt.Errorf("snapshot: name target: %w", err)
	}
	return nil
}

// localPath is the absolute local path of a file:// URI (RFC 8089:
// file:///path or file://localhost/path, percent-decoded).
func localPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", envelope.New(envelope.Schema, "snapshot: parameter "+toParam+" is not a local file URI: "+redactURI(uri),
			"write file:///absolute/path/ (three slashes: no host)")
	}
	p := filepath.FromSlash(u.Path)
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == filepath.Separator && p[2] == ':' {
		p = p[1:] // file:///C:/backups on windows
	}
	if !filepath.IsAbs(p) {
		return "", envelope.New(envelope.Schema, "snapshot: parameter "+toParam+" has no absolute path: "+redactURI(uri),
			"write file:///absolute/path/")
	}
	return filepath.Clean(p), nil
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
