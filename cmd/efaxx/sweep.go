package main

import (
	"efaxx/harness"
	"efaxx/sweeps"
)

// loadSweep loads the sweep file at path, or the embedded demo when path
// is empty.
func loadSweep(path string) (*harness.Sweep, error) {
	if path == "" {
		return harness.Parse(sweeps.DemoFile, sweeps.Demo)
	}
	return harness.Load(path)
}
