package external

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"efaxx/results/record"
)

// NVIDIA's nvbandwidth prints, for each testcase it runs, a matrix of
// bandwidths between the devices (and the host) and its sum:
//
//	Running device_to_device_memcpy_write_ce.
//	memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)
//	           0         1
//	 0       N/A    389.12
//	 1    389.50       N/A
//
//	SUM device_to_device_memcpy_write_ce 778.62
//
// A bidirectional testcase prints three matrices under its one Running
// line, each with its own SUM key: NAME_write1 (column to row), NAME_write2
// (row to column, both at once) and NAME_total (or _read1, _read2, _total).
// A row is the GPU whose context made the copy (the writer of a write
// testcase, the reader of a read one), as efaxx's samples name the rank
// that moved the data. A testcase the machine cannot run (device to
// device on one GPU) prints "Waived: " instead, without its name; one
// that failed prints "ERROR: ..." or "Error: ...", which fails the run.
//
// Each cell with a number becomes a sample: rank is its row (-1 where the
// row is not a GPU: the host's, or the one row of a device-local copy or
// an all-to-one testcase), peer its column, variant the matrix's SUM key; size is the buffer nvbandwidth
// copies (the sweep's one size, its -b in MiB; 512 MiB by default), one
// iteration, and the time that moves size bytes at the printed rate, so
// that the store's GB/s is nvbandwidth's; the printed number itself is
// kept as the tool value bandwidth (GB/s), and each matrix's SUM is
// checked against its cells.

var (
	nvbwRunning = regexp.MustCompile(`^Running (\w+)\.$`)
	nvbwMatrix  = regexp.MustCompile(`^(.*\((row|column)\).*) (bandwidth \(GB/s\)|latency \(ns\))$`)
	nvbwSum     = regexp.MustCompile(`^SUM (\w+) (\S+)$`)
	nvbwError   = regexp.MustCompile(`^(ERROR|Error): (.*)$`)
	nvbwWaived  = regexp.MustCompile(`^Waived: ?$`)
	nvbwSuffix  = regexp.MustCompile(`^_[a-z]+[0-9]*$`) // of a bidirectional testcase's matrices: _write1, _total
	nvbwHead    = []*regexp.Regexp{
		regexp.MustCompile(`^nvbandwidth Version: (\S+)$`),
		regexp.MustCompile(`^Built from Git version: (\S+)$`),
		regexp.MustCompile(`^CUDA Runtime Version: (\d+)$`),
		regexp.MustCompile(`^CUDA Driver Version: (\d+)$`),
		regexp.MustCompile(`^Driver Version: (\S+)$`),
	}
	nvbwHeadKeys = []string{"version", "git_version", "cuda_runtime", "cuda_driver", "driver"}
	nvbwDevice   = regexp.MustCompile(`^Device (\d+): (.+)$`)
	nvbwNoise    = []*regexp.Regexp{
		regexp.MustCompile(`^NOTE: The reported results may not reflect`),
		regexp.MustCompile(`^Performance can vary with software drivers`),
	}
)

// nvbwDefaultBuffer is nvbandwidth's buffer when -b does not say (512 MiB).
const nvbwDefaultBuffer = 512 << 20

// parseNVBandwidth reads nvbandwidth's text output (not -j).
func parseNVBandwidth(in Input) (*Result, error) {
	s := &sink{}
	res := &Result{}
	size := uint64(nvbwDefaultBuffer)
	if len(in.Sizes) == 1 {
		size = in.Sizes[0]
	} else if len(in.Sizes) > 1 {
		s.fail(fileNames(in.Files), 0, "nvbandwidth copies one buffer size (-b), and the sweep names %d sizes", len(in.Sizes))
		return nil, s.err()
	}
	fp := map[string]any{"tool": "nvbandwidth", "buffer_bytes": size}
	var devices, testcases []string
	waived := 0
	seen := map[string]bool{} // the variants read: a matrix printed twice is misread
	for _, f := range in.Files {
		ls, cut := lines(f.Data)
		if cut {
			s.fail(f.Name, len(ls), "the last line has no end: the output was cut short")
		}
		testcase := ""
		for i := 0; i < len(ls); i++ {
			t := strings.TrimSpace(ls[i])
			if m := nvbwRunning.FindStringSubmatch(t); m != nil {
				testcase = m[1]
				testcases = append(testcases, testcase)
				continue
			}
			if m := nvbwMatrix.FindStringSubmatch(t); m != nil {
				if testcase == "" {
					s.fail(f.Name, i+1, "a matrix with no \"Running\" line before it")
					return nil, s.err()
				}
				if !strings.HasPrefix(m[3], "bandwidth") {
					s.fail(f.Name, i+1, "%s: a latency testcase; this parser reads bandwidths", testcase)
					return nil, s.err()
				}
				next, ok := nvbwReadMatrix(s, res, f, ls, i, testcase, size, seen)
				if !ok {
					return nil, s.err()
				}
				i = next
				continue
			}
			switch m := nvbwError.FindStringSubmatch(t); {
			case m != nil:
				if res.Failed == "" {
					res.Failed = fmt.Sprintf("%s:%d: nvbandwidth: %s", f.Name, i+1, t)
				}
				continue
			case nvbwWaived.MatchString(t):
				waived++
				continue
			}
			if m := nvbwDevice.FindStringSubmatch(t); m != nil {
				devices = append(devices, m[1]+": "+m[2])
				continue
			}
			if k := nvbwHeadIndex(t); k >= 0 {
				fp[nvbwHeadKeys[k]] = nvbwHead[k].FindStringSubmatch(t)[1]
				continue
			}
			if i+1 < len(ls) && !strings.ContainsAny(t, " \t") && nvbwDevice.MatchString(strings.TrimSpace(ls[i+1])) {
				fp["host"] = t // the host's name, printed before its devices
				continue
			}
			if t == "" || matchAny(nvbwNoise, t) {
				continue
			}
			s.unknown(f.Name, i+1, t)
		}
	}
	fp["devices"] = devices
	fp["testcases"] = testcases // those that ran; nvbandwidth does not name the waived ones
	fp["waived"] = waived
	fp["units"] = map[string]string{"bandwidth": "GB/s (1e9 B/s), as nvbandwidth printed it", "sum": "GB/s, the matrix's SUM"}
	res.Problems = s.problems
	res.Fingerprint = fp
	return res, s.err()
}

