// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/dataset"
)

// Headings of the two generated sections of a dataset passport (G.2.3).
const (
	sectionManual  = "Query manual"
	sectionSamples = "Sample rows"
)

// tableSpecs is a dataset conversion's schema in C.7.1 form, tables and
// columns in source order.
func tableSpecs(c *Conversion) []vine.TableSpec {
	out := make([]vine.TableSpec, 0, len(c.Tables))
	for _, t := range c.Tables {
		spec := vine.TableSpec{Name: t}
		for _, col := range c.Columns[t] {
			spec.Columns = append(spec.Columns, vine.ColumnSpec{Name: col, Type: c.Schema[t][col]})
		}
		out = append(out, spec)
	}
	return out
}

// mapInfos describes a conversion's tables for the sample map: a dataset
// conversion from its rows (sheet order), a payload from the samples and
// counts the converter read (name order, as the converter lists them).
// Declared types are upper-cased; a count the converter could not read
// is left unknown.
func mapInfos(c *Conversion) []dataset.TableInfo {
	out := make([]dataset.TableInfo, 0, len(c.Tables))
	for _, t := range c.Tables {
		info := dataset.TableInfo{Name: t}
		for _, col := range c.Columns[t] {
			info.Columns = append(info.Columns, dataset.Column{Name: col, Type: strings.ToUpper(strings.TrimSpace(c.Schema[t][col]))})
		}
		if c.Kind == KindDataset {
			rows := c.Rows[t]
			info.Rows, info.Known = len(rows), true
			info.Sample = rows[:min(len(rows), dataset.SampleRows)]
		} else {
			n, ok := c.Counts[t]
			info.Rows, info.Known = int(n), ok
			samples := c.Samples[t]
			info.Sample = samples[:min(len(samples), dataset.SampleRows)]
		}
		out = append(out, info)
	}
	return out
}

// rowCounts are the known row counts by table, for the dataset summary.
func rowCounts(c *Conversion) map[string]int64 {
	out := make(map[string]int64, len(c.Tables))
	for _, t := range c.Tables {
		if c.Kind == KindDataset {
			out[t] = int64(len(c.Rows[t]))
		} else if n, ok := c.Counts[t]; ok {
			out[t] = n
		}
	}
	return out
}

// mapBody is a new dataset passport's body: the title, then the two
// generated sections.
func mapBody(title string, c *Conversion) string {
	return "# " + title + "\n\n" + dataset.Sections(mapInfos(c))
}

// replaceMap rewrites the two generated sections of a dataset body in
// place (appending them when missing) and leaves every other section —
// the human ## Notes above all — as it was.
func replaceMap(body string, c *Conversion) string {
	infos := mapInfos(c)
	body = forest.ReplaceSection(body, sectionManual, sectionLines(dataset.Manual(infos)))
	return forest.ReplaceSection(body, sectionSamples, sectionLines(dataset.SampleMap(infos)))
}

// sectionLines are a rendered section's lines after its heading.
func sectionLines(section string) []string {
	lines := strings.Split(section, "\n")
	return lines[1:]
}
