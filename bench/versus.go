package main

import (
	"fmt"
	"os"

	"efaxx/results/record"
)

// The fabtests comparison: libfabric's own benchmarks beside efaxx on
// their home ground, tcp and shm on one host, size by size.
//
// Both sides count bytes the same way: payload bytes that arrived at a
// receiver, per second of the timed loop, both directions summed (see
// gbs). fi_rma_bw -o writedata and fi_rdm_tagged_bw stop their clock at
// the receiver's acknowledgement of the last window, efaxx's write and
// send initiators at the target's of its last iteration; fi_rdm_pingpong
// and efaxx's sendrecv count the size each way per round trip. Iterations are
// fabtests' own per size, or about 1 GiB in a bandwidth test from 64 KiB
// up (fabIters), warm-up 10 on both sides.
// fi_rma_bw -o write writes both ways at once and stops at local
// completion; it is shown, not compared.
//
// Over tcp each row also measures the same messages streamed over a
// plain loopback socket (bench/ref/tcpstream.c): what the kernel alone
// costs them. Over loopback both programs make the same system calls
// and the kernel's copies are where the time goes (docs/performance.md);
// where the socket leads both, the ratio to it is what each pays over
// the kernel. It is not a ceiling: from 1 MiB up both have run ahead of it.

var (
	writeSizes = []uint64{64, 4 << 10, 64 << 10, 256 << 10, 1 << 20, 8 << 20, 64 << 20}
	pingSizes  = []uint64{64, 4 << 10}
	twoSizes   = []uint64{1 << 20, 8 << 20}
	providers  = []string{"tcp", "shm"}
)

// fabIters is fabtests' iteration count at size (common/shared.c,
// size_to_count: bandwidth tests run twice a ping-pong's), made to move
// about 1 GiB in a bandwidth test from 64 KiB up (at least 20
// iterations): fabtests' own 2000 of 64 KiB are 35 ms over loopback tcp,
// shorter than the VM's scheduling hiccups, and 64 MiB still takes
// seconds, not a minute. Both sides run the same count.
func fabIters(size uint64, bw bool) uint64 {
	n := uint64(10000)
	switch {
	case size >= 1<<20:
		n = 100
	case size >= 1<<16:
		n = 1000
	}
	if !bw {
		return n
	}
	if size >= 1<<16 {
		return max(20, (1<<30)/size)
	}
	return 2 * n
}

// fabWindow is the window given to fi_rma_bw and fi_rdm_tagged_bw: their
// default of 64, except that each side allocates and zeroes a window of
// buffers for each direction (common/shared.c, ft_alloc_msgs), 8 GiB a
// process at 64 MiB; from 2 MiB up the window shrinks to keep them at
// 64 MiB a direction (8 at 8 MiB, 1 at 64 MiB). On the development VM,
// fi_rma_bw ran as fast with those windows (8 MiB: 2.5-4.2 GB/s in both;
// 64 MiB: 1.5-4.1 with 1 against 1.6-3.7 with 8, alternated), and the
// measurement that followed a process that had freed 2 GiB ran about 20%
// slower, fabtests and efaxx alike (the VM hands freed memory back to its
// host, virtio-balloon free page reporting, the likely cause).
func fabWindow(size uint64) uint64 {
	return min(64, max(1, (64<<20)/size))
}

// versus builds the comparison tables.
func versus(ft *fabtests, r runner, tcpstream string, cs cores) []*table {
	write := &table{title: "RDMA write, one way", unit: "GB/s of payload delivered, median of rounds",
		cols: []string{"fi_rma_bw writedata", "fi_rma_bw write (both ways at once: the client's way, at local completion)",
			"efaxx write", "efaxx write, 1 op 1 slot", "tcp socket stream"},
		ratios: []ratio{{"efaxx / writedata", 2, 0, goal{lo: 1}}, {"1 op 1 slot / writedata", 3, 0, goal{lo: 1}},
			{"writedata / socket", 0, 4, goal{}}, {"efaxx / socket", 2, 4, goal{}}},
		agree: []int{2, 3}}
	ping := &table{title: "ping-pong, one-way latency", unit: "µs, half a round trip: fi_rdm_pingpong's mean, efaxx's median and mean; lower is better",
		cols:   []string{"fi_rdm_pingpong (mean)", "efaxx sendrecv p50", "efaxx sendrecv mean"},
		ratios: []ratio{{"efaxx p50 / fi_rdm_pingpong", 1, 0, goal{hi: 1}}, {"efaxx mean / fi_rdm_pingpong", 2, 0, goal{}}},
		lower:  true}
	// A stream against a stream (send, fi_rdm_tagged_bw), and a ping-pong
	// against a ping-pong (sendrecv, fi_rdm_pingpong): over loopback tcp
	// at 1 MiB either ping-pong runs up to a tenth below fi_rdm_tagged_bw.
	two := &table{title: "two-sided bandwidth", unit: "GB/s of payload delivered, median of rounds",
		cols: []string{"fi_rdm_tagged_bw", "fi_rdm_pingpong", "efaxx send", "efaxx sendrecv", "tcp socket stream"},
		ratios: []ratio{{"efaxx send / fi_rdm_tagged_bw", 2, 0, goal{lo: 1}},
			{"efaxx sendrecv / fi_rdm_pingpong", 3, 1, goal{}},
			{"fi_rdm_tagged_bw / socket", 0, 4, goal{}}, {"efaxx send / socket", 2, 4, goal{}}},
		agree: []int{2}}
	for _, p := range providers {
		for _, size := range writeSizes {
			write.rows = append(write.rows, writeRow(ft, r, tcpstream, p, size))
		}
		for _, size := range pingSizes {
			ping.rows = append(ping.rows, pingRow(ft, r, cs, p, size))
		}
		for _, size := range twoSizes {
			two.rows = append(two.rows, twoRow(ft, r, tcpstream, p, size))
		}
	}
	return []*table{write, ping, two}
}

