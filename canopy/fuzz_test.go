// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// FuzzDecode feeds the index reader arbitrary index.json and vectors.f32
// bytes: it must never panic, and whatever it refuses is ErrCorrupt (the
// layer then behaves as if there were no index). What it accepts is
// internally consistent.
func FuzzDecode(f *testing.F) {
	le := func(xs ...float32) []byte {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	}
	f.Add([]byte(`{"model":"m","dim":2,"built_at":1.5,"ids":["a","b"]}`), le(1, 0, 0, 1))
	f.Add([]byte(`{"model":"m","dim":0,"built_at":1,"ids":[]}`), []byte{})
	f.Add([]byte(`{"model":"m","dim":1,"ids":["a"],"text_hashes":["x"],"vectors_crc32c":0}`), le(1))
	f.Add([]byte(`{"model":"m","dim":2,"ids":["a"]}`), le(float32(math.NaN()), 1))
	f.Add([]byte(`{"model":"m","dim":-1,"ids":null}`), []byte{1, 2, 3})
	f.Add([]byte(`[]`), []byte{})
	f.Fuzz(func(t *testing.T, head, vecs []byte) {
		ix, err := Decode(head, vecs)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("refusal %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if ix.Len()*ix.Dim*4 != len(vecs) {
			t.Fatalf("accepted %d ids × %d dims over %d bytes", ix.Len(), ix.Dim, len(vecs))
		}
		for i, id := range ix.IDs() {
			if p, ok := ix.Lookup(id); !ok || p != i {
				t.Fatalf("lookup of %q = %d, %v; want %d", id, p, ok, i)
			}
		}
		if ix.Dim > 0 && ix.Len() > 0 {
			ix.Nearest(ix.Vector(0), 3)
		}
		ix.Stale([]Node{{ID: "a"}})
	})
}

// FuzzDecodeEmbeddings feeds the embeddings response reader arbitrary
// bodies: it never panics, and what it accepts is one unit vector per
// input, all of one length.
func FuzzDecodeEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}]}`), 2)
	f.Add([]byte(`{"data":[{"embedding":[1]}]}`), 1)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1e39]}]}`), 1)
	f.Add([]byte(`{"data":null}`), 0)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		vecs, err := DecodeEmbeddings(bytes.NewReader(body), n)
		if err != nil {
			return
		}
		if len(vecs) != n {
			t.Fatalf("accepted %d vectors for %d inputs", len(vecs), n)
		}
		for _, v := range vecs {
			if len(v) != len(vecs[0]) || math.Abs(float64(Dot(v, v))-1) > 1e-3 {
				t.Fatalf("accepted a vector that is not unit or of another length: %v", v)
			}
		}
	})
}
