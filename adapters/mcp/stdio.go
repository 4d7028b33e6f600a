// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"bufio"
	"bytes"
	"io"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxStdioLine bounds one JSON-RPC message read from stdio: a client
// cannot make the server buffer without end.
const maxStdioLine = 16 << 20

// StdioTransport is the stdio transport of a server, with the same
// envelope check the HTTP mount applies: a malformed or unknown message
// is answered on w as a JSON-RPC error with a standard code, in the
// caller's terms, and never reaches the SDK, whose own refusals quote Go
// types. Messages are newline-delimited JSON, as MCP's stdio transport
// says.
func StdioTransport(r io.Reader, w io.Writer) sdk.Transport {
	out := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go filterStdio(r, pw, out)
	return &sdk.IOTransport{Reader: pr, Writer: out}
}

// filterStdio passes each well-formed message line from r to the SDK
// through pw, and answers the others on out itself.
func filterStdio(r io.Reader, pw *io.PipeWriter, out *lockedWriter) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxStdioLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if f := checkBody(line); f != nil {
			out.Write(append(faultBody(f), '\n'))
			continue
		}
		if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
			return // the server has stopped reading
		}
	}
	pw.CloseWithError(sc.Err()) // nil: EOF, the client hung up
}

// lockedWriter serializes whole messages from the SDK and from the
// filter onto one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close is a no-op: the stream belongs to the process.
func (l *lockedWriter) Close() error { return nil }
