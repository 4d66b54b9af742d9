package external_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results/external"
	"efaxx/results/record"
)

// input reads testdata files into an Input, each the stdout of the rank
// its name ends in (".rank1.txt"), rank 0 without one.
func input(t *testing.T, ranks int, names ...string) external.Input {
	t.Helper()
	in := external.Input{Ranks: ranks}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		rank := 0
		if i := strings.Index(name, ".rank"); i >= 0 {
			rank = int(name[i+len(".rank")] - '0')
		}
		in.Files = append(in.Files, external.File{Name: name, Rank: rank, Data: data})
	}
	return in
}

// value returns the tool value name of the sample of size and variant.
func value(t *testing.T, res *external.Result, size uint64, variant, name string) float64 {
	t.Helper()
	for _, v := range res.Values {
		if v.Size == size && v.Variant == variant && v.Name == name {
			return v.Value
		}
	}
	t.Fatalf("no tool value %s at size %d variant %q", name, size, variant)
	return 0
}

// rankSample returns rank's sample of size.
func rankSample(t *testing.T, res *external.Result, rank int, size uint64) record.Sample {
	t.Helper()
	for _, s := range res.Samples {
		if s.Rank == rank && s.Size == size {
			return s
		}
	}
	t.Fatalf("no sample of rank %d at size %d", rank, size)
	return record.Sample{}
}

// sample returns the sample of size and variant.
func sample(t *testing.T, res *external.Result, size uint64, variant string) record.Sample {
	t.Helper()
	for _, s := range res.Samples {
		if s.Size == size && s.Variant == variant {
			return s
		}
	}
	t.Fatalf("no sample at size %d variant %q", size, variant)
	return record.Sample{}
}

