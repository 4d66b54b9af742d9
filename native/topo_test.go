package native_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"efaxx/native"
)

// fakeP5 builds a sysfs tree shaped like a p5 node in miniature: two PCIe
// switches under one root complex, each with one GPU and two EFAs, on two
// NUMA nodes, plus a NIC without a device (loopback).
func fakeP5(t *testing.T) native.Sysfs {
	t.Helper()
	root := t.TempDir()
	sys := filepath.Join(root, "sys")
	rc := filepath.Join(sys, "devices", "pci0000:00")
	dev := func(bdf, parent, vendor, class string) string {
		p := filepath.Join(parent, bdf)
		mustWrite(t, filepath.Join(p, "vendor"), vendor)
		mustWrite(t, filepath.Join(p, "class"), class)
		mustLink(t, p, filepath.Join(sys, "bus", "pci", "devices", bdf))
		return p
	}
	for sw, node := range []string{"0", "1"} {
		up := dev("0000:0"+string(rune('1'+sw))+":00.0", rc, "0x1000", "0x060400") // switch upstream port
		gpu := dev("0000:1"+string(rune('0'+sw))+":00.0", up, "0x10de", "0x030200")
		_ = gpu
		for e := 0; e < 2; e++ {
			bdf := "0000:2" + string(rune('0'+sw)) + ":0" + string(rune('0'+e)) + ".0"
			efa := dev(bdf, up, "0x1d0f", "0x020000")
			mustWrite(t, filepath.Join(efa, "numa_node"), node)
			name := "rdmap" + string(rune('0'+sw)) + string(rune('0'+e))
			mustLink(t, efa, filepath.Join(sys, "class", "infiniband", name, "device"))
		}
		mustWrite(t, filepath.Join(sys, "devices", "system", "node", "node"+node, "cpulist"),
			map[string]string{"0": "0-3,8-11", "1": "4-7,12-15"}[node])
	}
	mustWrite(t, filepath.Join(sys, "devices", "system", "cpu", "online"), "0-15")
	mustWrite(t, filepath.Join(sys, "class", "net", "lo", "mtu"), "65536")
	mustWrite(t, filepath.Join(sys, "class", "net", "nic1", "mtu"), "1500")
	mustWrite(t, filepath.Join(sys, "class", "net", "nic0", "mtu"), "1500")
	return native.Sysfs{Root: root}
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestSysfsTopology(t *testing.T) {
	sys := fakeP5(t)
	if got, want := sys.GPUs(), []string{"0000:10:00.0", "0000:11:00.0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("GPUs() = %v, want %v", got, want)
	}
	if got, want := sys.EFADevices(), []string{"rdmap00", "rdmap01", "rdmap10", "rdmap11"}; !reflect.DeepEqual(got, want) {
		t.Errorf("EFADevices() = %v, want %v", got, want)
	}
	for gpu, want := range map[string][]string{"0000:10:00.0": {"rdmap00", "rdmap01"}, "0000:11:00.0": {"rdmap10", "rdmap11"}} {
		got, err := sys.EFAsNearGPU(gpu)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("EFAsNearGPU(%s) = %v, %v; want %v", gpu, got, err, want)
		}
	}
	if got := sys.NUMANode("rdmap11"); got != 1 {
		t.Errorf("NUMANode(rdmap11) = %d, want 1", got)
	}
	if got := sys.NUMANode("lo"); got != -1 {
		t.Errorf("NUMANode(lo) = %d, want -1", got)
	}
	if got, err := sys.CPUs(1); err != nil || !reflect.DeepEqual(got, []int{4, 5, 6, 7, 12, 13, 14, 15}) {
		t.Errorf("CPUs(1) = %v, %v", got, err)
	}
	if got, err := sys.CPUs(-1); err != nil || len(got) != 16 {
		t.Errorf("CPUs(-1) = %v, %v; want 16 cores", got, err)
	}
	if got, want := sys.NetNICs("nic[0-9]*"), []string{"nic0", "nic1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("NetNICs = %v, want %v", got, want)
	}
}

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		bad  bool
	}{
		{"0", []int{0}, false},
		{"0-2,5,7-8", []int{0, 1, 2, 5, 7, 8}, false},
		{"3-1", nil, true},
		{"x", nil, true},
	}
	for _, tt := range tests {
		got, err := native.ParseCPUList(tt.in)
		if (err != nil) != tt.bad || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v", tt.in, got, err)
		}
	}
}
