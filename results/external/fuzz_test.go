package external_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results/external"
)

// fuzzParser fuzzes one parser with one rank's output: it must not panic,
// must fail with ErrFormat, and must return only samples the store takes,
// and problems at lines the output has.
func fuzzParser(f *testing.F, parser string, seeds ...string) {
	for _, name := range seeds {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := external.Input{Ranks: 16, Files: []external.File{{Name: "out", Rank: 0, Data: data}}}
		res, err := external.Parse(parser, in)
		if err != nil {
			if !errors.Is(err, external.ErrFormat) {
				t.Fatalf("error %v does not match ErrFormat", err)
			}
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range res.Problems {
			if p.Line < 1 || p.Line > lines {
				t.Errorf("problem %v at a line the output does not have (%d lines)", p, lines)
			}
		}
		for _, s := range res.Samples {
			if s.ElapsedNs == 0 || s.ElapsedNs >= 1<<63 || s.Iterations == 0 || s.Lat.Min == 0 {
				t.Errorf("sample %+v: the store takes no zero time or count", s)
			}
		}
	})
}

func FuzzParseNCCL(f *testing.F) {
	fuzzParser(f, "nccl-tests", "../../nccltests/testdata/h100_all_reduce_8.txt", "../../nccltests/testdata/h100_all_gather_8.txt",
		"../../nccltests/testdata/h200_all_reduce_2.json", "../../nccltests/testdata/h200_alltoall_2.txt",
		"../../nccltests/testdata/all_gather.json")
}

func FuzzParseNVSHMEM(f *testing.F) {
	fuzzParser(f, "nvshmem", "nvshmem/alltoall_on_stream_2.rank0.txt", "nvshmem/alltoall_on_stream_mr_2.rank0.txt",
		"nvshmem/alltoall_latency_2.rank0.txt", "nvshmem/alltoall_latency_small_2.rank0.txt")
}

func FuzzParseOSU(f *testing.F) {
	fuzzParser(f, "osu", "osu/omb53_latency.rank0.txt", "osu/omb53_bw.rank0.txt", "osu/cscs_alltoall_8.txt",
		"osu/cscs_bw_intranode.txt", "osu/alltoall_full.txt")
}

func FuzzParseFabtests(f *testing.F) {
	fuzzParser(f, "fabtests", "fabtests/rdm_pingpong_shm.rank1.txt", "fabtests/rma_bw_writedata_tcp.rank0.txt",
		"fabtests/rma_bw_write_shm.rank1.txt")
}

func FuzzParseJacobi(f *testing.F) {
	fuzzParser(f, "jacobi", "jacobi/nccl_16.rank0.txt")
}

func FuzzParseNVBandwidth(f *testing.F) {
	fuzzParser(f, "nvbandwidth", "nvbandwidth/h200-1gpu.txt", "nvbandwidth/h100x4-node.txt")
}
