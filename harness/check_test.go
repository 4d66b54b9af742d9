package harness_test

import (
	"path/filepath"
	"testing"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/results/record"
	"efaxx/results/synth"
)

func TestCheck(t *testing.T) {
	// A 100 Gbps link with 5 us per iteration: 4 KiB moves at about 6 Gbps,
	// 64 MiB at about 99.9.
	rows := checkRun(t, &synth.Run{UID: "r", Ranks: 4, Sizes: []uint64{4096, 64 << 20}, Params: map[string]any{"provider": "shm"}},
		`name = "c"
benchmark = "write"
[[expect]]
name  = "line rate"
where = { size = ">= 1MiB" }
min   = 95
[[expect]]
name  = "small messages"
where = { provider = "shm", size = "<= 1MiB" }
stat  = "min"
min   = 50
[[expect]]
name  = "efa"
where = { provider = "efa" }
min   = 1
`)
	want := []struct {
		name    string
		size    uint64
		pass    bool
		missing bool
	}{{"line rate", 64 << 20, true, false}, {"small messages", 4096, false, false}, {"efa", 0, false, true}}
	if len(rows) != len(want) {
		t.Fatalf("Check = %d rows %+v, want %d", len(rows), rows, len(want))
	}
	for i, w := range want {
		r := rows[i]
		if r.Expect.Name != w.name || r.Size != w.size || r.Pass != w.pass || r.Missing != w.missing {
			t.Errorf("row %d = %s at %d, pass %v, missing %v (value %v); want %s at %d, pass %v, missing %v",
				i, r.Expect.Name, r.Size, r.Pass, r.Missing, r.Value, w.name, w.size, w.pass, w.missing)
		}
	}
	if v := rows[0].Value; v < 99 || v > 100 {
		t.Errorf("median gbps at 64 MiB = %v, want about 99.9", v)
	}
}

// TestCheckReferences: a run's references (here a GPU-memory write's
// cudaMemcpy and staged copies, 100 and 10 times its rate) are not the
// benchmark's samples, so they do not move the value an expectation judges.
func TestCheckReferences(t *testing.T) {
	sample := func(variant string, ns uint64, peer int) record.Sample {
		return record.Sample{Role: "initiator", Peer: peer, Variant: variant, BytesSent: 4096, Iterations: 100,
			ElapsedNs: 100 * ns, Lat: record.Lat{Min: ns, P50: ns, P99: ns, Max: ns}}
	}
	run := &synth.Run{UID: "r", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"memory": "device"},
		Samples: func(rank int, size uint64) []record.Sample {
			ss := []record.Sample{sample("", 4096, 1-rank)} // 8 Gbps
			if rank == 0 {
				ss = append(ss, sample("cudaMemcpy", 41, 1), sample("staged", 410, 1))
			}
			return ss
		}}
	rows := checkRun(t, run, `name = "c"
benchmark = "write"
[[expect]]
name = "no more than the network"
stat = "max"
max  = 9
`)
	if len(rows) != 1 || !rows[0].Pass || rows[0].Value < 7.9 || rows[0].Value > 8.1 {
		t.Fatalf("Check = %+v; want one passing row of the network's 8 Gbps", rows)
	}
}

// checkRun stores run alone and checks it against the expectations of
// the sweep text spec.
func checkRun(t *testing.T, run *synth.Run, spec string) []harness.CheckRow {
	t.Helper()
	db, err := results.Open(t.Context(), filepath.Join(t.TempDir(), "efaxx.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dir := filepath.Join(t.TempDir(), "run")
	if err := run.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Ingest(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	s, err := harness.Parse("c.toml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := db.Runs(t.Context(), results.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := harness.Check(t.Context(), db, s.Expects, runs)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
