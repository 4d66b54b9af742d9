package main

import (
	"fmt"
	"strings"

	"efaxx/native"
)

// placement is where a rank runs: the NICs its rails use and its core.
type placement struct {
	nics    string // what the native core matches libfabric domains against
	core    int    // -1: not pinned
	pinning string // the policy, and why it pinned nothing when it did not
}

// place resolves --nic auto and the pinning policy for local rank lr of
// ls. The policy follows the first NIC, so it holds for the benchmarks that
// take the pinning key; the others pin only with --core, and their
// fingerprint says "none".
func place(sys native.Sysfs, o options, lr, ls int) placement {
	p := placement{nics: o.cfg.NICs, core: -1, pinning: o.pinning}
	if p.nics == "auto" {
		p.nics = autoNICs(sys, o.cfg.Provider, lr)
	}
	switch {
	case o.cfg.Core >= 0: // --core names the core itself
		p.core, p.pinning = o.cfg.Core, fmt.Sprintf("core %d", o.cfg.Core)
		return p
	case !o.bench.Takes("pinning"):
		p.pinning = "none"
		return p
	case o.pinning != "numa":
		return p
	}
	node := sys.NUMANode(firstDevice(sys, o.cfg.Provider, p.nics))
	cpus, err := sys.CPUs(node)
	switch {
	case err != nil:
		p.pinning += fmt.Sprintf(" (not pinned: %v)", err)
	case ls > len(cpus):
		p.pinning += fmt.Sprintf(" (not pinned: %d ranks share the %d cores of NUMA node %d)", ls, len(cpus), node)
	default:
		p.core = cpus[lr]
	}
	return p
}

// autoNICs is the default NIC choice per provider:
//   - efa: the EFA devices under the PCIe switch of this local rank's GPU
//     (every EFA device when there is no GPU);
//   - tcp: the data NICs nic0, nic1, ... of the testbed cluster when they
//     exist, else loopback: never a management link;
//   - shm and the rest: whatever the provider offers.
func autoNICs(sys native.Sysfs, provider string, lr int) string {
	switch provider {
	case "efa":
		devs := sys.EFADevices()
		if gpus := sys.GPUs(); lr < len(gpus) {
			if near, err := sys.EFAsNearGPU(gpus[lr]); err == nil {
				devs = near
			}
		}
		for i, d := range devs {
			devs[i] = d + "-rdm" // the efa provider's RDM domain of device d
		}
		return strings.Join(devs, ",")
	case "tcp":
		if len(sys.NetNICs("nic[0-9]*")) > 0 {
			return "nic[0-9]*"
		}
		return "lo"
	}
	return ""
}

// firstDevice names the sysfs device of the first NIC the rails will use.
func firstDevice(sys native.Sysfs, provider, nics string) string {
	first, _, _ := strings.Cut(nics, ",")
	if provider == "efa" {
		return strings.TrimSuffix(first, "-rdm")
	}
	if m := sys.NetNICs(first); len(m) > 0 {
		return m[0]
	}
	return first
}
