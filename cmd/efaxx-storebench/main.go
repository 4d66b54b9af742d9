// Command efaxx-storebench measures the results store on this machine and
// prints the numbers docs/performance.md quotes: the ingest rate beside a
// raw prepared-statement insert loop (measured alternately, in one run, so
// that whatever else the machine does weighs on both), the wall time of
// efaxx show, runs and compare as a user runs them (the efaxx binary, a new
// process each time), and the bytes of database per sample row.
//
// make bench runs it. Every input is synthetic (results/synth); nothing it
// prints is a network measurement.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// options are the command's flags.
type options struct {
	dir    string // scratch directory; a new temporary one when empty
	efaxx  string // the efaxx binary whose commands are timed
	trials int    // measurements per number; the median is reported
	ranks  int    // ranks of the large run
	sizes  int    // message sizes of the large run
	runs   int    // runs in the history store
}

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "", "scratch directory (default: a new temporary one, removed after)")
	flag.StringVar(&o.efaxx, "efaxx", "bin/efaxx", "efaxx binary to time")
	flag.IntVar(&o.trials, "trials", 5, "measurements per number (the median is printed)")
	flag.IntVar(&o.ranks, "ranks", 8192, "ranks of the large run")
	flag.IntVar(&o.sizes, "sizes", 30, "message sizes of the large run")
	flag.IntVar(&o.runs, "runs", 100_000, "runs in the history store")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-storebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if o.dir == "" {
		dir, err := os.MkdirTemp("", "efaxx-storebench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.dir = dir
	}
	efaxx, err := filepath.Abs(o.efaxx)
	if err != nil {
		return err
	}
	o.efaxx = efaxx
	host, _ := os.Hostname()
	fmt.Printf("efaxx-storebench: %s, %d CPUs, %s, %s\n", host, runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format(time.RFC3339))
	fmt.Printf("load average at start: %s\n", loadAverage())
	fmt.Printf("medians of %d trials; [min .. max] in brackets\n\n", o.trials)
	large, err := benchIngest(ctx, o)
	if err != nil {
		return err
	}
	if err := benchShow(o, large); err != nil {
		return err
	}
	if err := benchRuns(ctx, o); err != nil {
		return err
	}
	fmt.Printf("load average at end: %s\n", loadAverage())
	return nil
}

// loadAverage returns the 1, 5 and 15 minute load averages, which say how
// much else the machine was doing while it was measured.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
