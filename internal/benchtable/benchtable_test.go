// SPDX-License-Identifier: Apache-2.0

package benchtable

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/monkeyllm/vine
cpu: Some CPU @ 2.00GHz
BenchmarkScale/n=1000/locate/code-2         	    2000	    512000 ns/op	         0.4800 p50-ms	         0.9000 p95-ms	   12000 B/op	     140 allocs/op
BenchmarkScale/n=1000/locate/code-2         	    2100	    498000 ns/op	         0.4700 p50-ms	         1.1000 p95-ms	   12000 B/op	     140 allocs/op
BenchmarkScale/n=1000/locate/code-2         	    1900	    530000 ns/op	         0.5000 p50-ms	         1.0000 p95-ms	   12000 B/op	     140 allocs/op
BenchmarkScale/n=1000/look/leaf
    scale_bench_test.go:42: a log line
BenchmarkScale/n=1000/look/leaf-2           	   90000	     13000 ns/op	         0.0120 p50-ms	         0.0300 p95-ms
BenchmarkPlain                              	     100	  25000000 ns/op
PASS
ok  	github.com/monkeyllm/vine	42.1s
`

func TestParseReadsResultLinesOnly(t *testing.T) {
	res, err := Parse(strings.NewReader(sample))
	require.NoError(t, err)
	require.Len(t, res, 5)
	assert.Equal(t, Result{Name: "BenchmarkScale/n=1000/locate/code", Procs: 2, N: 2000, Metrics: []Metric{
		{512000, "ns/op"}, {0.48, "p50-ms"}, {0.9, "p95-ms"}, {12000, "B/op"}, {140, "allocs/op"},
	}}, res[0])
	assert.Equal(t, "BenchmarkPlain", res[4].Name)
	assert.Equal(t, 1, res[4].Procs, "no suffix when GOMAXPROCS is 1")
}

func TestParseSkipsMalformedLines(t *testing.T) {
	for _, line := range []string{
		"BenchmarkX-2 abc 12 ns/op",           // iterations not a number
		"BenchmarkX-2 10 12",                  // value without unit
		"BenchmarkX-2 10 twelve ns/op",        // value not a number
		"BenchmarkX-2 10 NaN ns/op",           // not a finite value
		"BenchmarkX-2 0 12 ns/op",             // no iterations
		"Benchmarks are noisy 10 12 ns/op xx", // odd fields
	} {
		res, err := Parse(strings.NewReader(line + "\n"))
		require.NoError(t, err)
		assert.Empty(t, res, line)
	}
}

func TestSplitProcs(t *testing.T) {
	for _, tc := range []struct {
		in    string
		name  string
		procs int
	}{
		{"BenchmarkA-8", "BenchmarkA", 8},
		{"BenchmarkA/n=1000/x-2", "BenchmarkA/n=1000/x", 2},
		{"BenchmarkA/fixture/one-word", "BenchmarkA/fixture/one-word", 1},
		{"BenchmarkA-0", "BenchmarkA-0", 1},
		{"BenchmarkA", "BenchmarkA", 1},
	} {
		name, procs := splitProcs(tc.in)
		assert.Equal(t, tc.name, name, tc.in)
		assert.Equal(t, tc.procs, procs, tc.in)
	}
}

func TestSummarizeTakesMedians(t *testing.T) {
	res, err := Parse(strings.NewReader(sample))
	require.NoError(t, err)
	rows := Summarize(res)
	require.Len(t, rows, 3)
	r := rows[0]
	assert.Equal(t, "BenchmarkScale/n=1000/locate/code", r.Name)
	assert.Equal(t, 3, r.Runs)
	assert.Equal(t, []string{"ns/op", "p50-ms", "p95-ms", "B/op", "allocs/op"}, r.Units)
	assert.InDelta(t, 512000, r.Med["ns/op"], 1e-9)
	assert.InDelta(t, 1.0, r.Med["p95-ms"], 1e-9)

	even := Summarize([]Result{
		{Name: "B", Metrics: []Metric{{1, "x"}}}, {Name: "B", Metrics: []Metric{{4, "x"}}},
	})
	assert.InDelta(t, 2.5, even[0].Med["x"], 1e-9, "an even count takes the mean of the middle two")
}

func TestTargetsAndRender(t *testing.T) {
	targets, err := ParseTargets(strings.NewReader(`
