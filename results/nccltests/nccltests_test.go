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

func TestParseText(t *testing.T) {
	r := mustParse(t, "all_reduce_16.txt")
	if r.Program != "all_reduce_perf" || r.Collective() != "all_reduce" || r.Version != "2.17.6" || r.NCCLVersion != 22703 ||
		r.Iterations != 20 || len(r.Devices) != 16 || len(r.Rows) != 25 || r.Wrong != 0 || r.AvgBusBw != 79.6012 {
		t.Fatalf("Parse = program %q %q v%s nccl %d, %d iterations, %d devices, %d rows, %d wrong, avg %v",
			r.Program, r.Collective(), r.Version, r.NCCLVersion, r.Iterations, len(r.Devices), len(r.Rows), r.Wrong, r.AvgBusBw)
	}
	if d := r.Devices[9]; d.Rank != 9 || d.Host != "p5-node-02" || d.Pid != 41239 || d.Device != 1 || d.Bus != "0000:2a:00" ||
		d.Name != "NVIDIA H100 80GB HBM3" {
		t.Errorf("device 9 = %+v", d)
	}
	first, last := r.Rows[0], r.Rows[24]
	if first.Size != 8 || first.Count != 2 || first.Type != "float" || first.Redop != "sum" || first.Root != -1 ||
		first.OutOfPlace.TimeUs != 18 || *first.OutOfPlace.Wrong != 0 || first.InPlace.TimeUs != 18.23 {
		t.Errorf("first row = %+v, out %+v, in %+v", first, *first.OutOfPlace, *first.InPlace)
	}
	if last.Size != 134217728 || last.OutOfPlace.AlgBw != 175.76 || last.OutOfPlace.BusBw != 329.54 ||
		last.InPlace.TimeUs != 773.58 || last.InPlace.AlgBw != 173.50 || last.OutOfPlace.Min != nil {
		t.Errorf("last row = %+v, out %+v, in %+v", last, *last.OutOfPlace, *last.InPlace)
	}
}

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

func TestParseJSON(t *testing.T) {
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
	text, err := os.ReadFile("testdata/all_reduce_16.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	lines[29] = lines[29][:40]                                 // a row cut short, line 30
	lines[31] = strings.Replace(lines[31], "18.00", "fast", 1) // a time that is no number, line 32
	cut := strings.Join(lines, "\n")
	json, err := os.ReadFile("testdata/all_gather.json")
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
