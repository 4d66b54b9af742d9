package main

import (
	"fmt"
	"testing"
	"time"

	"efaxx/benchmarks"
	"efaxx/harness"
	"efaxx/native"
)

// TestBenchmarkTable walks the benchmarks table and proves that what a row
// says reaches what the runner records, from the arguments a sweep's point
// gives it: a benchmark that takes rails has samples that carry their
// rails, strategy and link speed, and one without has none; one that takes
// pinning is pinned as the policy says, and the fingerprint says so; one
// that does not is not pinned, and the fingerprint says "none".
func TestBenchmarkTable(t *testing.T) {
	sys := t.TempDir() // one NIC, nic0, on NUMA node 1 (cores 2-3)
	for _, nic := range []string{"lo", "nic0"} {
		write(t, sys, "class/net/"+nic+"/mtu", "1500")
	}
	write(t, sys, "class/net/nic0/device/numa_node", "1")
	write(t, sys, "devices/system/node/node1/cpulist", "2-3")
	write(t, sys, "devices/system/cpu/online", "0-3")
	info := native.Info{Rank: 0, World: 2, LocalRank: 1, LocalSize: 2, Core: -1,
		Rails: []native.Rail{{Domain: "nic0", Fabric: "tcp", LinkBps: 100e9}, {Domain: "nic0", Fabric: "tcp", LinkBps: 100e9}}}
	sample := native.Sample{Peer: 1, Role: "initiator", Size: 4096, BytesSent: 4096, Iterations: 10, ElapsedNs: 1000}

	for _, b := range benchmarks.All() {
		if !b.Measured() {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			ranks := min(2, b.MaxRanks)
			sweep := fmt.Sprintf("name = \"t\"\nbenchmark = %q\n[params]\nranks = %d\nsizes = [4096]\n", b.Name, ranks)
			if b.Takes("rails") {
				sweep += "provider = \"tcp\"\nrails = 2\nstrategy = \"split\"\n"
			}
			s, err := harness.Parse("t.toml", []byte(sweep))
			if err != nil {
				t.Fatal(err)
			}
			o, err := parseFlags(s.Points()[0].RunnerArgs())
			if err != nil {
				t.Fatalf("the runner refuses a point's arguments: %v", err)
			}
			p := place(native.Sysfs{Root: sys}, o, info.LocalRank, info.LocalSize)
			in := info
			in.Core = p.core
			fp := fingerprint(in, o, p, time.Now())
			rec := sampleRecord(in, o, sample)

			if fp.Benchmark != b.Name {
				t.Errorf("fingerprint benchmark %q", fp.Benchmark)
			}
			if b.Takes("pinning") {
				if fp.Pinning != "numa" || fp.Core == nil || *fp.Core != 3 {
					t.Errorf("takes pinning, fingerprint says pinning %q core %v; want numa on core 3 (nic0's node, local rank 1)", fp.Pinning, fp.Core)
				}
			} else if fp.Pinning != "none" || fp.Core != nil {
				t.Errorf("takes no pinning, fingerprint says pinning %q core %v; want none, no core", fp.Pinning, fp.Core)
			}
			if b.Takes("rails") {
				if len(rec.Rails) != 2 || rec.Strategy != "split" || rec.LinkBps != 100e9 || rec.Peers != "1" {
					t.Errorf("takes rails, sample has rails %v strategy %q link %d peers %q; want [0 1], split, 1e11 (one NIC), 1",
						rec.Rails, rec.Strategy, rec.LinkBps, rec.Peers)
				}
			} else if rec.Rails != nil || rec.Strategy != "" || rec.LinkBps != 0 || rec.Peers != "" {
				t.Errorf("takes no rails, sample has rails %v strategy %q link %d peers %q", rec.Rails, rec.Strategy, rec.LinkBps, rec.Peers)
			}
		})
	}
}

// TestFlagsFollowTable: the runner refuses what the benchmarks table says
// a benchmark cannot take, as a sweep's validation does: the adaptive
// strategy for a two-sided one, round-robin for one that writes to one
// peer at a time, a duration for one whose iterations are a count.
func TestFlagsFollowTable(t *testing.T) {
	for _, b := range benchmarks.All() {
		if !b.Measured() {
			continue
		}
		if b.Takes("strategy") { // else --strategy is refused outright (TestFlagsTakenAsKeys)
			_, err := parseFlags([]string{"--benchmark", b.Name, "--sizes", "64", "--strategy", "adaptive"})
			if (err != nil) != b.FixedRails {
				t.Errorf("%s --strategy adaptive: %v; fixed rails %v", b.Name, err, b.FixedRails)
			}
			_, err = parseFlags([]string{"--benchmark", b.Name, "--sizes", "64", "--strategy", "round-robin"})
			if (err != nil) != b.OnePeer {
				t.Errorf("%s --strategy round-robin: %v; one peer at a time %v", b.Name, err, b.OnePeer)
			}
		}
		_, err := parseFlags([]string{"--benchmark", b.Name, "--sizes", "64", "--duration", "1s"})
		if (err != nil) == b.Takes("duration") {
			t.Errorf("%s --duration 1s: %v; takes a duration %v", b.Name, err, b.Takes("duration"))
		}
	}
}
