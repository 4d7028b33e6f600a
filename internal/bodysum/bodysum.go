// SPDX-License-Identifier: Apache-2.0

// Package bodysum computes what a catalog record says about a node's body
// as a whole: its normative hash ([catalog.BodyHash]) and its token
// estimate ([budget.EstimateTokens]).
//
// Both are a pass over the whole body, and a folder's index is rewritten
// on every write into the folder: adopting 2,000 documents into one folder
// hashed and counted a 450 KB index 2,000 times. Each version of an index
// shares almost all of its bytes with the one before (an entry line is
// added near the end), so a [Memo] keeps, for the last large body of each
// node, checkpoints of both passes every [Spacing] bytes. A new version
// resumes from the last checkpoint inside the prefix the two share and
// reads only the rest; finding that prefix is a comparison, several times
// cheaper than hashing.
//
// The results are exactly those of the two functions; the package's tests
// hold them equal.
//
// [catalog.BodyHash]: https://pkg.go.dev/github.com/monkeyllm/vine/catalog#BodyHash
// [budget.EstimateTokens]: https://pkg.go.dev/github.com/monkeyllm/vine/internal/budget#EstimateTokens
package bodysum

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
	"sync"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/internal/budget"
)

// Spacing is the distance between two checkpoints of a body; a multiple of
// SHA-256's block size, so a hash state can be saved at each.
const Spacing = 16 << 10

// MinSize is the shortest body a Memo remembers: below it, summing whole
// costs less than remembering.
const MinSize = 4 * Spacing

// maxBytes bounds the bytes of the bodies a Memo keeps alive: some
// seventy of the largest folder indexes seen (450 KB).
const maxBytes = 32 << 20

// Sum is what a record says about a body as a whole.
type Sum struct {
	Hash   string // SHA-256 of the body, lower-case hex
	Tokens int    // budget.EstimateTokens of the body
}

// Of sums body whole, remembering nothing: the two definitions.
func Of(body string) Sum {
	return Sum{Hash: catalog.BodyHash(body), Tokens: budget.EstimateTokens(body)}
}

// A Memo sums bodies, resuming from the checkpoints of the last large body
// it summed under the same key (a node id). It is safe for concurrent use;
// the zero Memo is ready, and a nil Memo sums every body whole.
type Memo struct {
	mu    sync.Mutex
	last  map[string]*summed
	order []string // keys, least recently summed first
	bytes int
}

// summed is a body a Memo remembers, with its checkpoints.
type summed struct {
	body  string
	marks []mark
}

// mark is a checkpoint: the hash state after body[:at], and the number of
// runes beginning before runeEnd, the first rune boundary at or past at.
type mark struct {
	at      int
	state   []byte
	runes   int
	runeEnd int
	index   int // its place in the body's marks
}

// Of sums body, the current body of the node key, and remembers it when
// it is large. The result is Of(body) whatever was remembered.
func (m *Memo) Of(key, body string) Sum {
	if m == nil {
		return Of(body)
	}
	if len(body) < MinSize {
		m.forget(key)
		return Of(body)
	}
	m.mu.Lock()
	prev := m.last[key]
	m.mu.Unlock()
	s, cur := sum(prev, body)
	m.keep(key, cur)
	return s
}

// forget drops what the Memo remembers of key: its body is now small.
func (m *Memo) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.last[key]; ok {
		m.bytes -= len(s.body)
		delete(m.last, key)
		m.drop(key)
	}
}

// keep remembers cur under key, forgetting the least recently summed
// bodies past maxBytes.
func (m *Memo) keep(key string, cur *summed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil {
		m.last = map[string]*summed{}
	}
	if old, ok := m.last[key]; ok {
		m.bytes -= len(old.body)
		m.drop(key)
	}
	m.last[key] = cur
	m.order = append(m.order, key)
	m.bytes += len(cur.body)
	for m.bytes > maxBytes && len(m.order) > 1 {
		k := m.order[0]
		m.order = m.order[1:]
		m.bytes -= len(m.last[k].body)
		delete(m.last, k)
	}
}

// drop removes key from the recency order.
func (m *Memo) drop(key string) {
	for i, k := range m.order {
		if k == key {
			m.order = append(m.order[:i], m.order[i+1:]...)
			return
		}
	}
}

// sum sums body from the last checkpoint of prev inside the prefix the two
// share (from the start without one), recording body's own checkpoints.
func sum(prev *summed, body string) (Sum, *summed) {
	cur := &summed{body: body}
	h := sha256.New()
	at, runes, runeEnd := 0, 0, 0
	if mk, ok := resumable(prev, body); ok && h.(encoding.BinaryUnmarshaler).UnmarshalBinary(mk.state) == nil {
		cur.marks = append(cur.marks, prev.marks[:mk.index+1]...)
		at, runes, runeEnd = mk.at, mk.runes, mk.runeEnd
	}
	for next := at + Spacing; next <= len(body); next += Spacing {
		writeString(h, body[at:next])
		n, end := budget.RunesTo(body[runeEnd:], next-runeEnd)
		runes, runeEnd = runes+n, runeEnd+end
		state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
		if err == nil {
			cur.marks = append(cur.marks, mark{at: next, state: state, runes: runes, runeEnd: runeEnd, index: len(cur.marks)})
		}
		at = next
	}
	writeString(h, body[at:])
	runes += budget.Runes(body[runeEnd:])
	return Sum{Hash: hex.EncodeToString(h.Sum(nil)), Tokens: budget.TokensOfRunes(runes)}, cur
}

// resumable is the last checkpoint of prev that holds for body too: inside
// the prefix the two share, with the bytes its rune count decoded.
func resumable(prev *summed, body string) (found mark, ok bool) {
	if prev == nil {
		return mark{}, false
	}
	shared := commonPrefix(prev.body, body)
	for i, mk := range prev.marks {
		// Decoding a rune reads up to three bytes past its start.
		if mk.at > shared || mk.runeEnd+3 > shared {
			break
		}
		found, ok = mk, true
		found.index = i
	}
	return found, ok
}

// commonPrefix is the length of the prefix a and b share. It compares a
// page at a time with string equality (vectorised by the runtime) and
// looks at bytes only in the page that differs.
func commonPrefix(a, b string) int {
	const page = 4 << 10
	n := min(len(a), len(b))
	i := 0
	for i+page <= n && a[i:i+page] == b[i:i+page] {
		i += page
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// writeString hashes s through a small buffer, as catalog.BodyHash does:
// converting a 450 KB body to a byte slice whole would be as much garbage
// as the rest of a write.
func writeString(h hash.Hash, s string) {
	var buf [8 << 10]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
}
