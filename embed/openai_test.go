// SPDX-License-Identifier: Apache-2.0

package embed

import (
	"math"
	"strings"
	"testing"
)

func TestDecodeOpenAI(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		n, dim     int
		want       [][]float32
		err        string
	}{
		{"reordered", `{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}]}`, 2, 0,
			[][]float32{{0.6, 0.8}, {0, 1}}, ""},
		{"no index: input order", `{"data":[{"embedding":[1,0]},{"embedding":[0,1]}]}`, 2, 0,
			[][]float32{{1, 0}, {0, 1}}, ""},
		{"beyond float32", `{"data":[{"index":0,"embedding":[1e39,0]}]}`, 1, 0, [][]float32{{1, 0}}, ""},
		{"not json", `<html>`, 1, 0, nil, "not an embeddings response"},
		{"nested (pooling none)", `{"data":[{"index":0,"embedding":[[1,0]]}]}`, 1, 0, nil, "not an embeddings response"},
		{"count", `{"data":[]}`, 1, 0, nil, "0 vectors for 1 texts"},
		{"index out of range", `{"data":[{"index":5,"embedding":[1]}]}`, 1, 0, nil, "out of range"},
		{"repeated index", `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, 2, 0, nil, "repeated"},
		{"empty vector", `{"data":[{"index":0,"embedding":[]}]}`, 1, 0, nil, "empty vector"},
		{"ragged", `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,0]}]}`, 2, 0, nil, "dimension 2, expected 1"},
		{"declared dimension", `{"data":[{"index":0,"embedding":[1,0]}]}`, 1, 1024, nil, "dimension 2, expected 1024"},
		{"zero", `{"data":[{"index":0,"embedding":[0,0]}]}`, 1, 0, nil, "zero vector"},
		{"overflowing norm", `{"data":[{"index":0,"embedding":[3e300,4e300]}]}`, 1, 0, [][]float32{{0.6, 0.8}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeOpenAI([]byte(tc.body), tc.n, tc.dim)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || got != nil {
					t.Fatalf("got %v, %v; want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
			for i := range got {
				for j := range got[i] {
					if math.Abs(float64(got[i][j]-tc.want[i][j])) > 1e-6 {
						t.Fatalf("vector %d = %v, want %v", i, got[i], tc.want[i])
					}
				}
			}
		})
	}
}