# the targets of the spec
^BenchmarkScale/n=1000/locate/ p95-ms 2
^BenchmarkScale/n=1000/look/   p95-ms 0.02
^BenchmarkScale/               ns/op  1e9
`))
	require.NoError(t, err)
	require.Len(t, targets, 3)
	res, err := Parse(strings.NewReader(sample))
	require.NoError(t, err)
	rows := Summarize(res)

	v := Check(rows[0], targets)
	require.Len(t, v, 2)
	assert.True(t, v[0].Met)
	look := Check(rows[1], targets)
	require.Len(t, look, 2)
	assert.False(t, look[0].Met, "0.03 ms is over 0.02")
	assert.Empty(t, Check(rows[2], targets), "no target names BenchmarkPlain")

	var out bytes.Buffer
	missed, err := Write(&out, rows, targets)
	require.NoError(t, err)
	assert.Equal(t, 1, missed)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	require.Len(t, lines, 4)
	assert.Regexp(t, `benchmark\s+runs\s+time/op\s+p50-ms\s+p95-ms\s+B/op\s+allocs/op\s+target`, lines[0])
	assert.Regexp(t, `locate/code\s+3\s+512\.0µs\s+0\.4800\s+1\.00\s+12000\s+140\s+p95-ms<2 ok, ns/op<1e\+09 ok`, lines[1])
	assert.Contains(t, lines[2], "p95-ms<0.02 MISS")
	assert.Regexp(t, `BenchmarkPlain\s+1\s+25\.00ms\s+-\s+-\s+-\s+-`, lines[3])
}

func TestParseTargetsRefusesBadLines(t *testing.T) {
	for _, text := range []string{
		"^A p95-ms",        // two fields
		"^A p95-ms 2 more", // four fields
		"^(A p95-ms 2",     // bad regexp
		"^A p95-ms two",    // ceiling not a number
		"^A p95-ms NaN",    // not a number either
	} {
		_, err := ParseTargets(strings.NewReader(text))
		assert.Error(t, err, text)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{999, "ns/op", "999ns"},
		{1500, "ns/op", "1.5µs"},
		{2_500_000, "ns/op", "2.50ms"},
		{3_200_000_000, "ns/op", "3.20s"},
	} {
		assert.Equal(t, tc.want, formatNs(map[string]float64{tc.unit: tc.v}, tc.unit))
	}
	for v, want := range map[float64]string{1234.5: "1234", 12.34: "12.3", 1.234: "1.23", 0.01234: "0.0123", 7: "7.00"} {
		assert.Equal(t, want, formatUnit(map[string]float64{"p95-ms": v}, "p95-ms"))
	}
	assert.Equal(t, "7", formatUnit(map[string]float64{"allocs/op": 7}, "allocs/op"))
	assert.Equal(t, "-", formatUnit(nil, "u"))
}

// FuzzParse feeds arbitrary text: Parse never fails on content, and every
// result it returns has a name, iterations and finite values.
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("BenchmarkX-2 10 1 ns/op 2 p95-ms\n")
	f.Add("Benchmark 1 1 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		res, err := Parse(strings.NewReader(text))
		require.NoError(t, err)
		for _, r := range res {
			assert.True(t, strings.HasPrefix(r.Name, "Benchmark"))
			assert.Positive(t, r.N)
			assert.Positive(t, r.Procs)
			assert.NotEmpty(t, r.Metrics)
		}
		rows := Summarize(res)
		var buf bytes.Buffer
		_, err = Write(&buf, rows, nil)
		require.NoError(t, err)
	})
}

// FuzzParseTargets: a targets file parses or is refused, never panics, and
// every target parsed has a compiled pattern.
func FuzzParseTargets(f *testing.F) {
	f.Add("^BenchmarkScale/ p95-ms 20\n# comment\n")
	f.Add("a b c d")
	f.Fuzz(func(t *testing.T, text string) {
		targets, err := ParseTargets(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, tg := range targets {
			assert.NotNil(t, tg.Match)
			assert.NotEmpty(t, tg.Unit)
		}
	})
}
