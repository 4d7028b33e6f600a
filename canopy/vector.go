// SPDX-License-Identifier: Apache-2.0

package canopy

import (
	"math"
	"strings"
)

// NodeText is the text a node is embedded from (K.3): its title and
// summary as "<title>. <summary>". Bodies are never embedded.
func NodeText(title, summary string) string { return title + ". " + summary }

// CollapseSpace trims s and folds every run of white space into one
// space: the memo key of a query, so "tide  tables" and "tide tables"
// share one embedding. Case is kept.
func CollapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// Normalize scales v to unit length in place. It reports false, leaving v
// as it was, when v is all zeros or holds a value that is not finite: such
// a vector has no direction.
func Normalize(v []float32) bool {
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		sum += f * f
	}
	if sum == 0 || math.IsInf(sum, 0) {
		return false
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return true
}

// Dot is the inner product of a and b over their common length: the
// cosine of two unit vectors. It is the inner loop of every dense scan, so
// it runs eight lanes at a time with four independent sums, which lets the
// processor overlap the multiplications instead of waiting on one chain.
func Dot(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	for len(a) >= 8 {
		x, y := a[:8:8], b[:8:8]
		s0 += x[0]*y[0] + x[4]*y[4]
		s1 += x[1]*y[1] + x[5]*y[5]
		s2 += x[2]*y[2] + x[6]*y[6]
		s3 += x[3]*y[3] + x[7]*y[7]
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// finite reports whether every value of v is a finite number.
func finite(v []float32) bool {
	for _, x := range v {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}
