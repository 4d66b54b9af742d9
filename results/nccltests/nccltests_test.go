package nccltests_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"efaxx/results/nccltests"
)

// mustParse parses testdata/name.
func mustParse(t *testing.T, name string) *nccltests.Result {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := nccltests.Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestParseText reads recorded output: nccl-tests 2.17.9 all_reduce_perf
// on 8 H100s (testdata/README.md).
func TestParseText(t *testing.T) {
	r := mustParse(t, "h100_all_reduce_8.txt")
	if r.Program != "all_reduce_perf" || r.Collective() != "all_reduce" || r.Version != "2.17.9" || r.NCCLVersion != 22602 ||
		r.Iterations != 20 || len(r.Devices) != 8 || len(r.Rows) != 31 || r.Wrong != 0 || r.AvgBusBw != 122.955 || !r.Complete {
		t.Fatalf("Parse = program %q %q v%s nccl %d, %d iterations, %d devices, %d rows, %d wrong, avg %v",
			r.Program, r.Collective(), r.Version, r.NCCLVersion, r.Iterations, len(r.Devices), len(r.Rows), r.Wrong, r.AvgBusBw)
	}
	if d := r.Devices[5]; d.Rank != 5 || d.Host != "gpu-dp-2jvzl-pqq7p" || d.Pid != 1583223 || d.Device != 5 || d.Bus != "0000:49:00" ||
		d.Name != "NVIDIA H100 80GB HBM3" {
		t.Errorf("device 5 = %+v", d)
	}
	first, last := r.Rows[0], r.Rows[30]
	if first.Size != 8 || first.Count != 2 || first.Type != "float" || first.Redop != "sum" || first.Root != -1 ||
		first.OutOfPlace.TimeUs != 34.98 || *first.OutOfPlace.Wrong != 0 || first.InPlace.TimeUs != 34.52 {
		t.Errorf("first row = %+v, out %+v, in %+v", first, *first.OutOfPlace, *first.InPlace)
	}
	// Above 10 ms nccl-tests prints the time with one decimal.
	if last.Size != 8589934592 || last.OutOfPlace.TimeUs != 40838.9 || last.OutOfPlace.AlgBw != 210.34 || last.OutOfPlace.BusBw != 368.09 ||
		last.InPlace.TimeUs != 40780.5 || last.InPlace.AlgBw != 210.64 || last.OutOfPlace.Min != nil {
		t.Errorf("last row = %+v, out %+v, in %+v", last, *last.OutOfPlace, *last.InPlace)
	}
}

// TestParseText_NotChecked reads recorded alltoall_perf output of 2 H200s
// (testdata/README.md): its in-place column prints #wrong as N/A, a
// placement nccl-tests did not check, not a failure.
func TestParseText_NotChecked(t *testing.T) {
	r := mustParse(t, "h200_alltoall_2.txt")
	if r.Program != "alltoall_perf" || r.NCCLVersion != 22809 || len(r.Devices) != 2 || len(r.Rows) != 13 || r.Wrong != 0 {
		t.Fatalf("Parse = %+v", r)
	}
	last := r.Rows[12]
	if last.Size != 134217728 || last.OutOfPlace.BusBw != 265.57 || *last.OutOfPlace.Wrong != 0 ||
		last.InPlace.TimeUs != 246.71 || last.InPlace.Wrong != nil {
		t.Errorf("last row = %+v, out %+v, in %+v", last, *last.OutOfPlace, *last.InPlace)
	}
}

// TestParseText_RepeatedSizes reads recorded all_gather_perf output on 8
// GPUs, whose smallest sizes round down to 0 bytes: four rows of size 0.
func TestParseText_RepeatedSizes(t *testing.T) {
	r := mustParse(t, "h100_all_gather_8.txt")
	if len(r.Rows) != 31 || r.Rows[3].Size != 0 || r.Rows[4].Size != 128 {
		t.Fatalf("Parse = %d rows, want 31 with four of size 0 first", len(r.Rows))
	}
	g := r.Groups()
	if len(g) != 1 || len(g[0].Rows) != 28 || len(g[0].Repeated) != 3 || g[0].Rows[0].OutOfPlace.TimeUs != 0.88 ||
		r.Fingerprint()["repeated_size_rows"] != 3 {
		t.Errorf("groups = %d, rows %d, repeated %d: want one group, 28 sizes, 3 repeats, the first row of size 0 kept",
			len(g), len(g[0].Rows), len(g[0].Repeated))
	}
	s, err := r.Sample("f", g[0].Rows[0], g[0].Rows[0].OutOfPlace)
	if err != nil || s.Size != 0 || s.BytesSent != 0 || s.ElapsedNs != 17600 {
		t.Errorf("size-0 sample = %+v, %v: want 20 iterations of 0.88 us", s, err)
	}
}

// TestParseText_PerIteration reads a hand-written file (testdata/README.md):
// no output of -R with a failed data check is recorded.
func TestParseText_PerIteration(t *testing.T) {
	r := mustParse(t, "alltoall_per_iter.txt")
	if r.Collective() != "alltoall" || r.Wrong != 3 || len(r.Rows) != 11 || r.Iterations != 50 {
		t.Fatalf("Parse = %q, %d wrong, %d rows, %d iterations; want alltoall, 3, 11, 50", r.Collective(), r.Wrong, len(r.Rows), r.Iterations)
	}
	last := r.Rows[10]
	if *last.InPlace.Wrong != 3 || *last.OutOfPlace.Wrong != 0 || last.InPlace.Min == nil || last.InPlace.P99 == nil ||
		*last.InPlace.P99 <= last.InPlace.TimeUs || last.Redop != "none" {
		t.Errorf("last row = %+v, in %+v", last, *last.InPlace)
	}
}

// TestParseJSON reads recorded -J output of 2 H200s (testdata/README.md):
// one line, JSON file version 1, the whole environment of the ranks.
func TestParseJSON(t *testing.T) {
	r := mustParse(t, "h200_all_reduce_2.json")
	if r.Program != "all_reduce_perf" || r.Start != "2026-11-23 00:03:52" || r.Iterations != 20 || len(r.Devices) != 2 ||
		len(r.Rows) != 13 || r.Devices[1].Name != "NVIDIA H200" || r.AvgBusBw != 64.812455 || r.NCCLVersion != 22809 {
		t.Fatalf("Parse = %+v", r)
	}
	last := r.Rows[12]
	if last.Size != 134217728 || last.Count != 33554432 || last.Redop != "sum" || last.Root != -1 || last.Iterations != 20 ||
		last.OutOfPlace.TimeUs != 469.393575 || last.InPlace.AlgBw != 286.781729 || *last.OutOfPlace.Wrong != 0 || last.Line != 1 {
		t.Errorf("last row = %+v, out %+v, in %+v", last, *last.OutOfPlace, *last.InPlace)
	}
	for _, name := range []string{"h200_all_gather_2.json", "h200_alltoall_2.json"} {
		if r := mustParse(t, name); len(r.Rows) != 13 || r.Rows[12].Size != 134217728 || r.Rows[12].Redop != "none" {
			t.Errorf("%s: %d rows, last %+v", name, len(r.Rows), r.Rows[len(r.Rows)-1])
		}
	}
}

// TestParseJSON_Version2 reads a hand-written file of the newer JSON file
// version 2 (per-iteration timing in the config): none is recorded.
func TestParseJSON_Version2(t *testing.T) {
	r := mustParse(t, "all_gather.json")
	if r.Program != "all_gather_perf" || r.Start != "2026-11-20 14:02:11" || r.Iterations != 20 || len(r.Devices) != 8 ||
		len(r.Rows) != 4 || r.Devices[7].Host != "p5-node-07" || r.AvgBusBw != 61.5 {
		t.Fatalf("Parse = %+v", r)
	}
	if row := r.Rows[3]; row.Size != 8388608 || row.Root != -1 || row.Iterations != 20 || row.OutOfPlace.TimeUs <= 0 ||
		row.InPlace.TimeUs <= row.OutOfPlace.TimeUs || row.Line != 1 {
		t.Errorf("last row = %+v", row)
	}
}

func TestParseErrors(t *testing.T) {
	text, err := os.ReadFile("testdata/h100_all_reduce_8.txt") // recorded, damaged here
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	lines[29] = lines[29][:40]                                 // a row cut short, line 30
	lines[31] = strings.Replace(lines[31], "37.29", "fast", 1) // a time that is no number, line 32
	cut := strings.Join(lines, "\n")
	json, err := os.ReadFile("testdata/h200_all_reduce_2.json") // recorded, damaged here
	if err != nil {
		t.Fatal(err)
	}
	pretty := strings.ReplaceAll(string(json), `{"size"`, "\n"+`{"size"`) // one result per line, as an editor might leave it
	half := pretty[:len(pretty)/2]
	nan := strings.Replace(pretty, `"time":`, `"time":"nan","x":`, 3)
	tests := []struct{ name, file, text, want string }{
		{"text rows", "a.txt", cut, "a.txt:30: row of 3 fields: want 13 (size count type redop root, then time algbw busbw #wrong out of place and in place)\n" +
			"a.txt:32: time \"fast\": not a number of at least 0"},
		{"no table", "b.txt", "# nccl-tests version 2.17.6\nnot a table\n", `b.txt: no result table: no header line "# size count type redop root time algbw busbw #wrong ..."`},
		{"json cut short", "c.json", half, fmt.Sprintf("c.json:%d: unexpected end of JSON input", strings.Count(half, "\n")+1)},
		{"json nan", "d.json", nan, "d.json:2: result: value is \"nan\"\nd.json:3: result: value is \"nan\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := nccltests.Parse(tt.file, []byte(tt.text))
			if err == nil || err.Error() != tt.want || !errors.Is(err, nccltests.ErrFormat) {
				t.Errorf("Parse error =\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}
