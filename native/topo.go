package native

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Sysfs reads the machine's topology (NICs, GPUs, NUMA nodes) from a sysfs
// tree rooted at Root: "/" on a real machine, a fake tree in tests.
type Sysfs struct{ Root string }

func (s Sysfs) path(parts ...string) string {
	return filepath.Join(append([]string{s.Root, "sys"}, parts...)...)
}

// NetNICs returns the network interfaces whose names match pattern, sorted.
func (s Sysfs) NetNICs(pattern string) []string {
	m, _ := filepath.Glob(s.path("class", "net", pattern))
	return baseNames(m)
}

// EFADevices returns the EFA (infiniband class) devices, sorted.
func (s Sysfs) EFADevices() []string {
	m, _ := filepath.Glob(s.path("class", "infiniband", "*"))
	return baseNames(m)
}

func baseNames(paths []string) []string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	sort.Strings(names)
	return names
}

// GPUs returns the PCI addresses of the NVIDIA GPUs, in PCI bus order: the
// order CUDA numbers them with CUDA_DEVICE_ORDER=PCI_BUS_ID.
func (s Sysfs) GPUs() []string {
	devs, _ := filepath.Glob(s.path("bus", "pci", "devices", "*"))
	var gpus []string
	for _, d := range devs {
		vendor, class := readTrim(filepath.Join(d, "vendor")), readTrim(filepath.Join(d, "class"))
		if vendor == "0x10de" && (strings.HasPrefix(class, "0x0300") || strings.HasPrefix(class, "0x0302")) {
			gpus = append(gpus, filepath.Base(d))
		}
	}
	sort.Strings(gpus)
	return gpus
}

// EFAsNearGPU returns the EFA devices under the same PCIe switch as GPU
// gpu (a PCI address): those whose device path shares the longest prefix
// with the GPU's, below the root complex. This is Libefaxx's "EFAs under
// the GPU's host bridge" (4 per GPU on p5.48xlarge).
func (s Sysfs) EFAsNearGPU(gpu string) ([]string, error) {
	gpath, err := filepath.EvalSymlinks(s.path("bus", "pci", "devices", gpu))
	if err != nil {
		return nil, fmt.Errorf("gpu %s: %w", gpu, err)
	}
	best, near := 0, []string(nil)
	for _, dev := range s.EFADevices() {
		epath, err := filepath.EvalSymlinks(s.path("class", "infiniband", dev, "device"))
		if err != nil {
			continue
		}
		n := commonDepth(gpath, epath)
		switch {
		case n > best:
			best, near = n, []string{dev}
		case n == best && n > 0:
			near = append(near, dev)
		}
	}
	if len(near) == 0 {
		return nil, fmt.Errorf("no EFA device shares a PCIe switch with gpu %s", gpu)
	}
	return near, nil
}

// commonDepth counts the PCI devices two sysfs device paths share below the
// root complex (the pciDDDD:BB directory): 0 when they meet only there.
func commonDepth(a, b string) int {
	pa, pb := strings.Split(a, "/"), strings.Split(b, "/")
	n, below := 0, false
	for i := 0; i < len(pa) && i < len(pb) && pa[i] == pb[i]; i++ {
		if below {
			n++
		}
		below = below || strings.HasPrefix(pa[i], "pci")
	}
	return n
}

// NUMANode returns the NUMA node of a network interface or EFA device, or
// -1 when it has none (loopback, virtual NICs) or it is unknown.
func (s Sysfs) NUMANode(nic string) int {
	for _, class := range []string{"net", "infiniband"} {
		if v := readTrim(s.path("class", class, nic, "device", "numa_node")); v != "" {
			n, err := strconv.Atoi(v)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// CPUs returns the cores of NUMA node node, or every online core for -1.
func (s Sysfs) CPUs(node int) ([]int, error) {
	file := s.path("devices", "system", "cpu", "online")
	if node >= 0 {
		file = s.path("devices", "system", "node", fmt.Sprintf("node%d", node), "cpulist")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseCPUList(strings.TrimSpace(string(b)))
}

// ParseCPUList reads a kernel CPU list such as "0-3,8,10-11".
func ParseCPUList(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, found := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if found {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("cpu list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
