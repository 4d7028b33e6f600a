package harvest_test

import (
	"context"
	"testing"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/harvest"
	"github.com/monkeyllm/vine/internal/testforest"
)

func BenchmarkHarvestFixture(b *testing.B) {
	dir, _ := testforest.Fixture(b)
	v, err := vine.Open(context.Background(), dir, &vine.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	r := harvest.Engine(v)
	ctx := context.Background()
	if _, err := harvest.Harvest(ctx, r, "storm alert thresholds for the Tidewatch buoys", harvest.Options{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := harvest.Harvest(ctx, r, "storm alert thresholds for the Tidewatch buoys", harvest.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
