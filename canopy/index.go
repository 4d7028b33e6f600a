// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
)

// File names of an index inside its directory (_derived/canopy).
const (
	IndexFile   = "index.json"
	VectorsFile = "vectors.f32"
)

// maxDim bounds the dimension an index may declare. Real models stay
// within a few thousand; the bound keeps a corrupt header from sizing
// arithmetic that overflows.
const maxDim = 1 << 16

// ErrNoIndex reports that a directory holds no index: one of the two files
// is missing. A layer without an index behaves as if Canopy were absent.
var ErrNoIndex = errors.New("canopy: no index")

// ErrCorrupt reports an index whose files exist but cannot be trusted. It
// is treated exactly as no index: a rebuild is the repair.
var ErrCorrupt = errors.New("canopy: corrupt index")

// Index is the on-disk vector layer of a forest: one unit vector per node
// id, all from one model. The format is the reference implementation's,
// so forests move between implementations: index.json holds
// {model, dim, built_at, ids} and vectors.f32 the vectors as little-endian
// float32, dim values per id in ids order. Two optional keys of
// index.json, written here and ignored by readers that do not know them,
// make the layer sturdier: text_hashes (a hash of each node's embedded
// text, so a node edited while the catalog was rebuilt from scratch is
// still known stale) and vectors_crc32c (so a reader never pairs an
// index.json with the vectors.f32 of another build).
//
// An Index is immutable once built or loaded and safe for concurrent use.
type Index struct {
	// Model is the embedding model every vector came from.
	Model string
	// Dim is the length of every vector; 0 for an empty index.
	Dim int
	// BuiltAt is when the vectors were made, in seconds since the epoch.
	BuiltAt float64

	ids    []string
	hashes []string // "" per id when the writer recorded none
	vecs   []float32
	pos    map[string]int
}

// Len is the number of vectors.
func (ix *Index) Len() int { return len(ix.ids) }

// IDs returns the node ids in index order.
func (ix *Index) IDs() []string { return append([]string(nil), ix.ids...) }

// Lookup returns the position of id's vector.
func (ix *Index) Lookup(id string) (int, bool) {
	i, ok := ix.pos[id]
	return i, ok
}

// Vector returns the vector at position i. The slice aliases the index:
// it must not be modified.
func (ix *Index) Vector(i int) []float32 { return ix.vecs[i*ix.Dim : (i+1)*ix.Dim : (i+1)*ix.Dim] }

// Similarity is the cosine between q and id's vector; false when the
// index holds no vector for id or q has another length.
func (ix *Index) Similarity(q []float32, id string) (float32, bool) {
	i, ok := ix.pos[id]
	if !ok || len(q) != ix.Dim {
		return 0, false
	}
	return Dot(q, ix.Vector(i)), true
}

// newIndex assembles an index and its id lookup. It refuses repeated ids.
func newIndex(model string, dim int, builtAt float64, ids, hashes []string, vecs []float32) (*Index, error) {
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		if _, dup := pos[id]; dup {
			return nil, fmt.Errorf("%w: id %q appears twice", ErrCorrupt, id)
		}
		pos[id] = i
	}
	if len(hashes) != len(ids) {
		hashes = make([]string, len(ids))
	}
	return &Index{Model: model, Dim: dim, BuiltAt: builtAt, ids: ids, hashes: hashes, vecs: vecs, pos: pos}, nil
}

// header is index.json.
type header struct {
	Model      string   `json:"model"`
	Dim        int      `json:"dim"`
	BuiltAt    float64  `json:"built_at"`
	IDs        []string `json:"ids"`
	TextHashes []string `json:"text_hashes,omitempty"`
	CRC        *uint32  `json:"vectors_crc32c,omitempty"`
}

// parseHeader reads and checks index.json.
func parseHeader(data []byte) (header, error) {
	var h header
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&h); err != nil {
		return h, fmt.Errorf("%w: %s: %v", ErrCorrupt, IndexFile, err)
	}
	switch {
	case h.Model == "":
		return h, fmt.Errorf("%w: %s names no model", ErrCorrupt, IndexFile)
	case h.Dim < 0 || h.Dim > maxDim:
		return h, fmt.Errorf("%w: %s dim %d outside 0..%d", ErrCorrupt, IndexFile, h.Dim, maxDim)
	case h.Dim == 0 && len(h.IDs) > 0:
		return h, fmt.Errorf("%w: %s lists %d ids with dim 0", ErrCorrupt, IndexFile, len(h.IDs))
	case math.IsNaN(h.BuiltAt) || math.IsInf(h.BuiltAt, 0):
		return h, fmt.Errorf("%w: %s built_at is not a time", ErrCorrupt, IndexFile)
	}
	return h, nil
}

// vectorBytes is the size vectors.f32 must have for h.
func (h header) vectorBytes() int64 { return int64(len(h.IDs)) * int64(h.Dim) * 4 }

