// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/monkeyllm/vine/catalog"
)

// DefaultMemoCapacity is the reference bound of the embedding memo (K.6).
const DefaultMemoCapacity = 2000

// memoFront is how many embeddings the memo also keeps in memory, so a
// repeated question costs neither a model call nor a database read.
const memoFront = 256

// MemoOptions configure NewMemo.
type MemoOptions struct {
	// Capacity bounds the stored rows; 0 means DefaultMemoCapacity. The
	// least recently used rows go first.
	Capacity int
	// Logger receives storage failures, which never fail an embedding:
	// a memo that cannot store only costs time. Nil discards them.
	Logger *slog.Logger
}

// Memo memoises the embeddings of caller texts — queries, session goals,
// toward overrides — keyed by model and the text with its white space
// collapsed (case kept), in the catalog's embed_memo table and a small
// in-memory front (K.6). Node vectors live in the index, never here.
// Dropping the memo changes latency only.
//
// A Memo is safe for concurrent use.
type Memo struct {
	cat      *catalog.Catalog
	capacity int
	log      *slog.Logger

	mu    sync.Mutex
	front map[string]*list.Element // key → element holding a frontEntry
	order *list.List               // most recent first
}

type frontEntry struct {
	key string
	vec []float32
}

// NewMemo returns a memo stored in cat.
func NewMemo(cat *catalog.Catalog, opt MemoOptions) *Memo {
	if opt.Capacity <= 0 {
		opt.Capacity = DefaultMemoCapacity
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Memo{cat: cat, capacity: opt.Capacity, log: opt.Logger,
		front: map[string]*list.Element{}, order: list.New()}
}

// Embed returns the unit vector of text under e's model, from the memo
// when it holds one and from e otherwise (then remembered). The vector is
// shared with the memo: it must not be modified.
func (m *Memo) Embed(ctx context.Context, e Embedder, text string) ([]float32, error) {
	text = CollapseSpace(text)
	key := memoKey(e.Model(), text)
	if v := m.fromFront(key); v != nil && fits(e, v) {
		return v, nil
	}
	if v := m.load(ctx, key, e); v != nil {
		m.toFront(key, v)
		return v, nil
	}
	vecs, err := e.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("canopy: embedding with %s failed: %w", e.Model(), err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("canopy: embedder %s returned %d vectors for one text", e.Model(), len(vecs))
	}
	v := append([]float32(nil), vecs[0]...)
	if !Normalize(v) {
		return nil, fmt.Errorf("canopy: embedder %s returned a zero or non-finite vector", e.Model())
	}
	m.toFront(key, v)
	m.store(ctx, key, e.Model(), v)
	return v, nil
}

// fits reports whether a remembered vector has the length e produces.
func fits(e Embedder, v []float32) bool { return e.Dimension() == 0 || e.Dimension() == len(v) }

// memoKey is the row key of (model, collapsed text): a digest, so the key
// has one size whatever the length of the question.
func memoKey(model, text string) string {
	sum := sha256.Sum256([]byte(model + "\x00" + text))
	return hex.EncodeToString(sum[:])
}

func (m *Memo) fromFront(key string) []float32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.front[key]
	if !ok {
		return nil
	}
	m.order.MoveToFront(el)
	return el.Value.(frontEntry).vec
}

func (m *Memo) toFront(key string, v []float32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.front[key]; ok {
		el.Value = frontEntry{key: key, vec: v}
		m.order.MoveToFront(el)
		return
	}
	m.front[key] = m.order.PushFront(frontEntry{key: key, vec: v})
	for m.order.Len() > memoFront {
		last := m.order.Back()
		m.order.Remove(last)
		delete(m.front, last.Value.(frontEntry).key)
	}
}

// load reads a stored row and refreshes its recency. A row of another
// length than e produces, or one that does not decode, is a miss.
func (m *Memo) load(ctx context.Context, key string, e Embedder) []float32 {
	row, ok, err := m.cat.EmbedMemo(ctx, key, e.Model())
	if err != nil {
		m.log.Warn("embedding memo read failed", "err", err)
	}
	if !ok {
		return nil
	}
	v := decodeBlob(row.Vector, row.Dim)
	if v == nil || !fits(e, v) {
		return nil
	}
	if err := m.cat.TouchEmbedMemo(ctx, key, time.Now().UnixNano()); err != nil {
		m.log.Warn("embedding memo recency not updated", "err", err)
	}
	return v
}

// store writes a row and evicts the least recently used beyond capacity.
func (m *Memo) store(ctx context.Context, key, model string, v []float32) {
	blob := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(blob[4*i:], math.Float32bits(x))
	}
	row := catalog.EmbedMemoRow{Key: key, Model: model, Dim: len(v), Vector: blob, Used: time.Now().UnixNano()}
	if err := m.cat.PutEmbedMemo(ctx, row, m.capacity); err != nil {
		m.log.Warn("embedding memo not stored", "err", err)
	}
}

// decodeBlob reads a stored vector: dim little-endian float32 values, all
// finite. Anything else is nil.
func decodeBlob(blob []byte, dim int) []float32 {
	if dim <= 0 || len(blob) != 4*dim {
		return nil
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	if !finite(v) {
		return nil
	}
	return v
}
