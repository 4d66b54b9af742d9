package main

import (
	"strings"
	"testing"
)

// refused checks that parseFlags refuses args with an error that says want.
func refused(t *testing.T, want string, args ...string) {
	t.Helper()
	if _, err := parseFlags(args); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("parseFlags(%q) = %v, want an error saying %q", args, err, want)
	}
}

// accepted checks that parseFlags takes args.
func accepted(t *testing.T, args ...string) options {
	t.Helper()
	o, err := parseFlags(args)
	if err != nil {
		t.Errorf("parseFlags(%q) = %v, want it accepted", args, err)
	}
	return o
}

// TestChunkMax: --chunk takes up to 1 TiB, as the sweeps' chunk key;
// past it a plan's op count wrapped to 0 (a write crashed with SIGFPE, a
// sendrecv ended ok having moved nothing).
func TestChunkMax(t *testing.T) {
	accepted(t, "--benchmark", "write", "--sizes", "4096", "--chunk", "1099511627776")
	for _, c := range []string{"1099511627777", "18446744073709551615"} {
		refused(t, "--chunk "+c+" is out of range: want 0 (the benchmark's default) up to 1099511627776", "--benchmark", "write", "--sizes", "4096", "--chunk", c)
	}
}

// TestStrayArgument: an argument that is no flag is refused; flag parsing
// stopped there and dropped every flag after it unseen (here --window 0,
// which is refused).
func TestStrayArgument(t *testing.T) {
	refused(t, `unexpected argument "oops"`, "--benchmark", "write", "--sizes", "4096", "oops", "--window", "0")
	refused(t, `unexpected argument "4096"`, "--benchmark", "write", "--sizes", "64", "4096")
}