func TestParseRecorded(t *testing.T) {
	tests := []struct {
		name     string
		parser   string
		ranks    int
		files    []string
		samples  int
		problems int
		check    func(t *testing.T, res *external.Result)
	}{
		// Recorded: nccl-tests 2.17.9 on 8 H100s, one process (../../nccltests/testdata/README.md).
		{"nccl-tests all_reduce, 8 GPUs, recorded", "nccl-tests", 1, []string{"../../nccltests/testdata/h100_all_reduce_8.txt"},
			62, 0, func(t *testing.T, res *external.Result) {
				s := sample(t, res, 8<<30, "out-of-place")
				if got := float64(s.BytesSent) * float64(s.Iterations) / float64(s.ElapsedNs); math.Abs(got-210.34) > 0.01 {
					t.Errorf("bytes per ns = %v, want the printed algbw 210.34 GB/s", got)
				}
				if s.Iterations != 20 || s.Rank != -1 || value(t, res, 8<<30, "in-place", "busbw") != 368.62 {
					t.Errorf("sample = %+v", s)
				}
			}},
		{"nccl-tests all_gather, 8 GPUs, sizes rounded to 0, recorded", "nccl-tests", 1, []string{"../../nccltests/testdata/h100_all_gather_8.txt"},
			56, 0, func(t *testing.T, res *external.Result) {
				// Four rows of size 0 (8 to 64 bytes rounded down): the first is kept.
				if got := value(t, res, 0, "out-of-place", "time"); got != 0.88 {
					t.Errorf("time at size 0 = %v, want the first row's 0.88 us", got)
				}
				if res.Fingerprint["repeated_size_rows"] != 3 {
					t.Errorf("fingerprint = %v, want 3 repeated rows", res.Fingerprint)
				}
			}},
		// Written by hand, the study's published row: it serves the baseline
		// comparison of cmd/efaxx, and a rank 1 that prints NCCL's log only.
		{"nccl-tests alltoall, 16 GPUs", "nccl-tests", 16, []string{"nccl-tests/alltoall_16.rank0.txt", "nccl-tests/alltoall_16.rank1.txt"},
			14, 0, func(t *testing.T, res *external.Result) {
				// The study's 2-node row at 2048 MiB: 84.53 GB/s out of place.
				s := sample(t, res, 2<<30, "out-of-place")
				if got := float64(s.BytesSent) * float64(s.Iterations) / float64(s.ElapsedNs); math.Abs(got-84.53) > 0.01 {
					t.Errorf("bytes per ns = %v, want the printed algbw 84.53 GB/s", got)
				}
				if s.Iterations != 1000 || s.Rank != -1 || value(t, res, 2<<30, "out-of-place", "busbw") != 79.25 {
					t.Errorf("sample = %+v", s)
				}
			}},
		// Recorded: nccl-tests -J on 2 H200s (../../nccltests/testdata/README.md).
		{"nccl-tests -J file, 2 GPUs, recorded", "nccl-tests", 2, []string{"../../nccltests/testdata/h200_alltoall_2.json"},
			26, 0, func(t *testing.T, res *external.Result) {
				if got := value(t, res, 128<<20, "out-of-place", "busbw"); got != 267.669893 {
					t.Errorf("busbw at 128 MiB = %v, want the recorded 267.669893", got)
				}
			}},
		// Written by hand: JSON file version 2, none recorded.
		{"nccl-tests -J file, version 2", "nccl-tests", 8, []string{"../../nccltests/testdata/all_gather.json"}, 8, 0, nil},
		// Recorded: NVSHMEM 3.4.5 perftests on 2 H200s (testdata/nvshmem/README.md).
		{"nvshmem host all-to-all, recorded", "nvshmem", 2, []string{"nvshmem/alltoall_on_stream_2.rank0.txt", "nvshmem/alltoall_on_stream_2.rank1.txt"},
			7, 0, func(t *testing.T, res *external.Result) {
				if got := value(t, res, 64<<20, "int", "algbw"); got != 453.663 {
					t.Errorf("algbw at 64 MiB = %v, want 453.663 as recorded", got)
				}
				s := sample(t, res, 128<<20, "int")
				if s.Iterations != 100 || s.Rank != 0 || s.BytesSent != 128<<20 || s.Lat.Min != 252064 || s.Lat.Max != 278240 {
					t.Errorf("sample = %+v: want 100 iterations, min 252.064 us, max 278.240 us", s)
				}
			}},
		{"nvshmem host all-to-all machine-readable, recorded", "nvshmem", 2,
			[]string{"nvshmem/alltoall_on_stream_mr_2.rank0.txt", "nvshmem/alltoall_on_stream_mr_2.rank1.txt"},
			7, 0, func(t *testing.T, res *external.Result) {
				if got := value(t, res, 64<<20, "int", "latency"); got != 147.944961 {
					t.Errorf("latency at 64 MiB = %v, want 147.944961 as recorded", got)
				}
			}},
		{"nvshmem device all-to-all, recorded", "nvshmem", 2, []string{"nvshmem/alltoall_latency_2.rank0.txt", "nvshmem/alltoall_latency_2.rank1.txt"},
			16, 0, func(t *testing.T, res *external.Result) {
				if got := value(t, res, 1<<20, "32-bit/block", "algbw"); got != 19.410 {
					t.Errorf("block algbw at 1 MiB = %v, want 19.410 as recorded", got)
				}
				sample(t, res, 256<<10, "64-bit/block")
			}},
		{"nvshmem device all-to-all, small sizes, recorded", "nvshmem", 2,
			[]string{"nvshmem/alltoall_latency_small_2.rank0.txt", "nvshmem/alltoall_latency_small_2.rank1.txt"},
			69, 0, func(t *testing.T, res *external.Result) {
				if s := sample(t, res, 8, "32-bit/thread"); s.ElapsedNs != 406336 || s.Iterations != 100 {
					t.Errorf("sample = %+v: want 100 iterations of 4.063360 us", s)
				}
				sample(t, res, 16384, "64-bit/warp")
			}},
		// Recorded here: OMB 5.3 osu_latency and osu_bw, 2 ranks over shared
		// memory (testdata/osu/README.md).
		{"osu latency, OMB 5.3, recorded", "osu", 2, []string{"osu/omb53_latency.rank0.txt", "osu/omb53_latency.rank1.txt"},
			24, 0, func(t *testing.T, res *external.Result) {
				s := sample(t, res, 8, "")
				if s.ElapsedNs != 470 || s.Lat.P50 != 470 || s.Peer != 1 || s.BytesSent != 8 || value(t, res, 8, "", "latency") != 0.47 {
					t.Errorf("sample = %+v: want one trip of 8 bytes in 0.47 us", s)
				}
				if res.Fingerprint["test"] != "Latency" || res.Fingerprint["version"] != "5.3" {
					t.Errorf("fingerprint = %v", res.Fingerprint)
				}
				sample(t, res, 0, "") // osu_latency starts at 0 bytes
			}},
		{"osu-style ping-pong, recorded here", "osu", 2, []string{"osu/pingpong_local.txt"}, 17, 0, func(t *testing.T, res *external.Result) {
			if got := value(t, res, 65536, "", "latency"); got != 25.38 {
				t.Errorf("latency at 64 KiB = %v, want 25.38 as recorded", got)
			}
		}},
		{"osu bandwidth, OMB 5.3, recorded", "osu", 2, []string{"osu/omb53_bw.rank0.txt", "osu/omb53_bw.rank1.txt"},
			23, 0, func(t *testing.T, res *external.Result) {
				s := sample(t, res, 1<<20, "")
				bw := value(t, res, 1<<20, "", "bandwidth") // MB/s
				if got := float64(s.BytesSent) / float64(s.ElapsedNs) * 1e3; bw != 15141.15 || math.Abs(got-bw) > 1e-4*bw {
					t.Errorf("bytes over time = %v MB/s, want %v (15141.15 as recorded)", got, bw)
				}
			}},
		// Recorded on CSCS's Alps (GH200, Slingshot 11), OMB 7.5, published in
		// eth-cscs/cscs-docs (testdata/osu/README.md).
		{"osu bandwidth --validation, OMB 7.5, published", "osu", 2, []string{"osu/cscs_bw_intranode.txt"},
			23, 0, func(t *testing.T, res *external.Result) {
				if got := value(t, res, 4<<20, "", "bandwidth"); got != 23980.15 {
					t.Errorf("bandwidth at 4 MiB = %v, want 23980.15", got)
				}
			}},
		{"osu-cuda bandwidth, OMB 7.5, published", "osu", 2, []string{"osu/cscs_bw_cuda_internode_nocxi.txt"}, 23, 0, nil},
		{"osu all-to-all --validation, 8 ranks, OMB 7.5, published", "osu", 8, []string{"osu/cscs_alltoall_8.txt"},
			21, 0, func(t *testing.T, res *external.Result) {
				s := sample(t, res, 1024, "")
				if s.BytesSent != 7*1024 || s.BytesRecv != 7*1024 || s.Iterations != 1 || s.ElapsedNs != 13370 || s.Rank != -1 {
					t.Errorf("sample = %+v: want 1 KiB to and from 7 ranks in 13.37 us", s)
				}
			}},
		{"osu-cuda all-to-all, 8 ranks, OMB 7.5, published", "osu", 8, []string{"osu/cscs_alltoall_cuda_8.txt"},
			21, 0, func(t *testing.T, res *external.Result) {
				if got := value(t, res, 1<<20, "", "avg_latency"); got != 486.89 {
					t.Errorf("latency at 1 MiB = %v, want 486.89", got)
				}
			}},
		// Written by hand: no -f output (Min, Max, Iterations) is recorded.
		{"osu all-to-all -f", "osu", 16, []string{"osu/alltoall_full.txt"}, 21, 0, func(t *testing.T, res *external.Result) {
			s := sample(t, res, 1024, "")
			if s.BytesSent != 15*1024 || s.Iterations != 1000 || s.Lat.Min != 38390 || s.Rank != -1 {
				t.Errorf("sample = %+v", s)
			}
		}},
		// Recorded: fabtests 1.17.0, a server (rank 0) and a client (rank 1)
		// on one host (testdata/README.md).
		{"fabtests rdm_pingpong -m, shm, recorded", "fabtests", 2,
			[]string{"fabtests/rdm_pingpong_shm.rank0.txt", "fabtests/rdm_pingpong_shm.rank1.txt"},
			92, 0, func(t *testing.T, res *external.Result) {
				s := sample(t, res, 4096, "")
				if s.BytesSent != 4096 || s.BytesRecv != 4096 || s.Iterations != 10000 || s.Role != "both" {
					t.Errorf("sample = %+v: want a ping-pong of 10000 iterations", s)
				}
				// The client's 4096 line: time 4.105136 s, usec/xfer 205.256805 (one way).
				c := rankSample(t, res, 1, 4096)
				if c.ElapsedNs != 4_105_136_000 || c.Peer != 0 || math.Abs(float64(c.Lat.P50)/2e3-205.256805) > 0.001 {
					t.Errorf("client sample = %+v: want 4.105136 s, half a round trip 205.2568 us", c)
				}
			}},
		{"fabtests rma_bw -o writedata, tcp, recorded", "fabtests", 2,
			[]string{"fabtests/rma_bw_writedata_tcp.rank0.txt", "fabtests/rma_bw_writedata_tcp.rank1.txt"},
			12, 0, func(t *testing.T, res *external.Result) {
				srv, cl := rankSample(t, res, 0, 1<<20), rankSample(t, res, 1, 1<<20)
				if srv.Role != "target" || srv.BytesRecv != 1<<20 || srv.BytesSent != 0 {
					t.Errorf("server sample = %+v: want the target, receiving", srv)
				}
				if cl.Role != "initiator" || cl.BytesSent != 1<<20 || cl.Iterations != 200 {
					t.Errorf("client sample = %+v: want the initiator, sending", cl)
				}
				// The printed MB/sec is bytes per microsecond.
				if got := float64(cl.BytesSent) * float64(cl.Iterations) / float64(cl.ElapsedNs) * 1e3; math.Abs(got-5502.314110) > 0.1 {
					t.Errorf("client bytes per us = %v, want the printed 5502.314110", got)
				}
			}},
		{"fabtests rma_bw -o write (both ways), shm, recorded", "fabtests", 2,
			[]string{"fabtests/rma_bw_write_shm.rank0.txt", "fabtests/rma_bw_write_shm.rank1.txt"},
			12, 0, func(t *testing.T, res *external.Result) {
				for rank := 0; rank < 2; rank++ {
					if s := rankSample(t, res, rank, 65536); s.Role != "initiator" || s.BytesSent != 65536 {
						t.Errorf("rank %d sample = %+v: want both sides writing", rank, s)
					}
				}
			}},
		// Recorded: nvbandwidth v0.8 on one H200 (testdata/README.md):
		// host to device and back, device-local copy; the device to device
		// testcases are waived on one GPU.
		{"nvbandwidth, one H200, recorded", "nvbandwidth", 1, []string{"nvbandwidth/h200-1gpu.txt"},
			3, 0, func(t *testing.T, res *external.Result) {
				s := sample(t, res, 512<<20, "device_local_copy")
				if s.Rank != -1 || s.Peer != 0 || s.Iterations != 1 || s.BytesSent != 512<<20 {
					t.Errorf("sample = %+v: want one 512 MiB copy of GPU 0, in no row of a GPU", s)
				}
				if got := float64(s.BytesSent) / float64(s.ElapsedNs); math.Abs(got-2081.40) > 0.01 {
					t.Errorf("bytes per ns = %v, want the printed 2081.40 GB/s", got)
				}
				if got := value(t, res, 512<<20, "host_to_device_memcpy_ce", "bandwidth"); got != 55.44 {
					t.Errorf("host to device = %v, want 55.44", got)
				}
				if res.Fingerprint["version"] != "v0.8" || res.Fingerprint["host"] != "vm" || res.Fingerprint["driver"] != "580.159.04" {
					t.Errorf("fingerprint = %v", res.Fingerprint)
				}
			}},
		// Recorded: kernels/run-node.sh's testcases on one H200, built from
		// a clone of its own (testdata/README.md): eight waived, one run.
		{"nvbandwidth, run-node.sh's testcases on one H200, recorded", "nvbandwidth", 1, []string{"nvbandwidth/h200-1gpu-node.txt"},
			1, 0, func(t *testing.T, res *external.Result) {
				fp := res.Fingerprint
				if fp["waived"] != 8 || fmt.Sprint(fp["testcases"]) != "[device_local_copy]" || fp["git_version"] != "v0.8" {
					t.Errorf("fingerprint = %v: want 8 waived, device_local_copy run, built from v0.8", fp)
				}
			}},
		// Recorded: kernels/run-node.sh's testcases on 4 H100s joined by
		// NVSwitch (testdata/README.md): a bidirectional testcase's three
		// matrices under one Running line, N/A on the diagonal, the
		// all_to_one and one_to_all testcases' one row each.
		{"nvbandwidth, run-node.sh's testcases on 4 H100s, recorded", "nvbandwidth", 1, []string{"nvbandwidth/h100x4-node.txt"},
			10*12 + 5*4, 0, func(t *testing.T, res *external.Result) {
				var got []string
				for _, s := range res.Samples {
					if s.Rank == 2 && s.Peer == 1 {
						got = append(got, fmt.Sprintf("%s %.2f", s.Variant, float64(s.BytesSent)/float64(s.ElapsedNs)))
					}
				}
				want := []string{"device_to_device_memcpy_write_ce 397.42",
					"device_to_device_memcpy_read_ce 395.12",
					"device_to_device_bidirectional_memcpy_write_ce_write1 393.01",
					"device_to_device_bidirectional_memcpy_write_ce_write2 393.08",
					"device_to_device_bidirectional_memcpy_write_ce_total 786.08",
					"device_to_device_memcpy_write_sm 369.16",
					"device_to_device_memcpy_read_sm 376.30",
					"device_to_device_bidirectional_memcpy_write_sm_write1 364.91",
					"device_to_device_bidirectional_memcpy_write_sm_write2 364.85",
					"device_to_device_bidirectional_memcpy_write_sm_total 729.75"}
				if strings.Join(got, "; ") != strings.Join(want, "; ") {
					t.Errorf("cell (2, 1) = %q, want %q", got, want)
				}
				if got := value(t, res, 512<<20, "device_to_device_bidirectional_memcpy_write_ce_total", "sum"); got != 9433.44 {
					t.Errorf("bidir total SUM = %v, want 9433.44", got)
				}
				fp := res.Fingerprint
				if fp["waived"] != 0 || len(fp["testcases"].([]string)) != 11 || len(fp["devices"].([]string)) != 4 {
					t.Errorf("fingerprint = %v: want none waived, 11 testcases run, 4 devices", fp)
				}
			}},
		{"fabtests rdm_tagged_bw, tcp, recorded", "fabtests", 2,
			[]string{"fabtests/rdm_tagged_bw_tcp.rank0.txt", "fabtests/rdm_tagged_bw_tcp.rank1.txt"},
			12, 0, func(t *testing.T, res *external.Result) {
				if s := rankSample(t, res, 0, 4096); s.Role != "target" || s.BytesRecv != 4096 || s.Iterations != 20000 {
					t.Errorf("server sample = %+v: want the receiver", s)
				}
				if s := rankSample(t, res, 1, 4096); s.Role != "initiator" || s.BytesSent != 4096 {
					t.Errorf("client sample = %+v: want the sender", s)
				}
			}},
		// Written by hand (testdata/README.md).
		{"jacobi", "jacobi", 16, []string{"jacobi/nccl_16.rank0.txt"}, 1, 0, func(t *testing.T, res *external.Result) {
			if got := value(t, res, 16384*16384, "", "speedup"); got != 14.98 {
				t.Errorf("speedup = %v, want 14.98", got)
			}
			if s := res.Samples[0]; s.Iterations != 1000 || s.ElapsedNs != 31_506_300_000 {
				t.Errorf("sample = %+v", s)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := external.Parse(tt.parser, input(t, tt.ranks, tt.files...))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Samples) != tt.samples || len(res.Problems) != tt.problems || res.Failed != "" {
				t.Fatalf("Parse = %d samples, problems %v, failed %q; want %d samples, %d problems",
					len(res.Samples), res.Problems, res.Failed, tt.samples, tt.problems)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

// Recorded files the damaged-input tests change (README.md of each folder).
const (
	ncclRecorded = "../../nccltests/testdata/h100_all_reduce_8.txt"
	osuRecorded  = "osu/omb53_latency.rank0.txt"
)

// damage is a change to a recorded file that a parser must catch.
type damage struct {
	name    string
	parser  string
	ranks   int
	file    string
	change  func(string) string
	wantErr string // in the error; "" when the parse succeeds with Failed set
	failed  string // in Result.Failed
}

// cut drops everything after the n-th occurrence of sub, mid-line.
func cut(sub string, n int) func(string) string {
	return func(s string) string {
		i := -1
		for k := 0; k < n; k++ {
			j := strings.Index(s[i+1:], sub)
			if j < 0 {
				return s
			}
			i += 1 + j
		}
		return s[:i+len(sub)]
	}
}

// replace replaces old by new once.
func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// dropFrom drops every line from the first one holding sub.
func dropFrom(sub string) func(string) string {
	return func(s string) string {
		i := strings.Index(s, sub)
		return s[:strings.LastIndex(s[:i], "\n")+1]
	}
}

func TestParseDamaged(t *testing.T) {
	tests := []damage{
		{"nccl truncated mid-row", "nccl-tests", 1, ncclRecorded, cut("268435456", 1), "row of", ""},
		{"nccl cut before the footer", "nccl-tests", 1, ncclRecorded, dropFrom("# Out of bounds"), "cut short", ""},
		{"nccl unknown column", "nccl-tests", 1, ncclRecorded, replace("busbw", "busBW"), "unknown column header", ""},
		{"nccl misread column", "nccl-tests", 1, ncclRecorded, replace("  210.34  368.09", "  368.09  210.34"), "misread", ""},
		{"nccl #wrong", "nccl-tests", 1, ncclRecorded,
			replace("  210.34  368.09       0", "  210.34  368.09       3"), "", "3 wrong elements at size 8589934592"},
		{"nvshmem truncated mid-row", "nvshmem", 2, "nvshmem/alltoall_on_stream_2.rank0.txt", cut("16777216", 1), "row of", ""},
		{"nvshmem unknown column", "nvshmem", 2, "nvshmem/alltoall_on_stream_2.rank0.txt", replace("algbw(GB/s)", "algbw(GiB/s)"), "unknown column", ""},
		{"nvshmem misread column", "nvshmem", 2, "nvshmem/alltoall_on_stream_2.rank0.txt", replace("453.663 ", "45.663  "), "misread", ""},
		{"nvshmem no table", "nvshmem", 2, "nvshmem/alltoall_on_stream_2.rank0.txt", dropFrom("#alltoall"), "no results", ""},
		{"nvshmem cut mid-line", "nvshmem", 2, "nvshmem/alltoall_latency_2.rank0.txt", cut("19.410", 1), "cut short", ""},
		{"nvshmem machine-readable misread", "nvshmem", 2, "nvshmem/alltoall_on_stream_mr_2.rank0.txt", replace(" -us", " -ms"), "unknown measure", ""},
		{"osu truncated mid-row", "osu", 2, osuRecorded, cut("1024 ", 1), "row of", ""},
		{"osu unknown column", "osu", 2, osuRecorded, replace("Latency (us)", "Latency (ms)"), "unknown column", ""},
		{"osu validation column misses", "osu", 2, osuRecorded, replace("# Size          Latency (us)", "# Size          Latency (us)        Validation"), "row of", ""},
		{"osu validation failed", "osu", 8, "osu/cscs_alltoall_8.txt", replace("Pass", "Fail"), "", "OSU validation failed"},
		{"osu validation cell", "osu", 8, "osu/cscs_alltoall_8.txt", replace("Pass", "Passed"), "validation \"Passed\"", ""},
		{"osu cut mid-line", "osu", 2, "osu/cscs_bw_intranode.txt", cut("23980", 1), "cut short", ""},
		{"osu validation error", "osu", 2, osuRecorded,
			func(s string) string {
				return s + "DATA VALIDATION ERROR: ./osu_latency exited with status 1 on message size 8.\n"
			},
			"", "DATA VALIDATION ERROR"},
		{"fabtests truncated", "fabtests", 2, "fabtests/rdm_pingpong_shm.rank0.txt", cut("xfer_size: 4096", 1), "", ""},
		{"fabtests unknown key", "fabtests", 2, "fabtests/rdm_pingpong_shm.rank0.txt", replace("MB/sec", "MiB/sec"), "unknown key", ""},
		{"fabtests time 0", "fabtests", 2, "fabtests/rma_bw_writedata_tcp.rank0.txt", replace("time: 0.040320", "time: 0.000000"), "time", ""},
		{"jacobi misread", "jacobi", 16, "jacobi/nccl_16.rank0.txt", replace("14.98", "41.98"), "misread", ""},
		{"jacobi truncated", "jacobi", 16, "jacobi/nccl_16.rank0.txt", cut("speedup:", 1), "cut short", ""},
		{"nvbandwidth misread cell", "nvbandwidth", 1, "nvbandwidth/h200-1gpu.txt", replace(" 0     55.44", " 0     54.44"), "misread", ""},
		{"nvbandwidth cut mid-matrix", "nvbandwidth", 1, "nvbandwidth/h200-1gpu.txt", dropFrom(" 0   2081.40"), "no SUM line", ""},
		{"nvbandwidth bad cell", "nvbandwidth", 1, "nvbandwidth/h200-1gpu.txt", replace("2081.40\n\nSUM", "fast\n\nSUM"), "not a bandwidth", ""},
		{"nvbandwidth row shape", "nvbandwidth", 1, "nvbandwidth/h200-1gpu.txt", replace(" 0     55.34", " 0     55.34  1.0"), "want row 0", ""},
		{"nvbandwidth matrix twice", "nvbandwidth", 1, "nvbandwidth/h100x4-node.txt",
			replace("_write_ce_write2 ", "_write_ce_write1 "), "a second matrix of device_to_device_bidirectional_memcpy_write_ce_write1", ""},
		{"nvbandwidth SUM of another testcase", "nvbandwidth", 1, "nvbandwidth/h100x4-node.txt",
			replace("SUM device_to_device_memcpy_write_sm", "SUM device_to_device_memcpy_read_sm"), "want its SUM line", ""},
		{"nvbandwidth testcase not found", "nvbandwidth", 1, "nvbandwidth/h200-1gpu.txt",
			replace("Waived: \n", "ERROR: Testcase device_to_device_memcpy_wirte_ce not found!\n"), "", "Testcase device_to_device_memcpy_wirte_ce not found"},
		{"nvbandwidth latency", "nvbandwidth", 1, "nvbandwidth/h200-1gpu.txt", replace("local GPU(column) bandwidth (GB/s)", "local GPU(column) latency (ns)"), "latency", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(t, tt.ranks, tt.file)
			in.Files[0].Data = []byte(tt.change(string(in.Files[0].Data)))
			res, err := external.Parse(tt.parser, in)
			switch {
			case tt.wantErr == "" && tt.failed == "" && err == nil:
				t.Fatalf("Parse succeeded with %d samples; want an error", len(res.Samples))
			case tt.wantErr == "" && tt.failed == "":
				if !errors.Is(err, external.ErrFormat) {
					t.Errorf("error %v does not match ErrFormat", err)
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, external.ErrFormat) {
					t.Fatalf("Parse error = %v, want one holding %q", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.file) {
					t.Errorf("error %q does not name the file", err)
				}
			default:
				if err != nil || !strings.Contains(res.Failed, tt.failed) {
					t.Fatalf("Parse = failed %q, error %v; want the run failed with %q", res.Failed, err, tt.failed)
				}
			}
		})
	}
}

func TestParseUnknownLines(t *testing.T) {
	in := input(t, 2, "nvshmem/alltoall_on_stream_2.rank0.txt", "nvshmem/alltoall_on_stream_2.rank1.txt")
	in.Files[1].Data = append(in.Files[1].Data, "Segmentation fault (core dumped) in libfoo\n"...)
	res, err := external.Parse("nvshmem", in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Error() != `nvshmem/alltoall_on_stream_2.rank1.txt:5: line not understood: "Segmentation fault (core dumped) in libfoo"` {
		t.Errorf("problems = %v, want the one line not understood, at its file and line", res.Problems)
	}
	in = input(t, 1, ncclRecorded)
	in.Files[0].Data = append([]byte("warning: something odd\n"), in.Files[0].Data...)
	if res, err := external.Parse("nccl-tests", in); err != nil || len(res.Problems) != 1 || res.Problems[0].Line != 1 {
		t.Errorf("nccl-tests problems = %v (error %v), want line 1", res.Problems, err)
	}
}

func TestParseSizes(t *testing.T) {
	in := input(t, 2, osuRecorded)
	in.Sizes = []uint64{0, 1, 2, 65536, 4 << 20}
	if _, err := external.Parse("osu", in); err != nil {
		t.Fatalf("sizes all present: %v", err)
	}
	in.Sizes = []uint64{65536, 8 << 20}
	if _, err := external.Parse("osu", in); err == nil || !strings.Contains(err.Error(), "no result for size 8388608") {
		t.Errorf("a size missing: error %v, want one naming 8388608", err)
	}
}

func TestBenchmark(t *testing.T) {
	tests := []struct{ parser, program, want string }{
		{"nccl-tests", "/opt/nccl-tests/build/all_reduce_perf", "nccl:all_reduce"},
		{"nvshmem", "/opt/nvshmem/bin/perftest/host/coll/alltoall_on_stream", "nvshmem:alltoall_on_stream"},
		{"osu", "osu_latency", "osu:latency"},
		{"fabtests", "fi_rdm_pingpong", "fabtests:rdm_pingpong"},
		{"jacobi", "/x/nvshmem", "jacobi:nvshmem"},
		{"nvbandwidth", "/opt/nvbandwidth/nvbandwidth", "nvbandwidth:nvbandwidth"},
	}
	for _, tt := range tests {
		if got := external.Benchmark(tt.parser, tt.program); got != tt.want {
			t.Errorf("Benchmark(%q, %q) = %q, want %q", tt.parser, tt.program, got, tt.want)
		}
	}
}

// TestNCCLOutOfBounds: nccl-tests' own count of failed checks fails the
// run even where no row kept shows a #wrong above 0 (a row left out as a
// repeated size): it was stored as ok.
func TestNCCLOutOfBounds(t *testing.T) {
	data, err := os.ReadFile("../nccltests/testdata/h200_all_gather_2.txt")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "# Out of bounds values : 0 OK", "# Out of bounds values : 1 FAILED", 1)
	res, err := external.Parse("nccl-tests", external.Input{Ranks: 2, Files: []external.File{{Name: "rank-00000.stdout", Data: []byte(bad)}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != `rank-00000.stdout:25: nccl-tests data check: "# Out of bounds values : 1 FAILED"` {
		t.Errorf("Failed = %q, want the out-of-bounds line", res.Failed)
	}
}
