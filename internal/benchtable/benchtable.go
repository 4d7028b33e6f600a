// SPDX-License-Identifier: Apache-2.0

// Package benchtable reads the output of go test -bench and renders the
// medians of repeated runs (-count) as one aligned table, each row checked
// against the targets it falls under. It reads the text format of the
// testing package's benchmark lines and nothing else: other lines (goos,
// pkg, PASS, logs) are skipped.
package benchtable

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Result is one benchmark line: "BenchmarkX/sub-2  100  1234 ns/op  0.5 p95-ms".
type Result struct {
	Name    string // without the -GOMAXPROCS suffix
	Procs   int    // the suffix; 1 when absent
	N       int    // iterations
	Metrics []Metric
}

// Metric is one value with its unit, as the line spelled it.
type Metric struct {
	Value float64
	Unit  string
}

// maxLine bounds one line of input; benchmark lines are short, and a
// longer line is a log line to skip, not a reason to fail.
const maxLine = 1 << 20

// Parse reads every benchmark line of r in order. A line that starts with
// "Benchmark" but is not a result (a sub-benchmark's name echoed alone, a
// log line) is skipped, as go test's own tools do.
func Parse(r io.Reader) ([]Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	var out []Result
	for sc.Scan() {
		if res, ok := parseLine(sc.Text()); ok {
			out = append(out, res)
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("benchtable: read: %w", err)
	}
	return out, nil
}

func parseLine(line string) (Result, bool) {
	f := strings.Fields(line)
	// A result has a name, an iteration count and whole value-unit pairs.
	if len(f) < 4 || len(f)%2 != 0 || !strings.HasPrefix(f[0], "Benchmark") {
		return Result{}, false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n <= 0 {
		return Result{}, false
	}
	res := Result{N: n, Procs: 1}
	res.Name, res.Procs = splitProcs(f[0])
	for i := 2; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Result{}, false
		}
		res.Metrics = append(res.Metrics, Metric{Value: v, Unit: f[i+1]})
	}
	return res, true
}

// splitProcs cuts the -N suffix go test appends when GOMAXPROCS > 1.
func splitProcs(name string) (string, int) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name, 1
	}
	p, err := strconv.Atoi(name[i+1:])
	if err != nil || p <= 0 {
		return name, 1
	}
	return name[:i], p
}

// Row is one benchmark summarised over its runs: the median of each unit.
type Row struct {
	Name  string
	Runs  int
	Units []string // in first-seen order
	Med   map[string]float64
}

// Summarize groups results by name, in first-seen order, and takes the
// median of every unit over the runs that reported it.
func Summarize(results []Result) []Row {
	var order []string
	values := map[string]map[string][]float64{}
	units := map[string][]string{}
	runs := map[string]int{}
	for _, r := range results {
		if _, ok := values[r.Name]; !ok {
			order = append(order, r.Name)
			values[r.Name] = map[string][]float64{}
		}
		runs[r.Name]++
		for _, m := range r.Metrics {
			if _, ok := values[r.Name][m.Unit]; !ok {
				units[r.Name] = append(units[r.Name], m.Unit)
			}
			values[r.Name][m.Unit] = append(values[r.Name][m.Unit], m.Value)
		}
	}
	rows := make([]Row, len(order))
	for i, name := range order {
		med := map[string]float64{}
		for unit, vs := range values[name] {
			med[unit] = median(vs)
		}
		rows[i] = Row{Name: name, Runs: runs[name], Units: units[name], Med: med}
	}
	return rows
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Target is a ceiling a benchmark's median must stay under.
type Target struct {
	Match *regexp.Regexp // benchmark names it applies to
	Unit  string         // the metric it bounds, such as "p95-ms" or "ns/op"
	Max   float64
}

// ParseTargets reads one target a line: a regular expression over
// benchmark names, a unit and the ceiling, separated by blanks, e.g.
//
//	^BenchmarkScale/n=100000/locate/ p95-ms 20
//
// Blank lines and lines starting with # are comments.
func ParseTargets(r io.Reader) ([]Target, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var out []Target
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 3 {
			return nil, fmt.Errorf("benchtable: targets line %d: want \"REGEXP UNIT MAX\", got %d fields", line, len(f))
		}
		re, err := regexp.Compile(f[0])
		if err != nil {
			return nil, fmt.Errorf("benchtable: targets line %d: %w", line, err)
		}
		limit, err := strconv.ParseFloat(f[2], 64)
		if err != nil || math.IsNaN(limit) {
			return nil, fmt.Errorf("benchtable: targets line %d: ceiling %q is not a number", line, f[2])
		}
		out = append(out, Target{Match: re, Unit: f[1], Max: limit})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("benchtable: read targets: %w", err)
	}
	return out, nil
}

// Verdict is a row checked against one target.
type Verdict struct {
	Target Target
	Value  float64
	Met    bool
}

// Check returns the verdicts of every target that applies to row and
// whose unit the row reports.
func Check(row Row, targets []Target) []Verdict {
	var out []Verdict
	for _, t := range targets {
		v, ok := row.Med[t.Unit]
		if !ok || !t.Match.MatchString(row.Name) {
			continue
		}
		out = append(out, Verdict{Target: t, Value: v, Met: v < t.Max})
	}
	return out
}
