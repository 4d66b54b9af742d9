package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// script writes an executable shell script named name into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The ping-pong's median and mean come from one efaxx run, and both carry
// the cores' readings around that run: a run measured with the cores
// apart is left out of both columns, not kept in the one that reads it
// second (whose own readings would be taken around no run).
func TestPingCellsShareTheRunsReadings(t *testing.T) {
	dir := t.TempDir()
	// The cores: 8 readings apart (around the p50 cell's run and its 3
	// retakes), then near ones.
	vals := "1000\n1000\n1000\n1000\n1000\n1000\n1000\n1000\n100\n100\n100\n100\n"
	if err := os.WriteFile(filepath.Join(dir, "vals"), []byte(vals), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := cores{prog: script(t, dir, "cores", fmt.Sprintf(`n=$(cat %[1]s/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]s/n
echo cores 0 1 100000 $(sed -n ${n}p %[1]s/vals)
`, dir))}
	// mpirun: run k writes both ranks' samples, its p50 round trip k µs.
	script(t, dir, "mpirun", fmt.Sprintf(`k=$(cat %[1]s/k 2>/dev/null || echo 0); k=$((k+1)); echo $k > %[1]s/k
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
for r in 0 1; do
printf '{"type":"sample","rank":%%d,"peer":%%d,"role":"both","size":64,"bytes_sent":64,"bytes_recv":64,"iterations":1000,"elapsed_ns":%%d,"lat_ns":{"min":1,"p50":%%d,"p99":1,"max":1}}\n{"type":"end","rank":%%d,"status":"ok","elapsed_ns":1}\n' $r $((1-r)) $((k*1000000)) $((k*1000)) $r > $out/rank-0000$r.ndjson
done
`, dir))
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	r := pingRow(&fabtests{}, runner{path: "x", dir: dir}, cs, "shm", 64)
	r.cells[0] = nil // no fabtests here
	tb := &table{cols: []string{"fab", "p50", "mean"}, rows: []*row{r}, lower: true}
	var rd readings
	for range 20 {
		rd.add(100)
	}
	if _, err := tb.measure(cs, &rd, 0, 1); err != nil {
		t.Fatal(err)
	}
	p50, mean := r.cells[1], r.cells[2]
	// p50 read run 4, its last try, apart; the mean cell found that run's
	// readings apart too and took a run of its own (5), read near.
	if p50.kept(0, rd.floor()) || p50.vals[0] != 2 {
		t.Errorf("p50 %s (readings %v): want run 4's 2 µs, left out", p50.rounds(rd.floor()), p50.arounds)
	}
	if mean.kept(0, rd.floor()) && mean.vals[0] == p50.vals[0] {
		t.Errorf("the mean kept the run measured with the cores apart (%s, readings %v)", mean.rounds(rd.floor()), mean.arounds)
	}
}

// -rows that matches no row of the sections asked for is an error that
// names some rows; the flag's help example matches one.
func TestRowsPicked(t *testing.T) {
	defer func(f *regexp.Regexp) { rowFilter = f }(rowFilter)
	rowFilter = regexp.MustCompile("ping-pong: shm 64B")
	err := rowsPicked([]string{"refs", "fabtests", "sweep"}, runner{}, cores{})
	if err == nil || !strings.Contains(err.Error(), `"RDMA write, one way: tcp 64B"`) {
		t.Errorf("rowsPicked with a filter that matches nothing = %v, want an error naming rows", err)
	}
	rowFilter = regexp.MustCompile("ping-pong, one-way latency: shm 64B") // the help's example
	if err := rowsPicked([]string{"fabtests"}, runner{}, cores{}); err != nil {
		t.Errorf("the help's example: %v", err)
	}
	if err := rowsPicked([]string{"refs"}, runner{}, cores{}); err != nil {
		t.Errorf("-only refs has no rows to pick: %v", err)
	}
}