func writeRow(ft *fabtests, r runner, tcpstream, p string, size uint64) *row {
	it := fabIters(size, true)
	w := itoa(fabWindow(size))
	return &row{label: p + " " + sizeName(size), cells: []*cell{
		fabCell(ft, "fi_rma_bw", p, size, "-e", "rdm", "-o", "writedata", "-I", itoa(it), "-W", w).cell(),
		fabCell(ft, "fi_rma_bw", p, size, "-e", "rdm", "-o", "write", "-I", itoa(it), "-W", w).cell(),
		streamCell(r, "write", p, size, it),
		streamCell(r, "write", p, size, it, "--chunk", itoa(max(size, 1<<20)), "--slots", "1"),
		socketCell(tcpstream, p, size, it),
	}}
}

func pingRow(ft *fabtests, r runner, cs cores, p string, size uint64) *row {
	it := fabIters(size, false)
	fab := fabCell(ft, "fi_rdm_pingpong", p, size, "-I", itoa(it))
	fab.metric = oneWayUs // the round trip's mean over its 2 transfers: fabtests' usec/xfer
	// One efaxx run gives both the median and the mean, and both carry
	// the cores' readings around that run: a cell that has read the last
	// run already runs the next, whichever of the two comes first.
	run := &sharedRun{r: r, cs: cs, p: p, sizes: []uint64{size},
		args: []string{"--benchmark", "sendrecv", "--iterations", itoa(it), "--warmup", "10"}}
	mean := func(s record.Sample) float64 { return float64(s.ElapsedNs) / float64(s.Iterations) / 2 / 1e3 }
	return &row{label: p + " " + sizeName(size), cells: []*cell{fab.cell(), run.reader("p50", size, oneWayUs),
		run.reader("mean", size, mean)}}
}

func twoRow(ft *fabtests, r runner, tcpstream, p string, size uint64) *row {
	it := fabIters(size, true) // every column the same count, fi_rdm_pingpong's too: a ratio sets it against sendrecv
	return &row{label: p + " " + sizeName(size), cells: []*cell{
		fabCell(ft, "fi_rdm_tagged_bw", p, size, "-I", itoa(it), "-W", itoa(fabWindow(size))).cell(),
		fabCell(ft, "fi_rdm_pingpong", p, size, "-I", itoa(it)).cell(),
		streamCell(r, "send", p, size, it),
		{do: func() (float64, float64, error) {
			ss, err := r.run(p, "--benchmark", "sendrecv", "--sizes", itoa(size), "--iterations",
				itoa(it), "--warmup", "10")
			if err != nil {
				return 0, 0, err
			}
			s, err := find(ss, 0, size)
			return gbs(s), 0, err
		}},
		socketCell(tcpstream, p, size, it),
	}}
}

// socketCell streams iters messages of size over a loopback socket
// (tcpstream), the kernel's part of a tcp row; nil over other providers.
func socketCell(tcpstream, p string, size, iters uint64) *cell {
	if p != "tcp" {
		return nil
	}
	return &cell{do: func() (float64, float64, error) {
		gbps, err := ref(tcpstream, int(size), int(iters))
		return gbps / 8, 0, err
	}}
}

// fabRun is one fabtests measurement: a benchmark, its options, and the
// number taken of each side's sample (gbs unless set).
type fabRun struct {
	ft      *fabtests
	prog, p string
	size    uint64
	args    []string
	metric  func(record.Sample) float64
}

func fabCell(ft *fabtests, prog, p string, size uint64, args ...string) *fabRun {
	return &fabRun{ft: ft, prog: prog, p: p, size: size, args: args, metric: gbs}
}

// cell measures the client's number, beside the server's. A run that
// fails is run again, up to twice, on other ports, and said on stderr:
// on a machine where many connections come and go, a fabtests client's
// connect from its fixed port now and then fails (EADDRNOTAVAIL).
func (f *fabRun) cell() *cell {
	return &cell{do: func() (float64, float64, error) {
		res, err := f.ft.run(f.prog, f.p, f.size, f.args...)
		for try := 1; err != nil && try < 3; try++ {
			fmt.Fprintf(os.Stderr, "bench: %v; again\n", err)
			res, err = f.ft.run(f.prog, f.p, f.size, f.args...)
		}
		if err != nil {
			return 0, 0, err
		}
		return f.metric(res.client), f.metric(res.server), nil
	}}
}

// streamCell runs efaxx's write or send at size: the initiator's rate,
// beside the target's.
func streamCell(r runner, bench, p string, size, iters uint64, extra ...string) *cell {
	return &cell{do: func() (float64, float64, error) {
		args := append([]string{"--benchmark", bench, "--sizes", itoa(size), "--iterations", itoa(iters),
			"--warmup", "10"}, extra...)
		ss, err := r.run(p, args...)
		if err != nil {
			return 0, 0, err
		}
		init, err := find(ss, 0, size)
		if err != nil {
			return 0, 0, err
		}
		target, err := find(ss, 1, size)
		return gbs(init), gbs(target), err
	}}
}
