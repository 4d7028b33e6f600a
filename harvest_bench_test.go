// SPDX-License-Identifier: Apache-2.0

package vine_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/fixture"
	"github.com/monkeyllm/vine/internal/testforest"
)

func BenchmarkHarvestFixture(b *testing.B) {
	dir, _ := testforest.Fixture(b)
	v, err := vine.Open(context.Background(), dir, &vine.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if _, err := v.Harvest(ctx, "storm alert thresholds for the Tidewatch buoys", vine.HarvestOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := v.Harvest(ctx, "storm alert thresholds for the Tidewatch buoys", vine.HarvestOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHarvestCorpus is the sweep of the targets on 2,000 documents
// of about 7.5 KB (about 15 MB) over a 20,000-word Zipf vocabulary, warm:
// the forest is opened writable, swept once so the memo holds the terms,
// and reopened.
func BenchmarkHarvestCorpus(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	man, err := fixture.GenerateSynthetic(ctx, dir, fixture.SyntheticOptions{Nodes: 2000, Vocabulary: 20000,
		BodySentences: 55, Sections: 4, Commit: true})
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	open := func() *vine.Vine {
		v, err := vine.Open(ctx, dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
	v := open()
	rec, err := v.Record(ctx, man.Sample[len(man.Sample)/2])
	if err != nil {
		b.Fatal(err)
	}
	q := "what do the documents say about " + rec.Title + "?"
	if _, err := v.Harvest(ctx, q, vine.HarvestOptions{}); err != nil {
		b.Fatal(err)
	}
	v.Close() // waits for the memo to be stored
	v = open()
	defer v.Close()
	if _, err := v.Harvest(ctx, q, vine.HarvestOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := v.Harvest(ctx, q, vine.HarvestOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size)/1e6, "corpus-MB")
}
