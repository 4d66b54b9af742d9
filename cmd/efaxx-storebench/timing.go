package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// timeCommand runs efaxx with args trials times, after one untimed run
// that warms the page cache, and returns each wall time in ms.
func timeCommand(o options, args ...string) ([]float64, error) {
	var ms []float64
	for i := -1; i < o.trials; i++ {
		cmd := exec.Command(o.efaxx, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("efaxx %s: %w\n%s", strings.Join(args, " "), err, out.String())
		}
		if i >= 0 {
			ms = append(ms, float64(d.Microseconds())/1e3)
		}
	}
	return ms, nil
}

// spread formats the median of xs and its range.
func spread(xs []float64, format string) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf(format+"  ["+format+" .. "+format+"]", med, s[0], s[len(s)-1])
}

// printCommand times efaxx with args and prints the line for it.
func printCommand(o options, label string, args ...string) error {
	ms, err := timeCommand(o, args...)
	if err != nil {
		return err
	}
	fmt.Printf("  %-38s %s ms\n", label, spread(ms, "%.1f"))
	return nil
}
