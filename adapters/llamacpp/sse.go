// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	name string // the event: field, "" for the default message
	data string // data: lines joined by "\n"
	// errText is llama.cpp's non-standard "error:" field, which its server
	// writes instead of a data frame when generation fails mid-stream.
	errText string
}

// errPartialEvent reports bytes at the end of the stream that did not
// make up a whole event: a line without its newline, or fields without
// the blank line that dispatches them. Per the SSE rules such an event is
// discarded, so a stream that stops there is incomplete.
var errPartialEvent = errors.New("stream ended inside an event")

// sseReader splits a text/event-stream body into events.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{br: bufio.NewReaderSize(r, 16<<10)} }

// next returns the next event. At the end of the stream it returns io.EOF
// when nothing was pending, errPartialEvent when something was, and any
// read error as it came.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	pending := false
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && !pending {
				return ev, io.EOF
			}
			if err == io.EOF {
				return ev, errPartialEvent
			}
			return ev, err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if pending {
				ev.data = strings.Join(data, "\n")
				return ev, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // comment, used as keep-alive
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, value)
			pending = true
		case "event":
			ev.name, pending = value, true
		case "error":
			ev.errText, pending = value, true
		}
		// id, retry and unknown fields carry nothing a reply needs.
	}
}
