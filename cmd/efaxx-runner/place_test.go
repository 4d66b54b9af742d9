package main

import (
	"os"
	"path/filepath"
	"testing"

	"efaxx/benchmarks"
	"efaxx/native"
)

func write(t *testing.T, root, path, text string) {
	t.Helper()
	p := filepath.Join(root, "sys", path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlace(t *testing.T) {
	testbed, laptop := t.TempDir(), t.TempDir()
	for _, nic := range []string{"lo", "mgmt", "nic0", "nic1"} {
		write(t, testbed, "class/net/"+nic+"/mtu", "1500")
	}
	write(t, testbed, "class/net/nic0/device/numa_node", "1")
	write(t, testbed, "devices/system/node/node1/cpulist", "2-3")
	write(t, testbed, "devices/system/cpu/online", "0-3")
	write(t, laptop, "class/net/lo/mtu", "65536")
	write(t, laptop, "devices/system/cpu/online", "0-1")

	tcp := options{cfg: native.Config{Benchmark: "write", Provider: "tcp", NICs: "auto", Core: -1}, pinning: "numa"}
	tests := []struct {
		name   string
		root   string
		o      options
		lr, ls int
		nics   string
		core   int
	}{
		{"testbed data NICs, NUMA node of nic0", testbed, tcp, 1, 2, "nic[0-9]*", 3},
		{"laptop loopback, any core", laptop, tcp, 1, 2, "lo", 1},
		{"more ranks than cores: no pinning", laptop, tcp, 2, 3, "lo", -1},
		{"explicit NICs kept", testbed, options{cfg: native.Config{Benchmark: "write", Provider: "tcp", NICs: "nic1", Core: -1}, pinning: "none"}, 0, 1, "nic1", -1},
		{"--core wins", laptop, options{cfg: native.Config{Benchmark: "write", Provider: "tcp", NICs: "lo", Core: 1}, pinning: "numa"}, 0, 2, "lo", 1},
		{"GPU benchmarks pin only with --core", laptop, options{cfg: native.Config{Benchmark: "queue", Provider: "auto", NICs: "auto", Core: -1}, pinning: "numa"}, 0, 1, "", -1},
		{"shm: the provider's domain", laptop, options{cfg: native.Config{Benchmark: "sendrecv", Provider: "shm", NICs: "auto", Core: -1}, pinning: "numa"}, 0, 2, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.bench, _ = benchmarks.Lookup(tt.o.cfg.Benchmark)
			p := place(native.Sysfs{Root: tt.root}, tt.o, tt.lr, tt.ls)
			if p.nics != tt.nics || p.core != tt.core {
				t.Errorf("place = %+v, want nics %q core %d", p, tt.nics, tt.core)
			}
		})
	}
}

func TestRailsUsed(t *testing.T) {
	if got := railsUsed("round-robin", 4, 0, []int{1, 2, 3}); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("round-robin from rank 0 to 1..3 over 4 rails = %v, want [1 2 3]", got)
	}
	if got := railsUsed("round-robin", 2, 1, []int{0, 2}); len(got) != 1 || got[0] != 1 {
		t.Errorf("round-robin from rank 1 to 0, 2 over 2 rails = %v, want [1]", got)
	}
	if got := railsUsed("single", 4, 0, []int{1}); len(got) != 1 || got[0] != 0 {
		t.Errorf("single = %v, want [0]", got)
	}
	if got := railsUsed("adaptive", 3, 0, []int{1}); len(got) != 3 {
		t.Errorf("adaptive = %v, want all 3", got)
	}
}