func nvbwHeadIndex(t string) int {
	for k, re := range nvbwHead {
		if re.MatchString(t) {
			return k
		}
	}
	return -1
}

// nvbwReadMatrix reads the matrix whose description is at line at of ls
// (0-based) and its SUM line, stores a sample per cell under the SUM's key
// (the testcase, or for one of a testcase's several matrices the testcase
// and a suffix), and returns the line index of the SUM.
func nvbwReadMatrix(s *sink, res *Result, f File, ls []string, at int, testcase string, size uint64, seen map[string]bool) (int, bool) {
	if at+1 >= len(ls) {
		s.fail(f.Name, at+1, "%s: the matrix has no column header", testcase)
		return 0, false
	}
	cols := strings.Fields(ls[at+1])
	for k, c := range cols {
		if c != strconv.Itoa(k) {
			s.fail(f.Name, at+2, "%s: column header %q: want the columns 0, 1, ... in order", testcase, ls[at+1])
			return 0, false
		}
	}
	sum, cells, row := 0.0, 0, 0
	first, firstValue := len(res.Samples), len(res.Values)
	i := at + 2
	for ; i < len(ls) && strings.TrimSpace(ls[i]) != ""; i, row = i+1, row+1 {
		fs := strings.Fields(ls[i])
		if len(fs) != len(cols)+1 || fs[0] != strconv.Itoa(row) {
			s.fail(f.Name, i+1, "%s: row %q: want row %d and %d values", testcase, strings.TrimSpace(ls[i]), row, len(cols))
			return 0, false
		}
		for col, v := range fs[1:] {
			if v == "N/A" {
				continue
			}
			gbs, ok := number(v)
			ns := float64(size) / gbs
			if !ok || gbs == 0 || !timeOK(ns) {
				s.fail(f.Name, i+1, "%s: %q at row %d, column %d: not a bandwidth", testcase, v, row, col)
				return 0, false
			}
			sum += gbs
			cells++
			smp := record.Sample{Type: record.TypeSample, Rank: row, Peer: col, Role: "initiator", Size: size,
				Variant: testcase, BytesSent: size, Iterations: 1, ElapsedNs: uint64(math.Round(ns)),
				Lat: latOf(ns, ns, ns)}
			res.Samples = append(res.Samples, smp)
			res.Values = append(res.Values, record.ToolValue{Size: size, Rank: row, Peer: col, Variant: testcase,
				Name: "bandwidth", Value: gbs, Unit: "GB/s"})
		}
	}
	for ; i < len(ls) && strings.TrimSpace(ls[i]) == ""; i++ {
	}
	if i >= len(ls) {
		s.fail(f.Name, len(ls), "%s: no SUM line after its matrix: the output was cut short", testcase)
		return 0, false
	}
	m := nvbwSum.FindStringSubmatch(strings.TrimSpace(ls[i]))
	if m == nil || (m[1] != testcase && !nvbwSuffix.MatchString(strings.TrimPrefix(m[1], testcase))) {
		s.fail(f.Name, i+1, "%s: %q: want its SUM line", testcase, strings.TrimSpace(ls[i]))
		return 0, false
	}
	variant := m[1]
	if seen[variant] {
		s.fail(f.Name, i+1, "%s: a second matrix of %s", testcase, variant)
		return 0, false
	}
	seen[variant] = true
	// A row is a GPU only in a square matrix of GPU rows; the host's row,
	// a device-local copy's and an all-to-one's single row are none.
	pairs := strings.Contains(ls[at], "GPU(row)") && row == len(cols)
	for k := first; k < len(res.Samples); k++ {
		res.Samples[k].Variant = variant
		if !pairs {
			res.Samples[k].Rank = -1
		}
	}
	for k := firstValue; k < len(res.Values); k++ {
		res.Values[k].Variant = variant
		if !pairs {
			res.Values[k].Rank = -1
		}
	}
	printed, ok := number(m[2])
	if !ok || math.Abs(printed-sum) > 0.01*float64(cells)+1e-6*printed {
		s.fail(f.Name, i+1, "%s: SUM %s is not the sum of its %d cells (%.2f): a cell is misread", testcase, m[2], cells, sum)
		return 0, false
	}
	res.Values = append(res.Values, record.ToolValue{Size: size, Rank: -1, Peer: -1, Variant: variant,
		Name: "sum", Value: printed, Unit: "GB/s"})
	return i, true
}