// Decode reads an index from the bytes of index.json and vectors.f32. It
// returns an error wrapping ErrCorrupt for anything it cannot trust: bad
// JSON, a missing model, a vectors file of the wrong size, a value that is
// not finite, a repeated id, a checksum that does not match.
func Decode(indexJSON, vectors []byte) (*Index, error) {
	h, err := parseHeader(indexJSON)
	if err != nil {
		return nil, err
	}
	if int64(len(vectors)) != h.vectorBytes() {
		return nil, sizeErr(h, int64(len(vectors)))
	}
	return h.index(bytes.NewReader(vectors))
}

// Load reads the index in dir. It returns ErrNoIndex when either file is
// missing and an error wrapping ErrCorrupt when they cannot be trusted.
func Load(dir string) (*Index, error) {
	data, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoIndex
	}
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, VectorsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoIndex
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() != h.vectorBytes() {
		return nil, sizeErr(h, fi.Size())
	}
	return h.index(f)
}

func sizeErr(h header, got int64) error {
	return fmt.Errorf("%w: %s holds %d bytes, expected %d (%d ids × %d dims × 4)",
		ErrCorrupt, VectorsFile, got, h.vectorBytes(), len(h.IDs), h.Dim)
}

// index reads the vectors of h from r (of the right size) a chunk at a
// time, so loading never holds the file's bytes and the floats at once.
func (h header) index(r io.Reader) (*Index, error) {
	n := len(h.IDs) * h.Dim
	vecs := make([]float32, n)
	buf := make([]byte, 64<<10)
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	for done := 0; done < n; {
		chunk := buf[:min(len(buf), (n-done)*4)]
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, VectorsFile, err)
		}
		crc.Write(chunk)
		for i := 0; i < len(chunk); i += 4 {
			x := math.Float32frombits(binary.LittleEndian.Uint32(chunk[i:]))
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%w: %s holds a value that is not finite", ErrCorrupt, VectorsFile)
			}
			vecs[done] = x
			done++
		}
	}
	if h.CRC != nil && *h.CRC != crc.Sum32() {
		return nil, fmt.Errorf("%w: %s does not match the checksum in %s (files of two builds)",
			ErrCorrupt, VectorsFile, IndexFile)
	}
	ids := h.IDs
	if ids == nil {
		ids = []string{}
	}
	return newIndex(h.Model, h.Dim, h.BuiltAt, ids, h.TextHashes, vecs)
}

// Save writes the index into dir (created when missing): vectors.f32
// first, then index.json, each through a temporary file and a rename, so
// a reader sees either the old file or the new one, and the checksum in
// index.json tells it whether the pair belongs together.
func (ix *Index) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	err := writeFileAtomic(filepath.Join(dir, VectorsFile), func(w io.Writer) error {
		return ix.encodeVectors(io.MultiWriter(w, crc))
	})
	if err != nil {
		return err
	}
	sum := crc.Sum32()
	h := header{Model: ix.Model, Dim: ix.Dim, BuiltAt: ix.BuiltAt, IDs: ix.ids, CRC: &sum}
	if ix.hasHashes() {
		h.TextHashes = ix.hashes
	}
	if h.IDs == nil {
		h.IDs = []string{}
	}
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, IndexFile), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func (ix *Index) hasHashes() bool {
	for _, s := range ix.hashes {
		if s == "" {
			return false
		}
	}
	return len(ix.hashes) > 0
}

func (ix *Index) encodeVectors(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b [4]byte
	for _, x := range ix.vecs {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		if _, err := bw.Write(b[:]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeFileAtomic replaces path with what fill writes, through a
// temporary file in the same directory and a rename.
func writeFileAtomic(path string, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".canopy-*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	err = errors.Join(fill(tmp), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// textHash identifies the embedded text of a node: equal hashes, equal
// vectors from one model.
func textHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// Info is what an index says of itself, read without its vectors.
type Info struct {
	Model   string
	Dim     int
	Vectors int
	BuiltAt float64
}

// Peek reads dir's index.json and checks the size of vectors.f32, without
// reading the vectors: enough for a registry to tell whether a forest's
// layer could be ready for an embedder of some model (Readiness also
// needs the vectors non-empty) without opening the forest. It returns
// ErrNoIndex or an error wrapping ErrCorrupt as Load does; a Peek that
// succeeds does not promise the vectors themselves are sound.
func Peek(dir string) (Info, error) {
	data, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if errors.Is(err, os.ErrNotExist) {
		return Info{}, ErrNoIndex
	}
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(filepath.Join(dir, VectorsFile))
	if errors.Is(err, os.ErrNotExist) {
		return Info{}, ErrNoIndex
	}
	if err != nil {
		return Info{}, err
	}
	h, err := parseHeader(data)
	if err != nil {
		return Info{}, err
	}
	if fi.Size() != h.vectorBytes() {
		return Info{}, sizeErr(h, fi.Size())
	}
	return Info{Model: h.Model, Dim: h.Dim, Vectors: len(h.IDs), BuiltAt: h.BuiltAt}, nil
}
