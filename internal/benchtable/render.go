// SPDX-License-Identifier: Apache-2.0

package benchtable

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Write renders rows as an aligned table: the benchmark, its run count,
// time per operation, every other unit the rows report (p50-ms, p95-ms,
// B/op, ...) in first-seen order, and the targets that apply, each marked
// ok or MISS. It returns the number of missed targets.
func Write(w io.Writer, rows []Row, targets []Target) (missed int, err error) {
	units := columns(rows)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := append([]string{"benchmark", "runs", "time/op"}, units...)
	header = append(header, "target")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		cells := []string{r.Name, fmt.Sprint(r.Runs), formatNs(r.Med, "ns/op")}
		for _, u := range units {
			cells = append(cells, formatUnit(r.Med, u))
		}
		var verdicts []string
		for _, v := range Check(r, targets) {
			mark := "ok"
			if !v.Met {
				mark = "MISS"
				missed++
			}
			verdicts = append(verdicts, fmt.Sprintf("%s<%g %s", v.Target.Unit, v.Target.Max, mark))
		}
		cells = append(cells, strings.Join(verdicts, ", "))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return missed, tw.Flush()
}

// columns lists the units other than ns/op over all rows, first seen first.
func columns(rows []Row) []string {
	seen := map[string]bool{"ns/op": true}
	var out []string
	for _, r := range rows {
		for _, u := range r.Units {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// formatNs renders a duration in ns with a unit a reader compares at a
// glance: µs below a millisecond, ms below a second.
func formatNs(med map[string]float64, unit string) string {
	ns, ok := med[unit]
	if !ok {
		return "-"
	}
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.2fms", ns/1e6)
	}
	return fmt.Sprintf("%.2fs", ns/1e9)
}

// formatUnit renders a median with three significant digits or more,
// never in exponent form: the column is read by eye. Per-op counts (B/op,
// allocs/op) are whole numbers.
func formatUnit(med map[string]float64, unit string) string {
	v, ok := med[unit]
	if !ok {
		return "-"
	}
	a := math.Abs(v)
	switch {
	case a >= 100 || strings.HasSuffix(unit, "/op"):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}
