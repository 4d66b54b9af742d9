// Command efaxx-figbench times `efaxx figures` over a store of a million
// samples: it grows the committed figure data (plots/data) into a
// synthetic store of the same sweeps, points and variants with every rank
// and sample repeated, numbers jittered, ingests it, and times efaxx
// figures drawing every spec from it, as a user runs it (the efaxx binary,
// a new process each time). make bench runs it.
//
// The grown store is synthetic: its ranks are copies named "-synth", and
// nothing it prints is a measurement of a network or a GPU.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// options are the command's flags.
type options struct {
	efaxx   string // the efaxx binary timed
	data    string // the figure data to grow
	specs   string // the figure specs drawn
	samples int    // samples the grown store holds, about
	ranks   int    // copies of each rank; the rest of the growth is copies of each sample
	trials  int    // timed runs of efaxx figures
	keep    string // keep the grown data and store here; "" removes them
}

func main() {
	var o options
	flag.StringVar(&o.efaxx, "efaxx", "bin/efaxx", "efaxx binary to time")
	flag.StringVar(&o.data, "data", "plots/data", "figure data to grow")
	flag.StringVar(&o.specs, "specs", "plots/figures", "figure specs to draw")
	flag.IntVar(&o.samples, "samples", 1_000_000, "samples in the grown store, about")
	flag.IntVar(&o.ranks, "ranks", 25, "copies of each rank (files); each sample is copied for the rest")
	flag.IntVar(&o.trials, "trials", 3, "timed runs of efaxx figures (the median is printed)")
	flag.StringVar(&o.keep, "keep", "", "keep the grown data and store in this directory")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-figbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	dir := o.keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "efaxx-figbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	host, _ := os.Hostname()
	fmt.Printf("efaxx-figbench: %s, %d CPUs, %s, %s\n", host, runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format(time.RFC3339))
	have, err := countSamples(o.data)
	if err != nil {
		return err
	}
	g := grower{ranks: o.ranks, peers: max(1, (o.samples+have*o.ranks-1)/(have*o.ranks))}
	start := time.Now()
	n, err := g.grow(o.data, filepath.Join(dir, "data"))
	if err != nil {
		return err
	}
	fmt.Printf("grew %s (%d samples) into %d synthetic samples (ranks x%d, samples x%d) in %.1fs\n",
		o.data, have, n, g.ranks, g.peers, time.Since(start).Seconds())
	db := filepath.Join(dir, "store.db")
	d, err := ingest(o.efaxx, db, filepath.Join(dir, "data"))
	if err != nil {
		return err
	}
	fmt.Printf("efaxx ingest of the grown data: %.1f s\n", d.Seconds())
	return timeFigures(o, db, filepath.Join(dir, "out"))
}

// timeFigures times efaxx figures over the store and prints the median.
func timeFigures(o options, db, out string) error {
	var secs []float64
	for range o.trials {
		d, said, err := timed(o.efaxx, "--db", db, "figures", "--specs", o.specs, "--out-dir", out, "--allow-missing")
		if err != nil {
			return err
		}
		secs = append(secs, d.Seconds())
		fmt.Printf("  %.2f s: %s\n", d.Seconds(), lastLines(said, 1))
	}
	slices.Sort(secs)
	fmt.Printf("efaxx figures, every spec of %s from that store: %.2f s (median of %d; %.2f .. %.2f); goal < 5 s\n",
		o.specs, secs[len(secs)/2], len(secs), secs[0], secs[len(secs)-1])
	return nil
}

// timed runs efaxx with args and returns its wall time and its standard
// output.
func timed(efaxx string, args ...string) (time.Duration, string, error) {
	cmd := exec.Command(efaxx, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, "", fmt.Errorf("efaxx %s: %w\n%s", strings.Join(args, " "), err, lastLines(out.String()+errOut.String(), 5))
	}
	return d, out.String(), nil
}

// ingest stores the grown data and times it. efaxx ingest exits 3 when
// it stores a failed run, and the figure data keeps one on purpose (a step
// that crashed, then ran again with --retry): only that is let through.
func ingest(efaxx, db, data string) (time.Duration, error) {
	cmd := exec.Command(efaxx, "--db", db, "ingest", data)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	var exit *exec.ExitError
	if err == nil || errors.As(err, &exit) && exit.ExitCode() == 3 && onlyFailedRuns(string(out)) {
		return d, nil
	}
	return d, fmt.Errorf("efaxx ingest %s: %w\n%s", data, err, lastLines(string(out), 5))
}

// onlyFailedRuns says whether ingest's report holds nothing but stored
// runs, at least one of them failed.
func onlyFailedRuns(report string) bool {
	failed := false
	for _, line := range strings.Split(strings.TrimSpace(report), "\n") {
		switch {
		case strings.Contains(line, " new: ok,"):
		case strings.Contains(line, " new: failed,"):
			failed = true
		default:
			return false
		}
	}
	return failed
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
