package main

import (
	"strings"
	"testing"

	"efaxx/benchmarks"
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

// flagValues are a value each flag of a sweep key takes for any benchmark
// that takes the key.
var flagValues = map[string]string{
	"provider": "shm", "nic": "lo", "rails": "1", "strategy": "single", "pin": "none", "link-gbps": "0",
	"memory": "host", "sizes": "64", "iterations": "5", "duration": "1s", "warmup": "0", "timeout": "10s",
	"chunk": "4096", "window": "4", "slots": "8", "launch": "auto", "direction": "push", "schedule": "at-once",
	"cells": "pinned", "mode": "nbi", "producer": "gpu", "producers": "1",
}

// TestFlagsTakenAsKeys: a flag of a sweep key is accepted for a benchmark
// exactly when the benchmarks table says it takes the key; the runner
// ignored the others (sendrecv --slots 1 --direction bidir --launch 3x3
// --cells device --producers 8 exited 0), and queue on CPU with --memory
// device crashed (SIGSEGV in a CUDA plugin it never loaded).
func TestFlagsTakenAsKeys(t *testing.T) {
	covered := map[string]bool{}
	for flag, key := range flagKeys {
		covered[key] = true
		if flagValues[flag] == "" {
			t.Errorf("no test value for --%s", flag)
		}
	}
	for _, key := range benchmarks.RestrictedKeys() {
		if !covered[key] {
			t.Errorf("key %s, which only some benchmarks take, has no flag in flagKeys: it would never be refused", key)
		}
	}
	for _, b := range benchmarks.All() {
		if !b.Measured() {
			continue
		}
		for flag, key := range flagKeys {
			args := []string{"--benchmark", b.Name, "--sizes", "64", "--" + flag, flagValues[flag]}
			_, err := parseFlags(args)
			if b.Takes(key) && err != nil {
				t.Errorf("%s takes %s, parseFlags(%q) = %v", b.Name, key, args, err)
			}
			if !b.Takes(key) && (err == nil || !strings.Contains(err.Error(), "--"+flag+": benchmark "+b.Name+" does not take it")) {
				t.Errorf("%s does not take %s, parseFlags(%q) = %v, want it refused", b.Name, key, args, err)
			}
		}
	}
	refused(t, "--memory: benchmark queue does not take it (sweep key memory: sendrecv, send, write, all2all, proxy only)",
		"--benchmark", "queue", "--producer", "cpu", "--cells", "host", "--memory", "device", "--sizes", "64")
	refused(t, "does not take it", "--benchmark", "sendrecv", "--sizes", "64", "--slots", "1", "--direction", "bidir",
		"--launch", "3x3", "--cells", "device", "--producers", "8")
	// The runner's own flags apply to every benchmark.
	accepted(t, "--benchmark", "queue", "--sizes", "64", "--core", "0", "--out", t.TempDir(), "--timeout", "5s", "--iterations", "3", "--warmup", "1")
}

// TestSizeRules: a size the benchmark cannot measure is refused before
// any size runs, with its reason: ipc and ipc-all2all copy 16-byte words,
// the queue's commands carry 8-byte words and a 32-bit payload length
// (1 TiB was refused at run time as not whole 8-byte words).
func TestSizeRules(t *testing.T) {
	accepted(t, "--benchmark", "queue", "--sizes", "8,4096,4294967288")
	accepted(t, "--benchmark", "ipc", "--sizes", "16,1048576")
	accepted(t, "--benchmark", "write", "--sizes", "1,7,4294967297")
	refused(t, "--sizes: queue moves whole 8-byte words: 12 is not a multiple of 8", "--benchmark", "queue", "--sizes", "4096,12")
	refused(t, "--sizes: 1099511627776 is more than queue takes: at most 4294967288 (a command's payload length is 32 bits)",
		"--benchmark", "queue", "--sizes", "64,1099511627776")
	refused(t, "--sizes: 4294967296 is more than queue takes", "--benchmark", "queue", "--sizes", "4294967296")
	refused(t, "--sizes: ipc moves whole 16-byte words: 8 is not a multiple of 16", "--benchmark", "ipc", "--sizes", "4096,8")
	refused(t, "--sizes: ipc-all2all moves whole 16-byte words: 24 is not a multiple of 16", "--benchmark", "ipc-all2all", "--sizes", "24")
}
