package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for efaxx-runner, so that a test
// can start a rank as a process of its own: "TEST-BINARY external --out
// DIR" runs the runner's external mode, and the runner's external mode
// starts it again as its watcher (watchMode).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "external" || os.Args[1] == watchMode) {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}
