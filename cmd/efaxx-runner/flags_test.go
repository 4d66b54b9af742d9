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

// TestThirtyTwoBitFlags: --window, --producers and --core reach C as
// 32-bit numbers; out of the sweeps' range (a core: of a cpu_set_t) they
// are refused, where --window 4294967297 ran with a window of 1.
func TestThirtyTwoBitFlags(t *testing.T) {
	write := []string{"--benchmark", "write", "--sizes", "4096"}
	queue := []string{"--benchmark", "queue", "--sizes", "64"}
	with := func(base []string, more ...string) []string { return append(append([]string(nil), base...), more...) }
	accepted(t, with(write, "--window", "4096", "--core", "1023")...)
	accepted(t, with(write, "--core", "-1")...)
	accepted(t, with(queue, "--producers", "1048576")...)
	for _, w := range []string{"0", "4097", "4294967297", "-4294967295"} {
		refused(t, "--window "+w+" is out of range: want 1..4096", with(write, "--window", w)...)
	}
	for _, p := range []string{"0", "1048577", "4294967297"} {
		refused(t, "--producers "+p+" is out of range: want 1..1048576", with(queue, "--producers", p)...)
	}
	for _, c := range []string{"-2", "1024", "4294967296"} {
		refused(t, "--core "+c+" is out of range: want -1 (as --pin says) or a CPU, 0..1023", with(write, "--core", c)...)
	}
}

// TestLaunchRange: --launch takes what the sweeps' launch key takes; a
// grid past 32 bits wrapped on its way to C, and trailing text was
// ignored.
func TestLaunchRange(t *testing.T) {
	ipc := []string{"--benchmark", "ipc", "--sizes", "64"}
	with := func(more ...string) []string { return append(append([]string(nil), ipc...), more...) }
	o := accepted(t, with("--launch", "9999999x1024")...)
	if o.cfg.Grid != 9999999 || o.cfg.Block != 1024 {
		t.Errorf("--launch 9999999x1024: grid %d block %d", o.cfg.Grid, o.cfg.Block)
	}
	for _, l := range []string{"4294967297x256", "0x256", "128x0", "3x3junk", "-1x256"} {
		refused(t, "--launch \""+l+"\": want auto or GRIDxBLOCK", with("--launch", l)...)
	}
	refused(t, "1025 threads a block, CUDA allows at most 1024", with("--launch", "128x1025")...)
}

// TestIterationsMax: --iterations and --warmup take up to 10^12 each, as
// the sweeps do, so that their sum cannot wrap: --warmup
// 18446744073709551615 ended ok with elapsed_ns the time since boot.
func TestIterationsMax(t *testing.T) {
	write := []string{"--benchmark", "write", "--sizes", "4096"}
	with := func(more ...string) []string { return append(append([]string(nil), write...), more...) }
	accepted(t, with("--iterations", "1000000000000", "--warmup", "1000000000000")...)
	accepted(t, with("--warmup", "0")...)
	for _, n := range []string{"1000000000001", "18446744073709551615"} {
		refused(t, "--warmup "+n+" is out of range: want 0..1000000000000", with("--warmup", n)...)
		refused(t, "--iterations "+n+" is out of range: want 1..1000000000000", with("--iterations", n)...)
	}
	refused(t, "--iterations 0 is out of range: want 1..1000000000000", with("--iterations", "0")...)
}

// TestNICAndLinkSpeed: an empty --nic is refused, as the sweeps' nics key
// refuses it (tcp picked any interface, eth0, for it), and so is a
// --link-gbps out of the sweeps' 0..1e6, or no number (it is recorded
// as a uint64 of bit/s).
func TestNICAndLinkSpeed(t *testing.T) {
	write := []string{"--benchmark", "write", "--provider", "tcp", "--sizes", "4096"}
	with := func(more ...string) []string { return append(append([]string(nil), write...), more...) }
	accepted(t, with("--nic", "lo", "--link-gbps", "1e6")...)
	accepted(t, with("--link-gbps", "0")...)
	refused(t, "--nic is empty", with("--nic", "")...)
	for _, g := range []string{"-5", "NaN", "+Inf", "-Inf", "1e30", "1000000.5"} {
		refused(t, "is out of range: want 0 (the provider's speed) up to 1e6", with("--link-gbps", g)...)
	}
}
