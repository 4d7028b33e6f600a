// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the error of ReadFile and OpenRegular for a path that
// names something other than a regular file: a FIFO, a device, a socket
// or a directory.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading only if it is a regular file. A FIFO
// named like a node would block an ordinary open until a writer appears,
// tying up a reader for ever, so the file is opened without blocking and
// checked on the open handle, never by a stat that a swap could outrun.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := openRegular(path)
	return f, err
}

// openRegular is OpenRegular, also answering the file's size.
func openRegular(path string) (*os.File, int64, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fi.Mode().Type())}
	}
	if err := clearNonBlocking(f); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// ReadFile is os.ReadFile for files that must be regular (OpenRegular).
// Like os.ReadFile it reads into a buffer sized from the open file, so a
// node read allocates once.
func ReadFile(path string) ([]byte, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, 0, size+1) // +1: room for the read that sees EOF
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew since the stat
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
