package main

import (
	"os"
	"slices"
	"strconv"
	"time"

	"efaxx/native"
	"efaxx/results/record"
)

func fingerprint(in native.Info, o options, p placement, start time.Time) record.Rank {
	r := record.Rank{
		Type: record.TypeRank, Rank: in.Rank, World: in.World, LocalRank: in.LocalRank, LocalSize: in.LocalSize,
		Host: in.Host, PID: os.Getpid(), Benchmark: o.cfg.Benchmark,
		Provider: in.Provider, MRMode: in.MRMode,
		Libfabric: in.Libfabric, MPI: in.MPI, GPU: in.GPU, HostPages: in.HostPages, Version: version, Commit: commit, StartNs: start.UnixNano(),
		LibfabricLib: in.LibfabricLib, Memory: in.Memory,
		Pinning: p.pinning,
	}
	if in.Core >= 0 {
		core := in.Core
		r.Core = &core
	}
	domains := map[string]bool{}
	for _, rl := range in.Rails {
		r.Rails = append(r.Rails, record.Rail{Domain: rl.Domain, Fabric: rl.Fabric, LinkBps: rl.LinkBps})
		domains[rl.Domain] = true
	}
	if len(r.Rails) > 0 {
		r.Fabric, r.Domain, r.LinkBps = r.Rails[0].Fabric, r.Rails[0].Domain, r.Rails[0].LinkBps
	}
	r.SharedNICs = len(domains) < len(in.Rails)
	where(&r, os.Getenv)
	return r
}

func sampleRecord(in native.Info, o options, s native.Sample) record.Sample {
	out := record.Sample{
		Type: record.TypeSample, Rank: in.Rank, Peer: s.Peer, Role: s.Role, Size: s.Size, Variant: s.Variant,
		BytesSent: s.BytesSent, BytesRecv: s.BytesRecv, Iterations: s.Iterations, ElapsedNs: s.ElapsedNs,
		Lat: record.Lat{Min: s.LatMin, P50: s.LatP50, P99: s.LatP99, Max: s.LatMax},
	}
	if !o.bench.Takes("rails") { // the benchmark has no rails: ipc, queue
		return out
	}
	rails := railsUsed(o.cfg.Strategy, len(in.Rails), in.Rank, peersOf(in, s))
	out.Peers, out.Strategy, out.Rails, out.LinkBps = "all", o.cfg.Strategy, rails, linkBps(in, rails, o.linkGbps)
	out.Requeued = s.Requeued
	if s.Peer >= 0 {
		out.Peers = strconv.Itoa(s.Peer)
	}
	if slices.ContainsFunc(s.RailBytes, func(b uint64) bool { return b > 0 }) {
		out.RailBytes = s.RailBytes
	}
	return out
}

// peersOf lists the ranks a sample's rank talked to.
func peersOf(in native.Info, s native.Sample) []int {
	if s.Peer >= 0 {
		return []int{s.Peer}
	}
	var peers []int
	for r := 0; r < in.World; r++ {
		if r != in.Rank {
			peers = append(peers, r)
		}
	}
	return peers
}

// railsUsed lists the rails a strategy puts traffic between me and peers
// on, as native/xfer.c does.
func railsUsed(strategy string, rails, me int, peers []int) []int {
	switch strategy {
	case "single":
		return []int{0}
	case "round-robin":
		var used []int
		for _, p := range peers {
			used = append(used, (p+me)%rails)
		}
		slices.Sort(used)
		return slices.Compact(used)
	}
	all := make([]int, rails)
	for i := range all {
		all[i] = i
	}
	return all
}

// linkBps is the capacity behind the rails used: each NIC counted once, at
// linkGbps when given, else at the speed the provider reports (0 if any is
// unknown).
func linkBps(in native.Info, used []int, linkGbps float64) uint64 {
	seen := map[string]bool{}
	var sum uint64
	for _, i := range used {
		if i >= len(in.Rails) || seen[in.Rails[i].Domain] {
			continue
		}
		seen[in.Rails[i].Domain] = true
		speed := in.Rails[i].LinkBps
		if linkGbps > 0 {
			speed = uint64(linkGbps * 1e9)
		}
		if speed == 0 {
			return 0
		}
		sum += speed
	}
	return sum
}
