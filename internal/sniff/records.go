// SPDX-License-Identifier: Apache-2.0

package sniff

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// decodeLines parses a memo row's line records, [[line, section|null,
// pos, text], ...], without reflection: warm scans decode a row per
// matching node and term, and encoding/json made that the hot path. Any
// input it does not recognise is handed to encoding/json, so both agree.
func decodeLines(raw string) ([]Line, error) {
	p := lineParser{s: raw}
	out, ok := p.records()
	if ok {
		return out, nil
	}
	var slow []Line
	if err := json.Unmarshal([]byte(raw), &slow); err != nil {
		return nil, err
	}
	return slow, nil
}

type lineParser struct {
	s string
	i int
}

var errSlowPath = errors.New("not a plain record list")

func (p *lineParser) records() ([]Line, bool) {
	if !p.eat('[') {
		return nil, false
	}
	var out []Line
	if p.eat(']') {
		return out, p.i == len(p.s)
	}
	for {
		rec, err := p.record()
		if err != nil {
			return nil, false
		}
		out = append(out, rec)
		if p.eat(']') {
			return out, p.i == len(p.s)
		}
		if !p.eat(',') {
			return nil, false
		}
	}
}

func (p *lineParser) record() (Line, error) {
	var r Line
	var err error
	if !p.eat('[') {
		return r, errSlowPath
	}
	if r.Line, err = p.int(); err != nil || !p.eat(',') {
		return r, errSlowPath
	}
	if strings.HasPrefix(p.s[p.i:], "null") {
		p.i += 4
	} else {
		sec, err := p.str()
		if err != nil {
			return r, err
		}
		r.Section = &sec
	}
	if !p.eat(',') {
		return r, errSlowPath
	}
	if r.Pos, err = p.int(); err != nil || !p.eat(',') {
		return r, errSlowPath
	}
	if r.Text, err = p.str(); err != nil || !p.eat(']') {
		return r, errSlowPath
	}
	return r, nil
}

func (p *lineParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *lineParser) int() (int, error) {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return strconv.Atoi(p.s[start:p.i])
}

// str reads a JSON string; one without escapes is sliced as it is.
func (p *lineParser) str() (string, error) {
	if !p.eat('"') {
		return "", errSlowPath
	}
	start := p.i
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '"':
			s := p.s[start:p.i]
			p.i++
			return s, nil
		case '\\':
			return p.escaped(start)
		}
		p.i++
	}
	return "", errSlowPath
}

// escaped finishes a string with escapes through encoding/json.
func (p *lineParser) escaped(start int) (string, error) {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			var s string
			if err := json.Unmarshal([]byte(p.s[start-1:p.i+1]), &s); err != nil {
				return "", err
			}
			p.i++
			return s, nil
		}
		p.i++
	}
	return "", errSlowPath
}

// encodeLineNumbers renders the line numbers of a memo row's records,
// ascending and comma-separated ("3,17,25"); ” for no records.
func encodeLineNumbers(lines []Line) string {
	b := make([]byte, 0, 4*len(lines))
	for i, l := range lines {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(l.Line), 10)
	}
	return string(b)
}

// decodeLineNumbers parses encodeLineNumbers into records that carry the
// line number only: what ranking reads. Anything but positive, strictly
// ascending numbers is an error, so a damaged row is read again.
func decodeLineNumbers(raw string) ([]Line, error) {
	if raw == "" {
		return nil, errNoLineNumbers
	}
	out := make([]Line, 0, strings.Count(raw, ",")+1)
	prev := 0
	for field := range strings.SplitSeq(raw, ",") {
		n, err := strconv.Atoi(field)
		if err != nil || n <= prev {
			return nil, fmt.Errorf("memo line numbers %q: not positive ascending integers", raw)
		}
		out = append(out, Line{Line: n})
		prev = n
	}
	return out, nil
}

var errNoLineNumbers = errors.New("memo row without line numbers")
