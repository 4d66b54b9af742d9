package results_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"efaxx/results"
)

// BenchmarkIngest ingests one finished run of N ranks × 30 sizes into a new
// store per iteration and reports sample rows stored per second.
func BenchmarkIngest(b *testing.B) {
	sizes := make([]uint64, 30)
	for i := range sizes {
		sizes[i] = 1 << i
	}
	for _, ranks := range []int{64, 1024} {
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) {
			dir := newTestRun("uid-bench", "sendrecv", ranks, sizes...).write(b, b.TempDir(), "000-p")
			rows := ranks * len(sizes)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db, err := results.Open(b.Context(), filepath.Join(b.TempDir(), fmt.Sprintf("%d.db", i)))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rep := mustIngest(b, db, dir)
				b.StopTimer()
				if got := rep.Runs[0].Samples; got != rows {
					b.Fatalf("ingested %d samples, want %d", got, rows)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
